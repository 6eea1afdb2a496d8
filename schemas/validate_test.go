package schemas_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/jsonptr"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/affordances/affordances-go/schemas"
)

// Documents from the protocol's own examples, as servers send them.
const (
	exampleGraph = `{
  "v": "0",
  "page": "/products/canvas-tote",
  "route": "/products/[slug]",
  "entities": {
    "product": { "slug": "canvas-tote", "name": "Canvas Tote", "price": 1800, "stock": 4 },
    "cart": { "count": 0, "items": [], "total": 0 }
  },
  "actions": [
    {
      "name": "addToCart",
      "description": "Add this product to the cart",
      "input": {
        "type": "object",
        "properties": {
          "slug": { "type": "string", "minLength": 1 },
          "quantity": { "type": "integer", "minimum": 1, "maximum": 99 }
        },
        "required": ["slug"],
        "additionalProperties": false
      },
      "expose": "session",
      "available": true,
      "effects": ["cart"]
    }
  ],
  "nav": [
    { "to": "/", "label": "Catalog" },
    { "to": "/cart", "label": "Cart" },
    { "to": "/checkout", "label": "Checkout", "when": "the cart is not empty" }
  ]
}`
	exampleCall  = `{ "action": "addToCart", "input": { "slug": "canvas-tote", "quantity": 2 } }`
	exampleDelta = `{
  "ok": true,
  "changed": { "cart": { "count": 2, "items": [{ "slug": "canvas-tote", "name": "Canvas Tote", "quantity": 2, "price": 1800 }], "total": 3600 } },
  "message": "Added 2 Canvas Tote to your cart."
}`
	exampleConfirmRequired = `{ "ok": false, "error": { "code": "confirm_required", "message": "Place an order for 2 items, total $36.00, card ending 4242." } }`
	exampleForbidden       = `{ "ok": false, "error": { "code": "unauthorized", "message": "A cookie call needs this site's Origin." } }`
	exampleInvalidInput    = `{ "ok": false, "error": { "code": "invalid_input", "message": "The input does not match the schema.",
  "issues": [{ "path": "/q", "message": "must be at least 1 character" }] } }`
	// The site index of docs/protocol.md decision 6, for the shop of EXAMPLES.md.
	exampleIndex = `{
  "v": "0",
  "name": "Demo Shop",
  "routes": [
    { "route": "/", "description": "The catalog", "actions": [
      { "name": "search", "description": "Search the catalog", "input": { "type": "object", "properties": { "q": { "type": "string", "minLength": 1 } } }, "expose": "public", "readOnly": true }
    ] },
    { "route": "/products/[slug]", "description": "One product: variants, price, stock", "actions": [
      { "name": "addToCart", "description": "Add this product to the cart", "input": { "type": "object" }, "expose": "session", "effects": ["cart"] }
    ] },
    { "route": "/checkout", "actions": [
      { "name": "placeOrder", "description": "Place the order", "input": true, "output": { "type": "object" }, "expose": "confirm", "guard": "the cart is not empty" }
    ] }
  ],
  "auth": ["cookie", "bearer"],
  "mcp": "/mcp"
}`
)

// compileAll loads every schema as a resource under its $id, as a validator
// other than ours would, and compiles each.
func compileAll(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	for id, doc := range schemas.All() {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			t.Fatalf("%s: not JSON: %v", id, err)
		}
		if err := c.AddResource(id, v); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	compiled := map[string]*jsonschema.Schema{}
	for _, name := range schemas.Names() {
		s, err := c.Compile(schemas.ID(name))
		if err != nil {
			t.Fatalf("compiling %s: %v", name, err)
		}
		compiled[name] = s
	}
	return compiled
}

func TestDocuments(t *testing.T) {
	compiled := compileAll(t)
	tests := []struct {
		name   string
		schema string
		doc    string
		valid  bool
		at     string // for an invalid document, where (a JSON Pointer) it fails
	}{
		// Valid documents.
		{"EXAMPLES page graph (docs/protocol.md §7 (Graph))", schemas.Graph, exampleGraph, true, ""},
		{"graph with an unknown field (docs/protocol.md §27 (Versioning): clients ignore it)", schemas.Graph, with(exampleGraph, "/later", "added in 0.x"), true, ""},
		{"graph with an unknown descriptor field (docs/protocol.md §27 (Versioning))", schemas.Graph, with(exampleGraph, "/actions/0/later", 1), true, ""},
		{"graph with a boolean input schema (docs/protocol.md §24 (Site index): input is JSON Schema 2020-12)", schemas.Graph, with(exampleGraph, "/actions/0/input", true), true, ""},
		{"graph with no actions and no nav (docs/protocol.md §7 (Graph): nav is optional)", schemas.Graph, with(without(exampleGraph, "/nav"), "/actions", []any{}), true, ""},
		{"graph with an unavailable action and its reason (docs/protocol.md §7 (Graph))", schemas.Graph, with(with(exampleGraph, "/actions/0/available", false), "/actions/0/reason", "Sign in to add items to your cart"), true, ""},
		{"EXAMPLES descriptor (docs/protocol.md §13 (Action descriptor))", schemas.ActionDescriptor, at(exampleGraph, "/actions/0"), true, ""},
		{"descriptor without available is a summary (docs/protocol.md §24 (Site index): ActionSummary)", schemas.ActionSummary, without(at(exampleGraph, "/actions/0"), "/available"), true, ""},
		{"EXAMPLES call (docs/protocol.md §18 (Call))", schemas.Call, exampleCall, true, ""},
		{"call without input (docs/protocol.md decision 5: validated as {})", schemas.Call, `{"action": "search"}`, true, ""},
		{"call with a number input (docs/protocol.md §18 (Call): input is unknown)", schemas.Call, `{"action": "removeFromCart", "input": 42}`, true, ""},
		{"call with confirm and an unknown field (docs/protocol.md decision 5: ignored)", schemas.Call, `{"action": "placeOrder", "confirm": true, "idempotency": "x"}`, true, ""},
		{"EXAMPLES delta (docs/protocol.md §22 (Delta))", schemas.Delta, exampleDelta, true, ""},
		{"delta with a gone entity as null (docs/protocol.md decision 5)", schemas.Delta, with(exampleDelta, "/changed/cart", nil), true, ""},
		{"delta with output, actionsAdded, actionsRemoved and redirect (docs/protocol.md §22 (Delta))", schemas.Delta, with(with(with(with(exampleDelta, "/output", nil), "/actionsAdded", []any{decode(at(exampleGraph, "/actions/0"))}), "/actionsRemoved", []any{"signIn"}), "/redirect", "/cart"), true, ""},
		{"EXAMPLES confirm_required refusal (docs/protocol.md decision 2)", schemas.Delta, exampleConfirmRequired, true, ""},
		{"EXAMPLES 403 unauthorized refusal (docs/protocol.md decisions 2 and 4)", schemas.Delta, exampleForbidden, true, ""},
		{"EXAMPLES invalid_input refusal with issues (docs/protocol.md decision 2)", schemas.Delta, exampleInvalidInput, true, ""},
		{"EXAMPLES error object (docs/protocol.md decision 2)", schemas.Error, at(exampleInvalidInput, "/error"), true, ""},
		{"site index (docs/protocol.md §24 (Site index); docs/protocol.md decision 6)", schemas.SiteIndex, exampleIndex, true, ""},
		{"site index with no routes and no auth (docs/protocol.md decision 6)", schemas.SiteIndex, `{"v": "0", "routes": [], "auth": []}`, true, ""},

		// Broken documents.
		{"graph of another major version (docs/protocol.md §27 (Versioning): v is the major)", schemas.Graph, with(exampleGraph, "/v", "1"), false, "/v"},
		{"graph with v as a number (docs/protocol.md §7 (Graph): v is '0')", schemas.Graph, with(exampleGraph, "/v", 0), false, "/v"},
		{"graph without actions (docs/protocol.md §7 (Graph))", schemas.Graph, without(exampleGraph, "/actions"), false, ""},
		{"graph with actions null (docs/protocol.md §7 (Graph))", schemas.Graph, with(exampleGraph, "/actions", nil), false, "/actions"},
		{"graph without entities (docs/protocol.md §7 (Graph))", schemas.Graph, without(exampleGraph, "/entities"), false, ""},
		{"graph with entities as an array (docs/protocol.md §7 (Graph): Record<string, unknown>)", schemas.Graph, with(exampleGraph, "/entities", []any{}), false, "/entities"},
		{"graph with a relative page (docs/protocol.md §7 (Graph): page is a concrete path)", schemas.Graph, with(exampleGraph, "/page", "products/canvas-tote"), false, "/page"},
		{"graph without route (docs/protocol.md §7 (Graph))", schemas.Graph, without(exampleGraph, "/route"), false, ""},
		{"descriptor with an unknown expose (docs/protocol.md §13 (Action descriptor); docs/protocol.md decision 1)", schemas.Graph, with(exampleGraph, "/actions/0/expose", "admin"), false, "/actions/0/expose"},
		{"descriptor without expose (docs/protocol.md §26 (Security): default deny)", schemas.Graph, without(exampleGraph, "/actions/0/expose"), false, "/actions/0"},
		{"descriptor without available (docs/protocol.md §13 (Action descriptor))", schemas.ActionDescriptor, without(at(exampleGraph, "/actions/0"), "/available"), false, ""},
		{"descriptor without input (docs/protocol.md §13 (Action descriptor))", schemas.ActionDescriptor, without(at(exampleGraph, "/actions/0"), "/input"), false, ""},
		{"descriptor with a string for input (docs/protocol.md §13 (Action descriptor): input is JSON Schema)", schemas.ActionDescriptor, with(at(exampleGraph, "/actions/0"), "/input", "object"), false, "/input"},
		{"descriptor with effects as a string (docs/protocol.md §13 (Action descriptor): string[])", schemas.ActionDescriptor, with(at(exampleGraph, "/actions/0"), "/effects", "cart"), false, "/effects"},
		{"nav link without to (docs/protocol.md §7 (Graph))", schemas.Graph, without(exampleGraph, "/nav/0/to"), false, "/nav/0"},
		{"nav link to an absolute URL (docs/protocol.md §7 (Graph): to is a path)", schemas.Graph, with(exampleGraph, "/nav/1/to", "https://evil.example/cart"), false, "/nav/1/to"},
		{"call without action (docs/protocol.md §18 (Call))", schemas.Call, `{"input": {}}`, false, ""},
		{"call with an empty action (docs/protocol.md §18 (Call); docs/protocol.md decision 2)", schemas.Call, `{"action": ""}`, false, "/action"},
		{"call with confirm as a string (docs/protocol.md §18 (Call): boolean)", schemas.Call, `{"action": "placeOrder", "confirm": "yes"}`, false, "/confirm"},
		{"call that is not an object (docs/protocol.md decision 2: not a Call object)", schemas.Call, `["addToCart"]`, false, ""},
		{"delta without ok (docs/protocol.md §22 (Delta))", schemas.Delta, without(exampleDelta, "/ok"), false, ""},
		{"delta with an unknown code (docs/protocol.md §23 (Error codes); docs/protocol.md decision 2)", schemas.Delta, with(exampleForbidden, "/error/code", "forbidden"), false, "/error/code"},
		{"delta error without message (docs/protocol.md §22 (Delta))", schemas.Delta, without(exampleConfirmRequired, "/error/message"), false, "/error"},
		{"delta with changed as an array (docs/protocol.md §22 (Delta): Record<string, unknown>)", schemas.Delta, with(exampleDelta, "/changed", []any{}), false, "/changed"},
		{"issue without path (docs/protocol.md decision 2: path is a JSON Pointer)", schemas.Delta, without(exampleInvalidInput, "/error/issues/0/path"), false, "/error/issues/0"},
		{"error without code (docs/protocol.md decision 2)", schemas.Error, without(at(exampleInvalidInput, "/error"), "/code"), false, ""},
		{"site index without v (docs/protocol.md §24 (Site index))", schemas.SiteIndex, without(exampleIndex, "/v"), false, ""},
		{"site index with an unknown auth mode (docs/protocol.md §24 (Site index): cookie | bearer)", schemas.SiteIndex, with(exampleIndex, "/auth/1", "basic"), false, "/auth/1"},
		{"site index without auth (docs/protocol.md §24 (Site index))", schemas.SiteIndex, without(exampleIndex, "/auth"), false, ""},
		{"index route without actions (docs/protocol.md §24 (Site index))", schemas.SiteIndex, without(exampleIndex, "/routes/0/actions"), false, "/routes/0"},
		{"index action without expose (docs/protocol.md §24 (Site index): ActionSummary)", schemas.SiteIndex, without(exampleIndex, "/routes/1/actions/0/expose"), false, "/routes/1/actions/0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.doc))
			if err != nil {
				t.Fatalf("test document is not JSON: %v", err)
			}
			err = compiled[tt.schema].Validate(v)
			if got := err == nil; got != tt.valid {
				t.Fatalf("%s valid = %t, want %t; validator said: %v\n%s", tt.schema, got, tt.valid, err, tt.doc)
			}
			if err != nil {
				if got := locations(err); !slices.Contains(got, tt.at) {
					t.Errorf("fails at %q, want at %q; validator said: %v", got, tt.at, err)
				}
			}
		})
	}
}

// locations returns the JSON Pointers of every leaf problem in err.
func locations(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, jsonptr.Format(e.InstanceLocation))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// with returns doc with the value at the JSON Pointer ptr set to v; the
// parent must exist.
func with(doc, ptr string, v any) string { return patch(doc, ptr, v, false) }

// without returns doc with the member at ptr removed.
func without(doc, ptr string) string { return patch(doc, ptr, nil, true) }

// at returns the value at ptr in doc, as JSON.
func at(doc, ptr string) string {
	v, ok := jsonptr.Get(decode(doc), ptr)
	if !ok {
		panic("at: nothing at " + ptr)
	}
	return encode(v)
}

func patch(doc, ptr string, v any, remove bool) string {
	root := decode(doc)
	toks := tokens(ptr)
	parent := root
	for _, tok := range toks[:len(toks)-1] {
		switch x := parent.(type) {
		case map[string]any:
			parent = x[tok]
		case []any:
			parent = x[index(tok)]
		}
	}
	last := toks[len(toks)-1]
	switch x := parent.(type) {
	case map[string]any:
		if remove {
			delete(x, last)
		} else {
			x[last] = v
		}
	case []any:
		if remove {
			panic("without: removing from an array is not supported")
		}
		x[index(last)] = v
	}
	return encode(root)
}

func tokens(ptr string) []string {
	toks, err := jsonptr.Split(ptr)
	if err != nil {
		panic(err)
	}
	return toks
}

func index(tok string) int {
	i, err := strconv.Atoi(tok)
	if err != nil {
		panic(err)
	}
	return i
}

func decode(doc string) any {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		panic(err)
	}
	return v
}

func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
