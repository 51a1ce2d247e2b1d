# The verbs of this project. `make demo` runs the main job, `make test` passes the tests.
.PHONY: test demo mutation properties bench fuzz

test:
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go tool staticcheck ./...
	go test -race -count=1 ./...

demo:
	go run ./cmd/demo

mutation:
	bash scripts/mutation.sh

properties:
	RAPID_CHECKS=10000 go test -count=1 -timeout 60m ./properties/

bench:
	go test -run '^$$' -bench . -benchmem ./...

fuzz:
	go test -run '^$$' -fuzz '^FuzzDecodePayment$$' -fuzztime 30s ./psp/
