#!/usr/bin/env bash
# How much of retry/, pix/ and psp/ the property suite guards on its own: gremlins' mutants of
# each package run against the tests of properties/ only, not against the package's own tests.
#
#   bash scripts/mutation-properties.sh          # retry, pix and psp
#   bash scripts/mutation-properties.sh retry    # one package
#
# gremlins runs only the mutated package's tests, or with --integration `go test ./...` over the
# whole module. This script runs gremlins (the pinned version, built from go.mod) in integration
# mode with a `go` first in PATH that turns that `./...` into `./properties/`: coverage is
# gathered from the properties alone (-coverpkg=./PKG), so a mutant no property reaches is NOT
# COVERED, and every other mutant runs against the properties alone. The report goes to .mutation/properties-PKG.json. When
# .mutation/PKG.json (`make mutation`) is there too, scripts/mutationgap lists every mutant the
# full suite kills and the properties let live, and fails unless properties/survivors.md names
# each one. gremlins cannot run a mutant of a switch case's condition (NOT COVERED): -prove runs
# each such mutant against the properties through `go test -overlay`, as make mutation's gate does.
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

shim="$(mktemp -d)"
trap 'rm -rf "$shim"' EXIT
cat >"$shim/go" <<'SHIM'
#!/usr/bin/env bash
# gremlins' `go test ... ./...`, limited to the property suite.
args=()
for a in "$@"; do
  if [ "$a" = "./..." ]; then a=./properties/; fi
  args+=("$a")
done
exec "$PIXRETRY_GO" "${args[@]}"
SHIM
chmod +x "$shim/go"
# `go tool` puts GOROOT/bin first in PATH, which would hide the shim: run gremlins' binary itself.
go build -o "$shim/gremlins" github.com/go-gremlins/gremlins/cmd/gremlins

if [ "$#" -eq 0 ]; then set -- retry pix psp; fi
mkdir -p .mutation
for pkg in "$@"; do
  rm -f ".mutation/properties-$pkg.json"
  echo "== gremlins: ./$pkg against ./properties/ only (RAPID_CHECKS=$RAPID_CHECKS)"
  PATH="$shim:$PATH" "$shim/gremlins" unleash --config .gremlins.yaml --integration \
    --coverpkg "./$pkg" -o ".mutation/properties-$pkg.json" "./$pkg"
done
echo "== the property suite's own kill count"
go run ./scripts/mutationgap -prove -explained properties/survivors.md "$@"
