module pixretry/properties

go 1.26.0

replace (
	pixretry => ..
	pixretry/pix/openfinance => ../pix/openfinance
	pixretry/psp/openfinance => ../psp/openfinance
)

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/google/go-cmp v0.7.0
	github.com/google/uuid v1.6.0
	github.com/sony/gobreaker/v2 v2.4.0
	go.uber.org/goleak v1.3.0
	pgregory.net/rapid v1.3.0
	pixretry v0.0.0-00010101000000-000000000000
	pixretry/pix/openfinance v0.0.0-00010101000000-000000000000
	pixretry/psp/openfinance v0.0.0-00010101000000-000000000000
)

require github.com/go-json-experiment/json v1.27.2 // indirect
