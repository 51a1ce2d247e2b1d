#!/usr/bin/env bash
# Runs a command with a build cache and a TMPDIR of its own, removed when it ends:
#
#   bash scripts/throwaway.sh COMMAND [ARG...]
#
# The mutation passes and the planted bugs build thousands of mutated packages and test binaries.
# In the shared build cache each stays until the go command trims it, five days after its last
# use, so a day of runs fills a disk (78 GB once: CI failed on "no space left on device"). The
# cache given to the command is a copy of the shared one made of hard links, so that it starts
# warm at no cost in disk, and is removed with all it gained. A test killed by its timeout cannot
# remove its t.TempDir; TMPDIR keeps those in the folder removed too.
#
# The copy is a folder of the shared cache's own, so that it is on the same file system even
# when the cache is a mount point, named for this script's process; the go command reads and
# trims only the cache's folders 00 to ff. A copy whose process is gone (one killed with
# SIGKILL) is removed on the next run.
set -euo pipefail

shared="$(go env GOCACHE)"
mkdir -p "$shared"
for stale in "$shared"/throwaway-*; do
  [ -d "$stale" ] || continue
  if ! kill -0 "${stale##*-}" 2>/dev/null; then rm -rf "$stale"; fi
done

copy="$shared/throwaway-$$"
TMPDIR="$(mktemp -d)"
trap 'rm -rf "$copy" "$TMPDIR"' EXIT
mkdir "$copy"
# The go command keeps its entries in 256 folders named 00 to ff; a cache never used has none.
entries=("$shared"/[0-9a-f][0-9a-f])
if [ -d "${entries[0]}" ]; then
  cp -al "${entries[@]}" "$copy/" || {
    echo "throwaway.sh: cannot link the entries of $shared into $copy" >&2
    exit 1
  }
fi
export GOCACHE="$copy" TMPDIR
"$@"
