#!/usr/bin/env bash
# How much of retry/, pix/ and psp/ the property suite guards on its own: gremlins' mutants of
# each package run against the property tests only, not against the package's other tests. The
# property tests are every Test of properties/ and every Test that retry/, psp/ and pix/ declare
# in a property_*_test.go file.
#
#   bash scripts/mutation-properties.sh          # retry, pix and psp
#   bash scripts/mutation-properties.sh retry    # one package
#
# gremlins runs only the mutated package's tests, or with --integration `go test ./...` over the
# whole module. This script runs gremlins (the version pinned in tools/go.mod) in integration
# mode with a -run of the property tests' names in GOFLAGS, which every `go test` it starts
# reads (and other go commands ignore): coverage is gathered from the properties alone
# (-coverpkg=./PKG), so a mutant no property reaches is NOT COVERED, and every other mutant runs
# against the properties alone. The names are read from the files at each run, and no other
# test of the module may share one. The report goes to .mutation/properties-PKG.json. When
# .mutation/PKG.json (`make mutation`) is there too, tools/mutationgap lists every mutant the
# full suite kills and the properties let live, and fails unless tools/accepted.txt accepts
# each one. gremlins cannot run a mutant of a switch case's condition (NOT COVERED): -prove runs
# each such mutant against the properties through `go test -overlay`, as make mutation's gate
# does.
#
# Each mutant runs the whole property suite with the default 100 checks per property (at 25,
# chance decided whether a rare combination of faults was drawn); the seed is pinned so that a
# verdict cannot flip between runs, and RAPID_NOFAILFILE keeps a killed mutant's fail file from
# being replayed against the next.
set -euo pipefail
cd "$(dirname "$0")/.."

export RAPID_SEED="${RAPID_SEED:-1}"
export RAPID_CHECKS="${RAPID_CHECKS:-100}"
export RAPID_NOFAILFILE=1

# tests prints the names of the Test functions declared in the files it is given, but TestMain.
tests() {
  sed -n 's/^func \(Test[A-Za-z0-9_]*\)(.*/\1/p' "$@" | grep -vx TestMain | sort -u
}
shopt -s nullglob
properties="$(tests properties/*_test.go retry/property_*_test.go psp/property_*_test.go pix/property_*_test.go)"
others=()
while IFS= read -r f; do
  case "$f" in ./properties/* | */property_*) ;; *) others+=("$f") ;; esac
done < <(find . -path ./tools -prune -o -name '*_test.go' -print)
shopt -u nullglob
if [ -z "$properties" ]; then
  echo "mutation-properties.sh: no property tests found" >&2
  exit 1
fi
# -run selects by name in every package of the module: another test with a property's name would
# run as one.
clash="$(comm -12 <(echo "$properties") <(tests "${others[@]}"))"
if [ -n "$clash" ]; then
  echo "mutation-properties.sh: tests outside properties/ and property_*_test.go share a property's name:" >&2
  echo "$clash" >&2
  exit 1
fi
export GOFLAGS="-count=1 -run=^($(paste -sd '|' <<<"$properties"))\$"
gremlins="$(go -C tools tool -n gremlins)"

if [ "$#" -eq 0 ]; then set -- retry pix psp; fi
mkdir -p .mutation
for pkg in "$@"; do
  rm -f ".mutation/properties-$pkg.json"
  echo "== gremlins: ./$pkg against the property tests only (RAPID_CHECKS=$RAPID_CHECKS)"
  "$gremlins" unleash --config .gremlins.yaml --integration \
    --coverpkg "./$pkg" -o ".mutation/properties-$pkg.json" "./$pkg"
done
echo "== the property suite's own kill count"
GOFLAGS=-count=1 "$(go -C tools tool -n mutationgap)" -prove -accepted tools/accepted.txt "$@"
