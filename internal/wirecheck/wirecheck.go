// Package wirecheck validates Affordances documents against the schemas of
// package schemas, for the test helpers, the CLI and the conformance suite.
package wirecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/jsonptr"
	"github.com/affordances/affordances-go/internal/schema"
	"github.com/affordances/affordances-go/schemas"
)

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
	fmt.Fprintf(&b, "not a valid %s:", e.Schema)
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
func Validate(name string, body []byte) (err error) {
	// The validator panics on some numbers beyond a float64 (santhosh
	// jsonschema v6.0.3 with minimum or maximum): a document from the
	// network must not crash the caller.
	defer func() {
		if v := recover(); v != nil {
			err = &ValidationError{Schema: name, Problems: []Problem{{Message: fmt.Sprintf("the document could not be validated: %v", v)}}}
		}
	}()
	compiled, err := compile()
	if err != nil {
		return err
	}
	s := compiled[name]
	if s == nil {
		return fmt.Errorf("no schema named %q; want one of %q", name, schemas.Names())
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
			return nil, fmt.Errorf("compiling %s: %w", name, err)
		}
		compiled[name] = s
	}
	return compiled, nil
})

// scalarAt returns the value at ptr in doc as short JSON when it is a
// string, number, boolean or null, and "" otherwise.
func scalarAt(doc any, ptr string) string {
	v, ok := jsonptr.Get(doc, ptr)
	if !ok {
		return "" // absent: a missing property
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

// ExcerptMax is how much of a body [Excerpt] shows.
const ExcerptMax = 1024

// Excerpt returns body for a failure message: compacted when it is JSON,
// cut at ExcerptMax bytes.
func Excerpt(body []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, body); err != nil {
		return truncate(string(body), ExcerptMax)
	}
	return truncate(b.String(), ExcerptMax)
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

// ApprovalPage reports whether path is a path the approval of a
// human-verified call may have (docs/protocol.md decision 10): ApprovalsPath and an
// id of 1 to 128 of a URL's unreserved characters (RFC 3986: letters,
// digits, "-._~"; not starting with a dot), as any site may make them
// (store.NewApprovalID makes 26 of lowercase base32), after the path
// prefix of a site under one (docs/protocol.md decision 13), and nothing after. The
// prefix is segments of a URL path's own characters (RFC 3986), with no
// dot segment and no /.well-known: a client's credentials follow the path
// only to a page of the site's own, and a client can show it as one word.
func ApprovalPage(path string) bool {
	m := approvalPage.FindStringSubmatch(path)
	if m == nil {
		return false
	}
	for seg := range strings.SplitSeq(m[1], "/") {
		if seg == "." || seg == ".." || seg == ".well-known" {
			return false
		}
	}
	return true
}

// approvalPage is the shape [ApprovalPage] accepts; its group is the
// site's prefix.
var approvalPage = regexp.MustCompile(`^((?:/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})+)*)` +
	regexp.QuoteMeta(affordances.ApprovalsPath) + `[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,127}$`)
