#!/usr/bin/env bash
# Which answers of the OpenAPI document (psp/control/openapi.json) the tests of psp,
# psp/control and cmd/psp produce, checked: their counts per operation and status, as a
# Markdown table on stdout. It fails for a documented answer that no test produces and
# internal/openapitest/testdata/unseen.txt does not explain.
set -euo pipefail
cd "$(dirname "$0")/.."
counts=$(mktemp -d)
trap 'rm -rf "$counts"' EXIT
OPENAPITEST_COUNTS=$counts go test -race -count=1 ./psp ./psp/control ./cmd/psp
OPENAPITEST_COUNTS=$counts go test -count=1 -run '^TestEveryDocumentedAnswerIsSeen$' -v ./internal/openapitest |
  grep -v -e '^=== RUN' -e '^--- PASS' -e '^PASS$' -e '^ok '
