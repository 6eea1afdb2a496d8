// Package schemagen generates the JSON Schemas of package schemas from the
// wire types of the root package. It has no public promise; the program in
// cmd/schemagen runs it for `go generate ./schemas`, and the schemas tests
// run it to catch checked-in files that drifted from the types.
//
// [Generate] infers each schema with jsonschema-go's ForType and then
// post-processes it, always in this order:
//
//  1. json.RawMessage is anything, and the enumerations are closed by Go type:
//     [affordances.Expose] (public, session, confirm), [affordances.Code]
//     (the seven of docs/protocol.md decision 2) and [affordances.AuthMethod] (cookie,
//     bearer); a test holds each list to the constants the root declares.
//  2. Objects stay open: ForType closes structs with additionalProperties
//     false, which is removed, because clients must ignore fields they do not
//     recognise and additive changes ship within a major (docs/protocol.md
//     §27). Required fields stay required: a field is required
//     unless its json tag says omitempty or omitzero.
//  3. No null where the wire has none: ForType allows null for pointers and
//     slices (a nil Go slice marshals as null); an optional field is omitted
//     instead, and a required array is an array. Values of entities,
//     changed and output are anything, null included.
//  4. Field rules (the rules table): v is the constant "0"; page, route and a
//     nav link's to start with "/"; a call's action is not empty; an action's
//     input and output are JSON Schemas (an object or a boolean); fields
//     without a jsonschema tag get a description here, a tag always wins.
//  5. Every object from a struct gets its type's description when its field
//     has none, and each file gets $schema (2020-12), $id (base + file name),
//     title and description.
//
// Every file is self-contained: nested wire types are inlined, so each one
// can be compiled alone. Output is deterministic: keys sorted, two-space
// indent, no HTML escaping, a trailing newline.
package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/affordances/affordances-go"
	"github.com/google/jsonschema-go/jsonschema"
)

// Base is the URL every $id starts with; package schemas has the same
// constant and its tests check that they agree.
const Base = "https://affordances.dev/schemas/v0/"

// Draft is the dialect of every schema.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// A File is one generated schema: its file name in package schemas and its
// bytes.
type File struct {
	Name string
	Data []byte
}

// files lists what [Generate] writes, one file per wire type, in name order.
var files = []struct {
	name  string
	typ   reflect.Type
	title string
}{
	{"action-descriptor.json", reflect.TypeFor[affordances.ActionDescriptor](), "Affordances action descriptor"},
	{"action-summary.json", reflect.TypeFor[affordances.ActionSummary](), "Affordances action summary"},
	{"call.json", reflect.TypeFor[affordances.Call](), "Affordances call"},
	{"delta.json", reflect.TypeFor[affordances.Delta](), "Affordances delta"},
	{"error.json", reflect.TypeFor[affordances.Error](), "Affordances error"},
	{"graph.json", reflect.TypeFor[affordances.Graph](), "Affordances graph"},
	{"site-index.json", reflect.TypeFor[affordances.SiteIndex](), "Affordances site index"},
}

// typeDocs describes every struct on the wire: the description of a file's
// root and of a nested object whose field has no description of its own.
var typeDocs = map[reflect.Type]string{
	reflect.TypeFor[affordances.Graph]():            "What a page shows an agent: its state (entities), what can be done there (actions) and where to go next (nav). The answer to GET of a page with Accept: application/vnd.affordances+json (docs/protocol.md §7).",
	reflect.TypeFor[affordances.NavLink]():          "A link an agent can follow from the page (docs/protocol.md §7).",
	reflect.TypeFor[affordances.ActionSummary]():    "An action without this request's availability: the form it takes in the site index (docs/protocol.md §24).",
	reflect.TypeFor[affordances.ActionDescriptor](): "An action as one requester sees it in a graph or in a delta's actionsAdded: its summary, and whether that requester can call it right now (docs/protocol.md §13).",
	reflect.TypeFor[affordances.Call]():             "The body of a POST to a page that performs one of its route's actions (docs/protocol.md §18; docs/protocol.md decision 5).",
	reflect.TypeFor[affordances.Delta]():            "The answer to a call: what changed on the page, or why nothing did. Every error body is a delta with ok false and error set (docs/protocol.md §22; docs/protocol.md decision 2).",
	reflect.TypeFor[affordances.Error]():            "The error object of a delta: a code, a message for a person and, for invalid_input, the issues (docs/protocol.md §22; docs/protocol.md decision 2).",
	reflect.TypeFor[affordances.Issue]():            "One way a call's input failed its schema: where, as a JSON Pointer into the input, and what, in a sentence (docs/protocol.md decision 2).",
	reflect.TypeFor[affordances.SiteIndex]():        "A site's routes and their actions, served at /.well-known/affordances.json: enough to plan a task and call an action without opening its page first (docs/protocol.md §24; docs/protocol.md decision 6).",
	reflect.TypeFor[affordances.RouteSummary]():     "One route of the site index: its pattern, what the page is for, and its actions.",
}

// typeSchemas are the schemas of the types that are not inferred (step 1 of
// the package comment). A field's jsonschema tag replaces the description.
func typeSchemas() map[reflect.Type]*jsonschema.Schema {
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
		reflect.TypeFor[affordances.Expose](): {
			Type:        "string",
			Enum:        strings2any(affordances.ExposePublic, affordances.ExposeSession, affordances.ExposeConfirm),
			Description: "who may call the action: public, anyone; session, an authenticated requester; confirm, an authenticated requester in a call with confirm true (docs/protocol.md decision 1)",
		},
		reflect.TypeFor[affordances.Code](): {
			Type: "string",
			Enum: strings2any(affordances.NotFound, affordances.Unauthorized, affordances.RateLimited, affordances.InvalidInput,
				affordances.Unavailable, affordances.ConfirmRequired, affordances.Internal),
			Description: "why the call or page request failed; authoritative over the HTTP status (docs/protocol.md decision 2)",
		},
		reflect.TypeFor[affordances.AuthMethod](): {
			Type:        "string",
			Enum:        strings2any(affordances.AuthCookie, affordances.AuthBearer),
			Description: "a way of authenticating: cookie, a cookie session with the site's Origin; bearer, Authorization: Bearer (docs/protocol.md decision 4)",
		},
	}
}

// A rule is step 4 of the package comment for one Go struct field, wherever
// the struct appears.
type rule struct {
	typ   reflect.Type
	field string // the Go field name
	apply func(*jsonschema.Schema)
}

var rules = []rule{
	{reflect.TypeFor[affordances.Graph](), "V", constant(affordances.Version)},
	{reflect.TypeFor[affordances.SiteIndex](), "V", constant(affordances.Version)},
	{reflect.TypeFor[affordances.Graph](), "Page", absolutePath},
	{reflect.TypeFor[affordances.Graph](), "Route", absolutePath},
	{reflect.TypeFor[affordances.RouteSummary](), "Route", absolutePath},
	{reflect.TypeFor[affordances.NavLink](), "To", absolutePath},
	{reflect.TypeFor[affordances.Call](), "Action", nonEmpty},
	{reflect.TypeFor[affordances.ActionSummary](), "Input", jsonSchema},
	{reflect.TypeFor[affordances.ActionSummary](), "Output", jsonSchema},

	// Descriptions of fields that have no jsonschema tag; a tag wins.
	{reflect.TypeFor[affordances.ActionSummary](), "Description", describe("what the action does, in a sentence for an agent and a person")},
	{reflect.TypeFor[affordances.ActionSummary](), "ReadOnly", describe("true when the action changes nothing")},
	{reflect.TypeFor[affordances.Delta](), "OK", describe("true when the action ran; false with error set when nothing ran")},
	{reflect.TypeFor[affordances.Delta](), "Error", describe("why nothing ran, when ok is false")},
	{reflect.TypeFor[affordances.Error](), "Message", describe("a sentence for a person")},
	{reflect.TypeFor[affordances.Issue](), "Message", describe("what is wrong there, in a sentence")},
	{reflect.TypeFor[affordances.SiteIndex](), "Name", describe("the site's name")},
	{reflect.TypeFor[affordances.SiteIndex](), "Routes", describe("every route pattern that has a graph")},
	{reflect.TypeFor[affordances.RouteSummary](), "Actions", describe("the route's exposed actions")},
}

func constant(v string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		var c any = v
		s.Const = &c
	}
}

func absolutePath(s *jsonschema.Schema) { s.Pattern = "^/" }

func nonEmpty(s *jsonschema.Schema) { s.MinLength = jsonschema.Ptr(1) }

// jsonSchema makes s accept a JSON Schema: an object or a boolean. Input
// schemas may omit $schema and are 2020-12 (docs/protocol.md §24).
func jsonSchema(s *jsonschema.Schema) {
	s.Type, s.Types = "", []string{"object", "boolean"}
}

func describe(d string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		if s.Description == "" {
			s.Description = d
		}
	}
}

// Generate returns every schema file, in name order. It fails when a rule
// names a field the wire types no longer have, or matches nothing.
func Generate() ([]File, error) {
	for _, r := range rules {
		if _, ok := r.typ.FieldByName(r.field); !ok {
			return nil, fmt.Errorf("schemagen: a rule names %s.%s, which does not exist", r.typ, r.field)
		}
	}
	applied := make([]bool, len(rules))
	out := make([]File, 0, len(files))
	for _, f := range files {
		s, err := jsonschema.ForType(f.typ, &jsonschema.ForOptions{TypeSchemas: typeSchemas()})
		if err != nil {
			return nil, fmt.Errorf("schemagen: %s: %w", f.name, err)
		}
		g := &walker{overrides: typeSchemas(), applied: applied}
		g.walk(f.typ, s)
		s.Schema = Draft
		s.ID = Base + f.name
		s.Title = f.title
		data, err := canonical(s)
		if err != nil {
			return nil, fmt.Errorf("schemagen: %s: %w", f.name, err)
		}
		out = append(out, File{Name: f.name, Data: data})
	}
	for i, ok := range applied {
		if !ok {
			return nil, fmt.Errorf("schemagen: the rule for %s.%s matched no property", rules[i].typ, rules[i].field)
		}
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// A walker walks a Go type and its inferred schema together (steps 2 to 5).
type walker struct {
	overrides map[reflect.Type]*jsonschema.Schema
	applied   []bool
}

func (w *walker) walk(t reflect.Type, s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	dropNull(s)
	if w.overrides[t] != nil {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		w.walk(t.Elem(), s.Items)
	case reflect.Map:
		w.walk(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
		s.AdditionalProperties = nil
		if s.Description == "" {
			s.Description = typeDocs[t]
		}
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous || !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			ps := s.Properties[name]
			if ps == nil {
				continue
			}
			owner := t
			if len(f.Index) > 1 {
				owner = t.FieldByIndex(f.Index[:len(f.Index)-1]).Type
			}
			for i, r := range rules {
				if r.typ == owner && r.field == f.Name {
					r.apply(ps)
					w.applied[i] = true
				}
			}
			w.walk(f.Type, ps)
		}
	}
}

// dropNull removes "null" from the types of s (step 3).
func dropNull(s *jsonschema.Schema) {
	if !slices.Contains(s.Types, "null") {
		return
	}
	types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
	s.Types = nil
	switch len(types) {
	case 0:
	case 1:
		s.Type = types[0]
	default:
		s.Types = types
	}
}

// canonical renders s with sorted keys, two-space indent, no HTML escaping
// and a trailing newline.
func canonical(s *jsonschema.Schema) ([]byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func strings2any[S ~string](vs ...S) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
