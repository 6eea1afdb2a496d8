package aal_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/affordances/affordances-go/aal"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSchemaCompiles checks that schema/aal-0.1.json is a valid JSON
// Schema 2020-12 (the compiler checks it against the draft's metaschema)
// and that the EXAMPLES fragment and a manifest pass its top-level oneOf.
func TestSchemaCompiles(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(aal.Schema())))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4) // the schema's $schema must win
	if err := c.AddResource(aal.SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(aal.SchemaID)
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	if got := s.DraftVersion; got != 2020 {
		t.Errorf("compiled as draft %d, want 2020", got)
	}
	for name, text := range map[string]string{"EXAMPLES fragment": examplesFragment, "manifest": exampleManifest} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("the %s fails the schema: %v", name, err)
		}
	}
	var top struct {
		Schema string            `json:"$schema"`
		OneOf  []json.RawMessage `json:"oneOf"`
		Defs   map[string]any    `json:"$defs"`
	}
	if err := json.Unmarshal(aal.Schema(), &top); err != nil {
		t.Fatal(err)
	}
	if top.Schema != "https://json-schema.org/draft/2020-12/schema" || len(top.OneOf) != 2 {
		t.Errorf("$schema %q with %d oneOf branches, want 2020-12 with 2", top.Schema, len(top.OneOf))
	}
	for _, def := range []string{"fragment", "manifest", "affordance", "flow", "cost"} {
		if top.Defs[def] == nil {
			t.Errorf("$defs has no %s", def)
		}
	}
}

// TestSchemaPatterns checks that the label and selector patterns of the
// schema refuse exactly docs/protocol.md decision 7's characters, written as literal
// characters in one class that RE2 and ECMA-262 read alike.
func TestSchemaPatterns(t *testing.T) {
	var s struct {
		Defs struct {
			Label      struct{ Pattern string }
			Affordance struct {
				Properties struct{ Selector struct{ Pattern string } }
			}
		} `json:"$defs"`
	}
	if err := json.Unmarshal(aal.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	var class strings.Builder
	class.WriteString("^[^\u0000-\u001f\u007f-\u009f")
	for i := 0; i < len(listedCharacters); i++ {
		// Runs of consecutive characters are written as ranges.
		j := i
		for j+1 < len(listedCharacters) && listedCharacters[j+1] == listedCharacters[j]+1 {
			j++
		}
		if j-i >= 2 {
			fmt.Fprintf(&class, "%c-%c", listedCharacters[i], listedCharacters[j])
			i = j
		} else {
			class.WriteRune(listedCharacters[i])
		}
	}
	class.WriteString("]*$")
	want := class.String()
	for name, got := range map[string]string{"label": s.Defs.Label.Pattern, "selector": s.Defs.Affordance.Properties.Selector.Pattern} {
		if got != want {
			t.Errorf("the %s pattern is %+q, want %+q", name, got, want)
		}
	}
	// The code refuses the same characters, and no other.
	for r := rune(0); r <= 0x10FFFF; r++ {
		want := r < 0x20 || (r >= 0x7F && r <= 0x9F) || slices.Contains(listedCharacters, r)
		if got := aal.Refused(r); got != want {
			t.Errorf("refused(%U) = %v, want %v", r, got, want)
		}
	}
}

// TestRefusedCharacters puts every character docs/protocol.md decision 7 refuses in a
// label and in a selector, escaped and as is, and wants one problem at
// that field that names the character.
func TestRefusedCharacters(t *testing.T) {
	var chars []rune
	for r := rune(0); r < 0x20; r++ {
		chars = append(chars, r)
	}
	for r := rune(0x7F); r <= 0x9F; r++ {
		chars = append(chars, r)
	}
	chars = append(chars, listedCharacters...)
	for _, field := range []string{"label", "selector"} {
		for _, r := range chars {
			for _, escaped := range []bool{true, false} {
				value := "Place" + string(r) + " order"
				doc := frag(setAff(field, value))
				if !escaped {
					raw, _ := json.Marshal(value) // escapes only C0 controls
					if r >= 0x20 && strings.Contains(string(raw), `\u`) {
						t.Fatalf("json.Marshal escaped %U", r)
					}
					doc = []byte(strings.Replace(examplesFragment, `"Place order"`, string(raw), 1))
					if field == "selector" {
						doc = []byte(strings.Replace(examplesFragment, `"[data-aal=\"place-order\"]"`, string(raw), 1))
					}
				}
				ps := aal.ValidateFragment(doc)
				at := "/affordances/0/" + field
				want := fmt.Sprintf("U+%04X", r)
				if len(ps) != 1 || ps[0].Pointer != at || !strings.Contains(ps[0].Message, want) || !strings.Contains(ps[0].Message, "at position 6") {
					t.Errorf("%s with %U (escaped %v): got %v, want one problem at %s naming %s at position 6", field, r, escaped, ps, at, want)
				}
			}
		}
	}
}

// TestRefusedMessages checks the sentences of docs/protocol.md decision 7's character
// rule.
func TestRefusedMessages(t *testing.T) {
	for _, tc := range []struct{ label, want string }{
		{"Add\u200bto cart", `the label has an invisible character U+200B (ZERO WIDTH SPACE) at position 4: "Add\u200bto cart"`},
		{"\u202eredro", `the label has an invisible character U+202E (RIGHT-TO-LEFT OVERRIDE) at position 1: "\u202eredro"`},
		{"a\tb\u0085c", `the label has a control character U+0009 (CHARACTER TABULATION) at position 2 and a C1 control character U+0085 at position 4: "a\u0009b\u0085c"`},
		{"\u200b\u200c\u200d\u2060\u2060", `the label has an invisible character U+200B (ZERO WIDTH SPACE) at position 1, an invisible character U+200C (ZERO WIDTH NON-JOINER) at position 2, an invisible character U+200D (ZERO WIDTH JOINER) at position 3, and 2 more refused characters: "\u200b\u200c\u200d\u2060\u2060"`},
		{"🛒\u007f \"quoted\" \\", `the label has a control character U+007F (DELETE) at position 2: "🛒\u007f \"quoted\" \\"`},
		{strings.Repeat("a", 50) + "\u200b" + strings.Repeat("b", 50), `the label has an invisible character U+200B (ZERO WIDTH SPACE) at position 51: "…` + strings.Repeat("a", 20) + `\u200b` + strings.Repeat("b", 20) + `…"`},
		{"\u200b" + strings.Repeat("b", 100), `the label has an invisible character U+200B (ZERO WIDTH SPACE) at position 1: "\u200b` + strings.Repeat("b", 20) + `…"`},
	} {
		ps := aal.ValidateFragment(frag(setAff("label", tc.label)))
		if len(ps) != 1 || ps[0].Message != tc.want {
			t.Errorf("label %+q: got %v, want %q", tc.label, ps, tc.want)
		}
	}
}

// TestValidateKind checks how Validate tells a fragment from a manifest.
func TestValidateKind(t *testing.T) {
	for _, tc := range []struct {
		doc, kind string
		problems  int
	}{
		{examplesFragment, "fragment", 0},
		{exampleManifest, "manifest", 0},
		{`{"aal":"0.1","affordances":[]}`, "fragment", 1}, // no page
		{`{"aal":"0.1","routes":[]}`, "manifest", 1},      // no site
		{`{"aal":"0.1"}`, "", 1},
		{`{"aal":"0.1","page":"/","site":{}}`, "", 1},
		{`"0.1"`, "", 1},
		{`null`, "", 1},
		{``, "", 1},
		{`{`, "", 1},
	} {
		kind, ps := aal.Validate([]byte(tc.doc))
		if kind != tc.kind || len(ps) != tc.problems {
			t.Errorf("Validate(%.40q) = %q with %v, want %q with %d problems", tc.doc, kind, ps, tc.kind, tc.problems)
		}
	}
}

// TestProblemsSorted checks that problems come sorted by pointer, array
// indexes in numeric order.
func TestProblemsSorted(t *testing.T) {
	doc := frag(func(f obj) {
		affs := many(12)
		for _, i := range []int{11, 2, 10} {
			affs[i].(obj)["trust"] = "root"
			affs[i].(obj)["action"] = "fly"
		}
		f["affordances"] = affs
		f["page"] = "x"
		f["aal"] = "1"
	})
	got := pointers(aal.ValidateFragment(doc))
	want := []string{"/aal", "/affordances/2/action", "/affordances/2/trust", "/affordances/10/action", "/affordances/10/trust", "/affordances/11/action", "/affordances/11/trust", "/page"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestNesting checks that a deeply nested document is a problem, not a
// crash.
func TestNesting(t *testing.T) {
	doc := `{"aal":"0.1","page":"/","affordances":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}"
	ps := aal.ValidateManifest([]byte(doc))
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "nests deeper than 64 levels") {
		t.Errorf("got %v, want one problem about nesting", ps)
	}
}

// TestHugeNumbers checks that numbers beyond float64 cost no time and are
// judged by their value.
func TestHugeNumbers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1e5", "1e5"},
		{"1e99999999999", "1e1000"},
		{"-1e99999999999", "-1e1000"},
		{"1e-99999999999", "0"},
		{"0e99999999999", "0"},
		{"0.0000e-5000", "0"},
		{"123.4500e-1001", "1.2345e-999"},
		{"0.000012e1005", "1.2e1000"},
		{"0.000012e1006", "1e1000"},
	} {
		if got := aal.Tame(tc.in); got != tc.want {
			t.Errorf("tame(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	ps := aal.ValidateFragment(frag(setFlow(json.Number("1e-99999999"), json.Number("64e99999999"))))
	if got := pointers(ps); !slices.Equal(got, []string{"/flow/of", "/flow/step"}) {
		t.Errorf("got %v, want problems at /flow/of and /flow/step", ps)
	}
	if !strings.Contains(ps[0].Message, "64e99999999") {
		t.Errorf("got %q, want the number as written", ps[0].Message)
	}
}

// TestFragmentValidate checks the publisher's own check of a Go value.
func TestFragmentValidate(t *testing.T) {
	var f aal.Fragment
	if err := json.Unmarshal([]byte(examplesFragment), &f); err != nil {
		t.Fatal(err)
	}
	if ps := f.Validate(); ps != nil {
		t.Errorf("the EXAMPLES fragment: got %v, want none", ps)
	}
	if f.Flow.Step != 4 || f.Flow.Of != 4 || f.Affordances[0].Cost.Amount != 36 {
		t.Errorf("decoded %+v, want the EXAMPLES values", f)
	}

	bad := f
	bad.Affordances = []aal.Affordance{f.Affordances[0], f.Affordances[0]}
	bad.Affordances[1].Label = "Place \xffrder"
	bad.Affordances[1].ID = "other"
	got := pointers(bad.Validate())
	if want := []string{"/affordances/1/label"}; !slices.Equal(got, want) {
		t.Errorf("a label that is not UTF-8: got %q, want %q", got, want)
	}

	empty := aal.Fragment{AAL: aal.Version, Page: "/"}
	if got := pointers(empty.Validate()); !slices.Equal(got, []string{"/affordances"}) {
		t.Errorf("nil Affordances: got %q, want a problem at /affordances (it encodes as null)", got)
	}
	empty.Affordances = []aal.Affordance{}
	if ps := empty.Validate(); ps != nil {
		t.Errorf("empty Affordances: got %v, want none", ps)
	}

	var m aal.Manifest
	if err := json.Unmarshal([]byte(exampleManifest), &m); err != nil {
		t.Fatal(err)
	}
	if ps := m.Validate(); ps != nil {
		t.Errorf("the manifest: got %v, want none", ps)
	}
	m.Site.Origin = "https://shop.example/"
	if got := pointers(m.Validate()); !slices.Equal(got, []string{"/site/origin"}) {
		t.Errorf("origin with a path: got %q, want /site/origin", got)
	}
}

// TestFlowWholeNumbers checks that Flow reads every number JSON Schema
// calls an integer, and refuses the others.
func TestFlowWholeNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		step int
		ok   bool
	}{
		{`{"id":"c","step":2,"of":4}`, 2, true},
		{`{"id":"c","step":2.0,"of":4}`, 2, true},
		{`{"id":"c","step":2e0,"of":4}`, 2, true},
		{`{"id":"c","step":2.5,"of":4}`, 0, false},
		{`{"id":"c","step":1e400,"of":4}`, 0, false},
	} {
		var f aal.Flow
		err := json.Unmarshal([]byte(tc.in), &f)
		if (err == nil) != tc.ok || f.Step != tc.step {
			t.Errorf("%s: got %+v, %v; want step %d, ok %v", tc.in, f, err, tc.step, tc.ok)
		}
	}
}

// TestProblemString checks how a problem prints.
func TestProblemString(t *testing.T) {
	for _, tc := range []struct {
		p    aal.Problem
		want string
	}{
		{aal.Problem{Pointer: "/page", Message: "the page is wrong"}, "/page: the page is wrong"},
		{aal.Problem{Message: "the document is not JSON"}, "the document is not JSON"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestConcurrentValidate runs the validators at once, for -race.
func TestConcurrentValidate(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			doc := frag(setAff("label", fmt.Sprintf("Place order %d\u200b", i)))
			if ps := aal.ValidateFragment(doc); len(ps) != 1 {
				t.Errorf("got %v, want one problem", ps)
			}
			if _, ps := aal.Validate([]byte(exampleManifest)); ps != nil {
				t.Errorf("got %v, want none", ps)
			}
		})
	}
	wg.Wait()
}

// TestFragmentFor: an agent fills the manifest's [param] segments with the
// concrete page's values (docs/protocol.md decision 7), and a catch-all [...name] last
// segment with one or more of them, each escaped, the slashes kept.
func TestFragmentFor(t *testing.T) {
	for _, tc := range []struct{ fragment, route, page, want string }{
		{"/.well-known/agent-affordances/products/[slug].json", "/products/[slug]", "/products/canvas-tote", "/.well-known/agent-affordances/products/canvas-tote.json"},
		{"/.well-known/agent-affordances/index.json", "/", "/?q=tee", "/.well-known/agent-affordances/index.json"},
		{"/.well-known/agent-affordances/a/[x]/b/[y].json", "/a/[x]/b/[y]", "/a/1/b/two", "/.well-known/agent-affordances/a/1/b/two.json"},
		{"/.well-known/agent-affordances/p/[id].json", "/p/[id]", "/p/a b", "/.well-known/agent-affordances/p/a%20b.json"},
		{"/.well-known/agent-affordances/p/[id].json", "/p/[id]", "/q/1/2", "/.well-known/agent-affordances/p/[id].json"},
		{"/.well-known/agent-affordances/files/[...path].json", "/files/[...path]", "/files/a", "/.well-known/agent-affordances/files/a.json"},
		{"/.well-known/agent-affordances/files/[...path].json", "/files/[...path]", "/files/a/b", "/.well-known/agent-affordances/files/a/b.json"},
		{"/.well-known/agent-affordances/files/[...path].json", "/files/[...path]", "/files/a b/c?d/e?x=1", "/.well-known/agent-affordances/files/a%20b/c.json"},
		{"/.well-known/agent-affordances/files/[...path].json", "/files/[...path]", "/files/[x]/y", "/.well-known/agent-affordances/files/%5Bx%5D/y.json"},
		{"/.well-known/agent-affordances/u/[user]/f/[...path].json", "/u/[user]/f/[...path]", "/u/ann/f/x/y/z", "/.well-known/agent-affordances/u/ann/f/x/y/z.json"},
		{"/.well-known/agent-affordances/files/[...path].json", "/files/[...path]", "/files", "/.well-known/agent-affordances/files/[...path].json"},
		{"/.well-known/agent-affordances/files/[...path].json", "/files/[...path]", "/files/", "/.well-known/agent-affordances/files/[...path].json"},
		{"/.well-known/agent-affordances/files/[...path].json", "/files/[...path]", "/files/a//b", "/.well-known/agent-affordances/files/[...path].json"},
	} {
		if got := aal.FragmentFor(tc.fragment, tc.route, tc.page); got != tc.want {
			t.Errorf("FragmentFor(%q, %q, %q): got %q, want %q", tc.fragment, tc.route, tc.page, got, tc.want)
		}
	}
}

// TestCheckMatches: an available action's selector matches an element;
// several elements each carry a distinct JSON object as data-aal-input,
// compared as parsed JSON (docs/protocol.md decision 11).
func TestCheckMatches(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name      string
		available bool
		inputs    []*string
		want      []string
	}{
		{"one element", true, []*string{nil}, nil},
		{"one element, malformed input not checked", true, []*string{s("{")}, nil},
		{"unavailable, no element", false, nil, nil},
		{"available, no element", true, nil, []string{"no element matches while the action is available"}},
		{"several distinct", true, []*string{s(`{"task":"t-1"}`), s(`{"task":"t-2"}`), s(`{"task":"t-1","list":"a"}`)}, nil},
		{"unavailable, several distinct", false, []*string{s(`{"task":"t-1"}`), s(`{"task":"t-2"}`)}, nil},
		{"several, one lacks it", true, []*string{s(`{"task":"t-1"}`), nil, s(`{"task":"t-3"}`)}, []string{"element 2 of 3 lacks data-aal-input"}},
		{"unavailable, several lack it", false, []*string{nil, nil}, []string{"element 1 of 2 lacks data-aal-input", "element 2 of 2 lacks data-aal-input"}},
		{"not JSON", true, []*string{s(`{"task":"t-1"}`), s(`{task:1}`)}, []string{"element 2 of 2: data-aal-input is not a JSON object: invalid character 't' looking for beginning of object key string"}},
		{"an array", true, []*string{s(`["t-1"]`), s(`{"task":"t-2"}`)}, []string{`element 1 of 2: data-aal-input is not a JSON object: it is ["t-1"]`}},
		{"null", true, []*string{s(`null`), s(`{"task":"t-2"}`)}, []string{`element 1 of 2: data-aal-input is not a JSON object: it is null`}},
		{"same input", true, []*string{s(`{"task":"t-1"}`), s(`{"task":"t-2"}`), s(`{"task":"t-1"}`)}, []string{`elements 1 and 3 carry the same input {"task":"t-1"}`}},
		{"same as parsed JSON", true, []*string{s(`{"a":1,"b":"x"}`), s(`{ "b" : "\u0078", "a" : 1.0 }`)}, []string{`elements 1 and 2 carry the same input {"a":1,"b":"x"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := aal.CheckMatches(tc.available, tc.inputs); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPicks: an input picks an item when every field of the item's
// data-aal-input has the same JSON value in it (docs/protocol.md decision 11).
func TestPicks(t *testing.T) {
	for _, tc := range []struct {
		item  string
		input map[string]any
		want  bool
	}{
		{`{"task":"t-17"}`, map[string]any{"task": "t-17"}, true},
		{`{"task":"t-17"}`, map[string]any{"task": "t-17", "note": "more fields are fine"}, true},
		{`{"task":"t-17"}`, map[string]any{"task": "t-18"}, false},
		{`{"task":"t-17"}`, map[string]any{}, false},
		{`{"task":"t-17"}`, nil, false},
		{`{"id":17}`, map[string]any{"id": 17}, true},
		{`{"id":17}`, map[string]any{"id": 17.0}, true},
		{`{"id":17}`, map[string]any{"id": "17"}, false},
		{`{"at":{"x":1,"y":[true,null]}}`, map[string]any{"at": map[string]any{"y": []any{true, nil}, "x": int64(1)}}, true},
		{`{"at":{"x":1}}`, map[string]any{"at": map[string]any{"x": 1, "y": 2}}, false},
		{`{}`, map[string]any{"task": "t-17"}, true},
		{`{"f":1}`, map[string]any{"f": func() {}}, false},
	} {
		item, err := aal.ParseInput(tc.item)
		if err != nil {
			t.Fatal(err)
		}
		if got := aal.Picks(item, tc.input); got != tc.want {
			t.Errorf("Picks(%s, %v): got %v, want %v", tc.item, tc.input, got, tc.want)
		}
	}
}

// TestParseInput: data-aal-input is a JSON object, and nothing else.
func TestParseInput(t *testing.T) {
	for _, tc := range []struct{ attr, wantErr string }{
		{`{"task":"t-17"}`, ""},
		{`{}`, ""},
		{``, "aal: data-aal-input is not a JSON object: unexpected end of JSON input"},
		{`{"task":"t-17"} {}`, "aal: data-aal-input is not a JSON object: invalid character '{' after top-level value"},
		{`"t-17"`, `aal: data-aal-input is not a JSON object: it is "t-17"`},
		{`17`, "aal: data-aal-input is not a JSON object: it is 17"},
	} {
		_, err := aal.ParseInput(tc.attr)
		if got := fmt.Sprint(err); tc.wantErr == "" && err != nil || tc.wantErr != "" && got != tc.wantErr {
			t.Errorf("ParseInput(%q): got %v, want %q", tc.attr, err, tc.wantErr)
		}
	}
}

// TestMixedScriptWords: a label word mixing Latin letters with Cyrillic or
// Greek ones is refused (docs/protocol.md decision 7), and the schema's pattern and
// the code agree on every letter and mark of the Basic Multilingual Plane
// beside a Latin "a" and a Cyrillic "а".
func TestMixedScriptWords(t *testing.T) {
	ps := aal.ValidateFragment(frag(setAff("label", "P\u0430y now")))
	if len(ps) != 1 || ps[0].Pointer != "/affordances/0/label" || !strings.Contains(ps[0].Message, "U+0430 at position 2") || !strings.Contains(ps[0].Message, `"Pаy"`) {
		t.Errorf(`"Pаy now": got %v, want one problem at the label naming U+0430 at position 2 in "Pаy"`, ps)
	}
	var s struct {
		Defs struct {
			Affordance struct {
				Properties struct {
					Label struct{ Not struct{ Pattern string } }
				}
			}
		} `json:"$defs"`
	}
	if err := json.Unmarshal(aal.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(s.Defs.Affordance.Properties.Label.Not.Pattern)
	for r := rune(0x20); r <= 0xFFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		for _, w := range []string{"a" + string(r), string(r) + "a", "\u0430" + string(r), "a\u0301" + string(r), string(r) + "x\u0430"} {
			label := w + " now"
			schema := re.MatchString(label)
			_, _, _, code := aal.MixedWord(label)
			if schema != code {
				t.Fatalf("%+q: the schema says mixed %v, the code %v", label, schema, code)
			}
		}
	}
}

// TestID: an action's affordance id is its name in kebab case, a run of
// capitals one word (docs/protocol.md decision 9).
func TestID(t *testing.T) {
	for name, want := range map[string]string{"addToCart": "add-to-cart", "placeOrder": "place-order", "signIn": "sign-in", "search": "search", "getV2": "get-v2", "snake_case": "snake_case",
		"placeOrderURL": "place-order-url", "URLParser": "url-parser", "getHTTPSLink": "get-https-link", "a": "a", "A": "a", "snake_Case": "snake_case"} {
		if got := aal.ID(name); got != want {
			t.Errorf("ID(%q): got %q, want %q", name, got, want)
		}
	}
	if got, want := aal.Selector("addToCart"), `[data-aal="add-to-cart"]`; got != want {
		t.Errorf("Selector(addToCart): got %s, want %s", got, want)
	}
	for page, want := range map[string]string{"/": "/.well-known/agent-affordances/index.json", "/products/canvas-tote": "/.well-known/agent-affordances/products/canvas-tote.json", "/products/[slug]": "/.well-known/agent-affordances/products/[slug].json"} {
		if got := aal.FragmentPath(page); got != want {
			t.Errorf("FragmentPath(%q): got %q, want %q", page, got, want)
		}
	}
}
