#!/usr/bin/env bash
# Mutation testing of the packages that carry the pattern, with a gate that trusts only the report.
#
#   bash scripts/mutation.sh            # retry, psp and pix
#   bash scripts/mutation.sh retry      # one package
#
# gremlins (pinned in go.mod, run with `go tool`) mutates one package at a time with all eleven
# mutators (.gremlins.yaml) and writes a JSON report to .mutation/PKG.json; scripts/mutationgate
# then fails on any mutant that was not killed. It proves each NOT COVERED mutant (gremlins'
# name for a switch case's condition, even one the tests run) by running the package's tests
# against it through `go test -overlay`. GOFLAGS=-count=1 keeps a warm test cache from
# shrinking gremlins' timeout baseline (which turns mutants into false TIMED OUT), and RAPID_SEED
# pins any rapid test so that a verdict cannot flip between runs.
set -euo pipefail
cd "$(dirname "$0")/.."

export GOFLAGS=-count=1
export RAPID_SEED="${RAPID_SEED:-1}"
export RAPID_NOFAILFILE=1 # a killed mutant must leave no fail file for the next one to replay

if [ "$#" -eq 0 ]; then set -- retry psp pix; fi
mkdir -p .mutation
reports=()
for pkg in "$@"; do
  rm -f ".mutation/$pkg.json"
  echo "== gremlins: ./$pkg"
  go tool gremlins unleash --config .gremlins.yaml -o ".mutation/$pkg.json" "./$pkg"
  reports+=("./$pkg=.mutation/$pkg.json")
done
echo "== gate"
go run ./scripts/mutationgate "${reports[@]}"
