module pixretry/psp/control

go 1.26.0

replace (
	pixretry => ../..
	pixretry/internal/openapitest => ../../internal/openapitest
)

require (
	github.com/go-json-experiment/json v1.27.2
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
	golang.org/x/net v0.63.0
	pixretry v0.0.0-00010101000000-000000000000
	pixretry/internal/openapitest v0.0.0-00010101000000-000000000000
)

require (
	github.com/getkin/kin-openapi v0.153.0 // indirect
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
