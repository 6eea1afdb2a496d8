// Package schemas holds the JSON Schemas (draft 2020-12) of the wire types of
// the Affordances protocol v0: one file per document an agent or a server
// reads or writes. They are for anyone who reads or writes the protocol, in
// any language; in Go, package affordancestest checks documents against
// them in tests.
//
//	graph.json              a page's graph (docs/protocol.md §7)
//	action-descriptor.json  an action in a graph or in a delta's actionsAdded
//	action-summary.json     an action in the site index
//	call.json               the body of a POST that performs an action
//	delta.json              the answer to a call, and every error body
//	error.json              the error object of a delta
//	site-index.json         GET /.well-known/affordances.json
//
// The files are generated from the Go types of package affordances by
// `go generate ./schemas` (the generator lives in internal/schemagen and
// documents every step it adds to the inferred schemas), and a test fails when
// the checked-in files drift from the types. Do not edit them by hand.
//
// Each file has $schema, an $id of [Base] followed by its file name, a title
// and a description, and is self-contained: nested types are inlined, so a
// file compiles without its siblings. Objects are open (no
// additionalProperties: false), because clients must ignore fields they do
// not recognise and additive changes ship within a major version
// (docs/protocol.md §27); required fields are required.
//
// The package imports only the standard library. To validate documents in
// Go, use package affordancestest; to load the schemas into another
// validator, range over [All]:
//
//	for id, doc := range schemas.All() {
//		compiler.AddResource(id, decode(doc))
//	}
//
//go:generate go run ../internal/schemagen/cmd/schemagen
package schemas
