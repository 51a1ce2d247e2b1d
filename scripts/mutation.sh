#!/usr/bin/env bash
# Mutation testing of the packages that carry the pattern, with a gate that trusts only the report.
#
#   bash scripts/mutation.sh            # retry, psp, pix and durable (make mutation)
#   bash scripts/mutation.sh retry      # one package (make mutation-retry, in CI)
#
# gremlins (pinned in tools/go.mod, built with `go -C tools tool -n`, run here on the product
# module) mutates one package at a time with all eleven mutators (.gremlins.yaml) and writes a
# JSON report to .mutation/PKG.json; tools/mutationgate then fails on any mutant that was not
# killed. It proves each NOT COVERED mutant (gremlins' name for a switch case's condition, even
# one the tests run) by running the package's tests against it through `go test -overlay`.
# GOFLAGS=-count=1 keeps a warm test cache from shrinking gremlins' timeout baseline (which turns
# mutants into false TIMED OUT), and RAPID_SEED pins any rapid test so that a verdict cannot flip
# between runs.
#
# durable's tests run with -short (GOFLAGS, which gremlins' go test and the gate's overlay runs
# both read): it skips the crash property, which kills child processes for about 5 s per run,
# so that each mutant costs its fast tests only. durablepgx/postgres.go is left out: it is wiring
# (River's pgx driver and the advisory-locked migration) that only the Postgres tests reach,
# and those run only when PIXRETRY_POSTGRES_URL is set. Its group.go is left to the extended
# pass (make mutation-extended): a mutant of the group commit that loses a write's turn or loops
# on an empty queue can only hang the payer, and gremlins runs the whole package and reports a
# hang as TIMED OUT, which the gate cannot tell from a slow live mutant. The extended pass runs
# only the tests that cover a mutant, with a timeout of ten times their measured time, so such
# a mutant is killed by that timeout. `make mutation-durable` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# gremlins copies the module into a folder of TMPDIR for each run, and a run it stops may leave
# it there: TMPDIR is a folder of this run's, removed at its end.
TMPDIR="$(mktemp -d)"
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

export GOFLAGS=-count=1
export RAPID_SEED="${RAPID_SEED:-1}"
export RAPID_NOFAILFILE=1 # a killed mutant must leave no fail file for the next one to replay

# goflags prints the GOFLAGS of a package's test runs.
goflags() {
  if [ "$1" = durable ]; then echo "-count=1 -short"; else echo "-count=1"; fi
}

# excluded prints gremlins' options that leave files out of a package: wiring, what the extended
# pass proves instead, and retry/retrytest, the oracles that the tests of retry, pix and the
# property suite share: its own test grades them, and the extended pass mutates them.
excluded() {
  if [ "$1" = durable ]; then echo "--exclude-files=(postgres|group)\.go$"; fi
  if [ "$1" = retry ]; then echo "--exclude-files=retrytest/"; fi
}

gremlins="$(go -C tools tool -n gremlins)"
gate="$(go -C tools tool -n mutationgate)"

if [ "$#" -eq 0 ]; then set -- retry psp pix durable; fi
mkdir -p .mutation
for pkg in "$@"; do
  rm -f ".mutation/$pkg.json"
  echo "== gremlins: ./$pkg"
  # shellcheck disable=SC2046 # excluded prints one word or none
  GOFLAGS="$(goflags "$pkg")" "$gremlins" unleash --config .gremlins.yaml $(excluded "$pkg") \
    -o ".mutation/$pkg.json" "./$pkg"
done
echo "== gate"
failed=0
for pkg in "$@"; do
  GOFLAGS="$(goflags "$pkg")" "$gate" "./$pkg=.mutation/$pkg.json" || failed=1
done
exit "$failed"
