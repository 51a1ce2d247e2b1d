module pixretry/cmd/demo

go 1.26.0

replace (
	pixretry => ../..
	pixretry/internal/openapitest => ../../internal/openapitest
	pixretry/pix/openfinance => ../../pix/openfinance
	pixretry/pix/pixotel => ../../pix/pixotel
	pixretry/psp/control => ../../psp/control
	pixretry/psp/openfinance => ../../psp/openfinance
	pixretry/psp/scenarios => ../../psp/scenarios
)

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/google/go-cmp v0.7.0
	go.opentelemetry.io/otel v1.47.0
	go.opentelemetry.io/otel/metric v1.47.0
	go.opentelemetry.io/otel/sdk/metric v1.47.0
	go.uber.org/goleak v1.3.0
	pixretry v0.0.0-00010101000000-000000000000
	pixretry/pix/openfinance v0.0.0-00010101000000-000000000000
	pixretry/pix/pixotel v0.0.0-00010101000000-000000000000
	pixretry/psp/control v0.0.0-00010101000000-000000000000
	pixretry/psp/openfinance v0.0.0-00010101000000-000000000000
	pixretry/psp/scenarios v0.0.0-00010101000000-000000000000
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/sdk v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
