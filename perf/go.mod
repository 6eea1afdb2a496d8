// The yardsticks of make bench: the bench shop written without the
// library, measured against it. A module of its own, so that the library's
// users never download what the yardsticks use.
module github.com/affordances/affordances-go/perf

go 1.26.0

require (
	github.com/affordances/affordances-go v0.0.0
	github.com/danielgtaylor/huma/v2 v2.37.2
	golang.org/x/time v0.16.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/affordances/affordances-go => ../
