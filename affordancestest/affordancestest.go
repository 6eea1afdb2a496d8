package affordancestest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/affordances/affordances-go/internal/schema"
	"github.com/affordances/affordances-go/schemas"
)

// CheckGraph fails t, and lets the test go on, unless body is a valid graph
// (seed 000, "Graph"): the answer to GET of a page that asks for
// Affordances.
func CheckGraph(t testing.TB, body []byte) {
	t.Helper()
	Check(t, schemas.Graph, body)
}

// CheckDelta fails t, and lets the test go on, unless body is a valid delta
// (seed 000, "Delta"): the answer to a call, and every error body.
func CheckDelta(t testing.TB, body []byte) {
	t.Helper()
	Check(t, schemas.Delta, body)
}

// CheckIndex fails t, and lets the test go on, unless body is a valid site
// index (seed 000, "Site index"): the answer to GET
// /.well-known/affordances.json.
func CheckIndex(t testing.TB, body []byte) {
	t.Helper()
	Check(t, schemas.SiteIndex, body)
}

// CheckCall fails t, and lets the test go on, unless body is a valid call
// (seed 000, "Call"): the body of a POST that performs an action.
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
		t.Errorf("%v\nbody: %s", err, excerpt(body))
	}
}

// A Problem is one place where a document fails its schema.
type Problem struct {
	Pointer string // a JSON Pointer into the document; "" is the whole document
	Message string // what is wrong, in the validator's words, then the value when it is a scalar: (got "admin")
}

// A ValidationError is a document that failed its schema, with every
// problem.
type ValidationError struct {
	Schema   string    // the schema's file name, one of [schemas.Names]
	Problems []Problem // sorted by pointer, at least one
}

// Error returns the schema's name and one line for each problem, of the form
// `/actions/0/expose: value must be one of …`.
func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "affordancestest: not a valid %s:", e.Schema)
	for _, p := range e.Problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = `""`
		}
		fmt.Fprintf(&b, "\n  %s: %s", ptr, p.Message)
	}
	return b.String()
}

// Validate checks that body is one JSON value that the schema named name
// (one of [schemas.Names], such as [schemas.Graph]) accepts. It returns nil
// when it is, a [*ValidationError] with every problem when it is not (body
// that is not JSON is one problem at ""), and another error when no schema
// has that name. Schemas are compiled once, on first use. Validate is safe
// for concurrent use.
func Validate(name string, body []byte) error {
	compiled, err := compile()
	if err != nil {
		return err
	}
	s := compiled[name]
	if s == nil {
		return fmt.Errorf("affordancestest: no schema named %q; want one of %q", name, schemas.Names())
	}
	doc, err := schema.Decode(body)
	if err != nil {
		return &ValidationError{Schema: name, Problems: []Problem{{Message: "not JSON: " + err.Error()}}}
	}
	issues := s.ValidateValue(doc)
	if len(issues) == 0 {
		return nil
	}
	problems := make([]Problem, 0, len(issues))
	for _, is := range issues {
		msg := is.Message
		if v := scalarAt(doc, is.Path); v != "" {
			msg += " (got " + v + ")"
		}
		problems = append(problems, Problem{Pointer: is.Path, Message: msg})
	}
	slices.SortFunc(problems, func(a, b Problem) int {
		if c := strings.Compare(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return &ValidationError{Schema: name, Problems: slices.Compact(problems)}
}

// compile compiles every schema, once.
var compile = sync.OnceValues(func() (map[string]*schema.Schema, error) {
	compiled := map[string]*schema.Schema{}
	for _, name := range schemas.Names() {
		s, err := schema.Compile(schemas.File(name))
		if err != nil {
			return nil, fmt.Errorf("affordancestest: compiling %s: %w", name, err)
		}
		compiled[name] = s
	}
	return compiled, nil
})

// scalarAt returns the value at ptr in doc as short JSON when it is a
// string, number, boolean or null, and "" otherwise.
func scalarAt(doc any, ptr string) string {
	v := doc
	if ptr != "" {
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
			switch x := v.(type) {
			case map[string]any:
				v = x[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(x) {
					return ""
				}
				v = x[i]
			default:
				return ""
			}
		}
	}
	switch v.(type) {
	case map[string]any, []any:
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return truncate(string(b), 80)
}

// excerptMax is how much of a body a failure shows.
const excerptMax = 1024

// excerpt returns body for a failure message: compacted when it is JSON,
// cut at excerptMax bytes.
func excerpt(body []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, body); err != nil {
		return truncate(string(body), excerptMax)
	}
	return truncate(b.String(), excerptMax)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}
