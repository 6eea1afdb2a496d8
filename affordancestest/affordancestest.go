package affordancestest

import (
	"testing"

	"github.com/affordances/affordances-go/internal/wirecheck"
	"github.com/affordances/affordances-go/schemas"
)

// CheckGraph fails t, and lets the test go on, unless body is a valid graph
// (docs/protocol.md §7): the answer to GET of a page that asks for
// Affordances.
func CheckGraph(t testing.TB, body []byte) {
	t.Helper()
	Check(t, schemas.Graph, body)
}

// CheckDelta fails t, and lets the test go on, unless body is a valid delta
// (docs/protocol.md §22): the answer to a call, and every error body.
func CheckDelta(t testing.TB, body []byte) {
	t.Helper()
	Check(t, schemas.Delta, body)
}

// CheckIndex fails t, and lets the test go on, unless body is a valid site
// index (docs/protocol.md §24): the answer to GET
// /.well-known/affordances.json.
func CheckIndex(t testing.TB, body []byte) {
	t.Helper()
	Check(t, schemas.SiteIndex, body)
}

// CheckCall fails t, and lets the test go on, unless body is a valid call
// (docs/protocol.md §18): the body of a POST that performs an action.
func CheckCall(t testing.TB, body []byte) {
	t.Helper()
	Check(t, schemas.Call, body)
}

// Check fails t, and lets the test go on, unless body is valid against the
// schema named name, one of [schemas.Names]. The failure lists every problem
// of [Validate] and an excerpt of body.
func Check(t testing.TB, name string, body []byte) {
	t.Helper()
	if err := Validate(name, body); err != nil {
		t.Errorf("affordancestest: %v\nbody: %s", err, wirecheck.Excerpt(body))
	}
}

// A Problem is one place where a document fails its schema: a JSON Pointer
// ("" is the whole document) and what is wrong.
type Problem = wirecheck.Problem

// A ValidationError is a document that failed its schema, with every
// problem, sorted by pointer.
type ValidationError = wirecheck.ValidationError

// Validate checks that body is one JSON value that the schema named name
// (one of [schemas.Names], such as [schemas.Graph]) accepts. It returns nil
// when it is, a [*ValidationError] with every problem when it is not (body
// that is not JSON is one problem at ""), and another error when no schema
// has that name. Schemas are compiled once, on first use. Validate is safe
// for concurrent use.
func Validate(name string, body []byte) error { return wirecheck.Validate(name, body) }
