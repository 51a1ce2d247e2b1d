module pixretry

go 1.26.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/go-json-experiment/json v1.27.2
	github.com/google/go-cmp v0.7.0
	github.com/google/uuid v1.6.0
	github.com/sony/gobreaker/v2 v2.4.0
	go.uber.org/goleak v1.3.0
	pgregory.net/rapid v1.3.0
)
