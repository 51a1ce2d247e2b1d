module pixretry/psp/scenarios

go 1.26.0

replace (
	pixretry => ../..
	pixretry/internal/openapitest => ../../internal/openapitest
	pixretry/psp/control => ../control
)

require (
	go.uber.org/goleak v1.3.0
	pixretry v0.0.0-00010101000000-000000000000
	pixretry/psp/control v0.0.0-00010101000000-000000000000
)

require github.com/go-json-experiment/json v1.27.2 // indirect
