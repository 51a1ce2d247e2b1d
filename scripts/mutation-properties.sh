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
# mode with a `go` first in PATH that turns that `./...` into `./properties/ ./retry/ ./psp/
# ./pix/` and a -run of the property tests' names, read from the files at each run: coverage is
# gathered from the properties alone (-coverpkg=./PKG), so a mutant no property reaches is NOT
# COVERED, and every other mutant runs against the properties alone. The report goes to
# .mutation/properties-PKG.json. When .mutation/PKG.json (`make mutation`) is there too,
# tools/mutationgap lists every mutant the full suite kills and the properties let live, and
# fails unless properties/survivors.md names each one. gremlins cannot run a mutant of a switch
# case's condition (NOT COVERED): -prove runs each such mutant against the properties through
# `go test -overlay`, as make mutation's gate does.
#
# Each mutant runs the whole property suite with the default 100 checks per property (at 25,
# chance decided whether a rare combination of faults was drawn); the seed is pinned so that a
# verdict cannot flip between runs, and RAPID_NOFAILFILE keeps a killed mutant's fail file from
# being replayed against the next.
set -euo pipefail
cd "$(dirname "$0")/.."

export GOFLAGS=-count=1
export RAPID_SEED="${RAPID_SEED:-1}"
export RAPID_CHECKS="${RAPID_CHECKS:-100}"
export RAPID_NOFAILFILE=1
PIXRETRY_GO="$(command -v go)"
export PIXRETRY_GO

# tests prints the names of the Test functions declared in the files it is given, but TestMain.
tests() {
  sed -n 's/^func \(Test[A-Za-z0-9_]*\)(.*/\1/p' "$@" | grep -vx TestMain | sort -u
}
shopt -s nullglob
PIXRETRY_PROPERTIES="$(tests properties/*_test.go retry/property_*_test.go psp/property_*_test.go pix/property_*_test.go)"
export PIXRETRY_PROPERTIES
others=()
for f in retry/*_test.go psp/*_test.go pix/*_test.go; do
  case "$f" in */property_*) ;; *) others+=("$f") ;; esac
done
shopt -u nullglob
if [ -z "$PIXRETRY_PROPERTIES" ]; then
  echo "mutation-properties.sh: no property tests found" >&2
  exit 1
fi
# -run selects by name in every package: another test of retry/, psp/ or pix/ with a property's
# name would run as one.
clash="$(comm -12 <(echo "$PIXRETRY_PROPERTIES") <(tests "${others[@]}"))"
if [ -n "$clash" ]; then
  echo "mutation-properties.sh: tests of retry/, psp/ or pix/ outside property_*_test.go share a property's name:" >&2
  echo "$clash" >&2
  exit 1
fi

shim="$(mktemp -d)"
trap 'rm -rf "$shim"' EXIT
cat >"$shim/go" <<'SHIM'
#!/usr/bin/env bash
# gremlins' `go test ... ./...`, limited to the property tests: their packages, and a -run of
# their names (PIXRETRY_PROPERTIES, one a line). A -run of gremlins' own (v0.6.0 passes none)
# keeps those of the names it matches.
if [[ " $* " != *" ./... "* ]]; then exec "$PIXRETRY_GO" "$@"; fi
names="$PIXRETRY_PROPERTIES"
args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
  ./...) ;;
  -run | -test.run) names="$(grep -E -- "$2" <<<"$names")"; shift ;;
  -run=* | -test.run=*) names="$(grep -E -- "${1#*=}" <<<"$names")" ;;
  *) args+=("$1") ;;
  esac
  shift
done
if [ -z "$names" ]; then
  echo "go shim: gremlins' -run matches no property test" >&2
  exit 2
fi
exec "$PIXRETRY_GO" "${args[@]}" -run "^($(paste -sd '|' <<<"$names"))\$" ./properties/ ./retry/ ./psp/ ./pix/
SHIM
chmod +x "$shim/go"
# `go tool` puts GOROOT/bin first in PATH, which would hide the shim: run gremlins' binary itself.
gremlins="$(go -C tools tool -n gremlins)"

if [ "$#" -eq 0 ]; then set -- retry pix psp; fi
mkdir -p .mutation
for pkg in "$@"; do
  rm -f ".mutation/properties-$pkg.json"
  echo "== gremlins: ./$pkg against the property tests only (RAPID_CHECKS=$RAPID_CHECKS)"
  PATH="$shim:$PATH" "$gremlins" unleash --config .gremlins.yaml --integration \
    --coverpkg "./$pkg" -o ".mutation/properties-$pkg.json" "./$pkg"
done
echo "== the property suite's own kill count"
"$(go -C tools tool -n mutationgap)" -prove -explained properties/survivors.md "$@"
