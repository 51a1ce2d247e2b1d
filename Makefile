# The verbs of this project. `make demo` runs the main job, `make test` passes the tests.
.PHONY: test lint openapi-lint quickstart modules test-tools demo mutation mutation-retry mutation-extended mutation-properties planted properties bench bench-psp fuzz herd

# make test runs the tests alone, within 3 minutes from empty caches on 2 cores:
# - go vet is a static check, and make lint runs it. Under go test, vet's checks of every
#   dependency (SQLite's included) cost about 15 s.
# - checkptr, which -race turns on everywhere, is off in modernc.org's packages: it checked the
#   unsafe pointers of SQLite transpiled from C, which we do not own, and took half of durable's
#   CPU. The race detector still instruments them, and checkptr still checks our code.
# - A race-built program sleeps a second at exit by default (GORACE atexit_sleep_ms), for each
#   test binary and each child process: goleak already waits for every goroutine to end.
# - The same run saves which answers of the double's OpenAPI document the tests of psp,
#   psp/control and cmd/psp checked (internal/openapitest, OPENAPITEST_COUNTS); then
#   TestEveryDocumentedAnswerIsSeen fails for a documented answer that no test produces. It runs
#   from the race build already made; `go test ./...` alone skips it.
# make lint builds with the same flags, so that it reuses make test's build.
race := -race -gcflags=modernc.org/...=-d=checkptr=0
# The product is one module per weight (README.md's layout), tied by go.work: "./..." stops at a
# nested module's go.mod, so the verbs name every module's tree. tools/ is in the workspace for
# its programs, and make test-tools tests it.
pkgs = $(shell go list -m -f '{{.Dir}}/...' | grep -v '/tools/\.\.\.$$' | sed 's|^$(CURDIR)|.|')
seen := ^TestEveryDocumentedAnswerIsSeen$$
test:
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	@counts="$$(mktemp -d)"; trap 'rm -rf "$$counts"' EXIT; set -x; \
	GORACE="atexit_sleep_ms=0 $$GORACE" OPENAPITEST_COUNTS="$$counts" go test $(race) -vet=off -count=1 -skip '$(seen)' $(pkgs) && \
	OPENAPITEST_COUNTS="$$counts" go test $(race) -vet=off -count=1 -run '$(seen)' ./internal/openapitest

# The programs of tools/, a module of its own, are tools of tools/go.mod, staticcheck and gremlins
# too: `go -C tools tool -n NAME` builds one (cached) and prints its path, and it runs here, on
# the product module.
#
# lint: go vet, staticcheck and globals (no package-level variable assigned outside its
# declaration, tests included: tools/globals) on the product modules, staticcheck on tools/. CI
# runs it after make test, whose race build both reuse; from empty caches, building staticcheck
# alone takes about a minute on 2 cores.
lint:
	go vet $(race) $(pkgs)
	"$$(go -C tools tool -n globals)" $(pkgs)
	GOFLAGS="$(race) $$GOFLAGS" "$$(go -C tools tool -n staticcheck)" $(pkgs)
	cd tools && "$$(go tool -n staticcheck)" ./...

# Redocly's linter on the double's OpenAPI document, psp/control/openapi.json: its recommended
# rules, less what tools/openapi-lint/redocly.yaml and .redocly.lint-ignore.yaml excuse, each
# with why. package-lock.json pins the linter, and npm ci installs it in tools/openapi-lint/
# (node_modules/, which git ignores) before each run: from an empty npm cache the verb takes
# about 1 s. The linter needs Node.js 20.19 or later.
openapi-lint:
	cd tools/openapi-lint && npm ci --no-audit --no-fund --loglevel=error && node_modules/.bin/redocly lint ../../psp/control/openapi.json

# The README's shell quickstart, run as a newcomer would, against the commands built afresh: each
# command's output must match the lines the README shows under it (internal/readme). It needs
# curl and a free loopback port, so make test skips it.
quickstart:
	PIXRETRY_QUICKSTART=1 go test -count=1 -run TestQuickstartPrintsWhatTheREADMEShows ./internal/readme

# Each module's go.mod and go.sum as `go mod tidy` makes them outside the workspace, and the weight
# of the core: a module that imports only pixretry/pix builds none of the heavy dependencies.
modules:
	bash scripts/modules.sh

# The tests of tools/ (the mutation programs, the planted bugs, the herd report), which `make test`
# does not reach.
test-tools:
	cd tools && go vet ./... && go test -count=1 ./...

demo:
	go run ./cmd/demo

# Every mutation verb and `make planted` run in scripts/throwaway.sh: a build cache and TMPDIR of
# their own, removed at their end, so that their mutants never fill the shared cache.

# gremlins (pinned in tools/go.mod) over retry, psp, pix and durable, and its gate, for anyone
# who wants the tool's own verdict: about 50 minutes, so CI runs it on retry alone (make
# mutation-retry), as the card asks, and gremlins' mutants of every package on the schemata
# engine (make mutation-extended).
mutation:
	bash scripts/throwaway.sh bash scripts/mutation.sh

mutation-retry:
	bash scripts/throwaway.sh bash scripts/mutation.sh retry

# durable's mutants alone, on its fast tests (-short), then the gate; `make mutation` runs them
# too. docs/durable.md says which file is left out and why.
mutation-durable:
	bash scripts/throwaway.sh bash scripts/mutation.sh durable

# The schemata pass (docs/mutation.md): both families of mutants, gremlins' eleven token
# operators and the statement, condition, body and literal operators gremlins lacks, of every
# package but commands and those tools/accepted.txt skips, on their -short tests. One test binary
# per package holds every mutant behind a switch; CI runs it. Four mutants run at once: durable's
# tests mostly wait for River, so two would leave the cores idle.
mutation-extended:
	bash scripts/throwaway.sh "$$(go -C tools tool -n mutationextended)" -short -workers 4 ./...

# How much of retry, pix and psp the property suite guards on its own: the same mutants, each run
# against the property tests that cover it alone (the trace suite in properties/, but its planted
# violations, which test the invariants, and the packages' property_*_test.go files), judged
# against tools/accepted.txt's "properties" entries.
# Like make mutation-extended, it runs the tests with -short, where rapid makes 20 checks of each
# property rather than 100: both passes see the properties at one strength, and at 100 checks
# this pass alone takes about 15 minutes.
mutation-properties:
	bash scripts/throwaway.sh "$$(go -C tools tool -n mutationextended)" -short -workers 4 -properties properties retry pix psp

# Realistic bugs planted one at a time (tools/planted/bugs.go); the tests named for each must fail.
planted:
	bash scripts/throwaway.sh "$$(go -C tools tool -n planted)"

# Every property at 10,000 checks: the trace suite, and the models of retry.Do, the quota, the
# PSP and its Efí and Open Finance front ends beside the code they prove.
properties:
	RAPID_CHECKS=10000 go test -count=1 -timeout 60m ./properties/
	RAPID_CHECKS=10000 go test -count=1 -timeout 60m -run '^(TestDoFollowsItsModel|TestQuotaKeepsItsBound)$$' ./retry/
	RAPID_CHECKS=10000 go test -count=1 -timeout 60m -run '^(TestPSPMatchesModel|TestPSPIsLinearizable)$$' ./psp/
	RAPID_CHECKS=10000 go test -count=1 -timeout 60m -run '^TestEfiMatchesModel$$' ./psp/efi/
	RAPID_CHECKS=10000 go test -count=1 -timeout 60m -run '^TestOpenFinanceMatchesModel$$' ./psp/openfinance/
	RAPID_CHECKS=10000 go test -count=1 -timeout 60m -run '^(TestClientConfigurationIsChecked|TestErrorSaysWhatThePSPAnswered)$$' ./pix/

bench:
	go test -run '^$$' -bench . -benchmem $(pkgs)

# cmd/psp beside a bare net/http handler, over loopback, at 1, 16 and 64 clients: x-bare is psp's
# throughput over the bare handler's, measured in the same run. BenchmarkThroughput, in
# cmd/psp/throughput_test.go, says what each column means.
bench-psp:
	go test -run '^$$' -bench '^BenchmarkThroughput$$' -benchmem -count 5 ./cmd/psp/

# 30 s of fuzzing. The first run first builds the standard library and the package with fuzzing
# instrumentation, about 2 minutes on 2 cores; the build cache keeps it for the next runs.
fuzz:
	go test -run '^$$' -fuzz '^FuzzDecodePayment$$' -fuzztime 30s ./psp/

# The herds wait in virtual time (testing/synctest), which only a test can give them: the report
# is a test that writes docs/herd/ when given -herd.out. Run from tools/internal/herd/ (local
# directory mode), go test streams the table to stdout.
herd:
	mkdir -p docs/herd
	cd tools/internal/herd && go test -run '^TestHerdReport$$' -timeout 10m -args -herd.out=$(CURDIR)/docs/herd

.PHONY: crash test-postgres bench-durable mutation-durable

# The crash demonstration: cmd/psp, then pixpay killed with SIGKILL after the PSP settled a
# payment and before pixpay recorded it, then pixpay again. It checks that the PSP's ledger
# holds exactly one settlement per settled intent.
crash:
	bash scripts/crash-demo.sh

# The Postgres tests (durable, cmd/pixpay) on a throwaway cluster on a free loopback port,
# stopped at the end. It installs Debian's postgresql first if pg_ctl is missing.
test-postgres:
	bash scripts/postgres.sh

# Durable payments drained per second beside River's do-nothing worker (x-river is the ratio)
# and plain Send, at 10 and 100 workers, on SQLite with synchronous FULL and OFF and, when
# PIXRETRY_POSTGRES_URL is set, Postgres with fsync on and off (bash scripts/postgres.sh make
# bench-durable); commits per payment; backlogs of 1,000 and 100,000 intents; restart to first
# attempt. BenchmarkDrain, in durable/bench_test.go, says what each column means.
bench-durable:
	go test -run '^$$' -bench '^BenchmarkDrain$$' -benchtime 2000x -benchmem -timeout 60m ./durable/
	go test -run '^$$' -bench '^BenchmarkBacklog$$' -benchtime 1x -benchmem -timeout 60m ./durable/
	go test -run '^$$' -bench '^BenchmarkRestart$$' -benchmem ./durable/
