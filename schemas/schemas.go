package schemas

import (
	"embed"
	"io/fs"
	"iter"
)

// Base is the URL every schema's $id starts with: a schema's $id is Base
// followed by its file name.
const Base = "https://affordances.dev/schemas/v0/"

// The file names of the schemas, one per wire type.
const (
	Graph            = "graph.json"             // a page's graph
	ActionDescriptor = "action-descriptor.json" // an action as one requester sees it
	ActionSummary    = "action-summary.json"    // an action in the site index
	Call             = "call.json"              // the body of a POST that performs an action
	Delta            = "delta.json"             // the answer to a call, and every error body
	Error            = "error.json"             // the error object of a delta
	SiteIndex        = "site-index.json"        // the site index
)

// FS holds the schema files, at its root. It is read-only and safe for
// concurrent use.
//
//go:embed *.json
var FS embed.FS

// Names returns the file names of every schema, sorted.
func Names() []string {
	names, err := fs.Glob(FS, "*.json")
	if err != nil {
		panic("schemas: " + err.Error()) // the pattern is constant and valid
	}
	return names
}

// File returns a copy of the schema named name (one of [Names]), or nil when
// there is no such schema.
func File(name string) []byte {
	data, err := FS.ReadFile(name)
	if err != nil {
		return nil
	}
	return data
}

// ID returns the $id of the schema named name: [Base] followed by name.
func ID(name string) string { return Base + name }

// All yields the $id and a copy of every schema, in name order: what a
// validator needs to load all of them as resources.
func All() iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		for _, name := range Names() {
			if !yield(ID(name), File(name)) {
				return
			}
		}
	}
}
