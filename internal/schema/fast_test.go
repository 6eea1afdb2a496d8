package schema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/typeschema"
)

// agree fails t when the fast path of s says doc is valid and the library
// does not; it returns the fast path's verdict.
func agree(t *testing.T, s *Schema, schemaDoc, doc string) bool {
	t.Helper()
	if s.fast == nil || !s.fast.valid([]byte(doc)) {
		return false
	}
	v, err := Decode([]byte(doc))
	if err != nil {
		t.Fatalf("schema %s, document %q: the fast path says valid, the library says not JSON: %v", schemaDoc, doc, err)
	}
	if issues := s.ValidateValue(v); len(issues) > 0 {
		t.Fatalf("schema %s, document %q: the fast path says valid, the library says %v", schemaDoc, doc, issues)
	}
	return true
}

// TestFastPathEdges: the fast path says valid where it can tell, and
// leaves to the library what it cannot (want false): never valid where
// the library is not.
func TestFastPathEdges(t *testing.T) {
	for _, tc := range []struct {
		schema, doc string
		want        bool
	}{
		{`{"type":"integer"}`, `1`, true},
		{`{"type":"integer"}`, `-0`, true},
		{`{"type":"integer"}`, `1.0`, false}, // an integer to the library: its call
		{`{"type":"integer"}`, `1e0`, false},
		{`{"type":"integer"}`, `1.5`, false},
		{`{"type":"integer"}`, `123456789012345678`, true},
		{`{"type":"integer"}`, `1234567890123456789`, false},
		{`{"type":"integer"}`, `1e400`, false},
		{`{"type":"number"}`, `1e400`, true},
		{`{"type":"number"}`, `0.1`, true},
		{`{"type":"number","maximum":1}`, `0.1`, false},
		{`{"type":"integer","minimum":1.5}`, `1`, false},
		{`{"type":"integer","minimum":1.5}`, `2`, true},
		{`{"type":"integer","exclusiveMinimum":2}`, `2`, false},
		{`{"type":"integer","exclusiveMinimum":2}`, `3`, true},
		{`{"type":"integer","exclusiveMaximum":2.5}`, `2`, true},
		{`{"type":"integer","exclusiveMaximum":2.5}`, `3`, false},
		{`{"type":"integer","maximum":-1e30}`, `-123456789012345678`, false},
		{`{"type":"integer","minimum":-1e30}`, `-123456789012345678`, true},
		{`{"type":"integer","maximum":9223372036854775808}`, `123456789012345678`, true},
		{`{"enum":[1.0,"a",null,true]}`, `1`, true},
		{`{"enum":[1.0,"a",null,true]}`, `1.0`, false},
		{`{"enum":[1.0,"a",null,true]}`, `null`, true},
		{`{"enum":[1.0,"a",null,true]}`, `false`, false},
		{`{"enum":[{"a":1}]}`, `{"a":1}`, false},
		{`{"const":"é"}`, `"\u00e9"`, true},
		{`{"type":"string","maxLength":1}`, `"é"`, true}, // one code point, two bytes
		{`{"type":"string","maxLength":1}`, `"😀"`, true},
		{`{"type":"string","maxLength":1}`, `"\ud83d\ude00"`, true},
		{`{"type":"string","minLength":2}`, `"😀"`, false},
		{`{"type":"string"}`, "\"\xff\"", false}, // the library reads U+FFFD
		{`{"type":"string"}`, "\"a\x01\"", false},
		{`{"type":"string","pattern":"^a+$"}`, `"aa"`, true},
		{`{"type":"string","pattern":"^a+$"}`, `"ab"`, false},
		{`{"type":"string","format":"date"}`, `"2026-01-01"`, false}, // format: the library's
		{`{"type":["string","null"]}`, `null`, true},
		{`{"type":"object","additionalProperties":false}`, `{}`, true},
		{`{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"a":2}`, false},
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":"x","a":1}`, false},
		{`{"type":"object","required":["a"]}`, `{"\u0061":1}`, true},
		{`{"type":"object","required":["a"]}`, `{"b":1}`, false},
		{`{"type":"object","properties":{"a":{"properties":{"b":{"type":"string"}},"additionalProperties":false}}}`, `{"a":{"b":"x"}}`, true},
		{`{"type":"object","properties":{"a":{"properties":{"b":{"type":"string"}},"additionalProperties":false}}}`, `{"a":{"c":"x"}}`, false},
		{`{"type":"object","additionalProperties":{"type":"integer"}}`, `{"x":1,"y":2}`, true},
		{`{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}`, `[1,2]`, true},
		{`{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}`, `[]`, false},
		{`{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}`, `[1,2,3]`, false},
		{`{}`, ` {"x":[1,{"y":null}]} `, true},
		{`{}`, `{"x":1}x`, false},
		{`{}`, `{"x":01}`, false},
		{`{}`, `[1,]`, false},
		{`{}`, `nul`, false},
		{`{}`, strings.Repeat("[", 100) + strings.Repeat("]", 100), false},
		{`true`, `1`, true},
		{`false`, `1`, false},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer"}`, `1`, false},
		{`{"anyOf":[{"type":"integer"}]}`, `1`, false},
	} {
		s, err := Compile([]byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		if got := agree(t, s, tc.schema, tc.doc); got != tc.want {
			t.Errorf("schema %s, document %q: the fast path says valid %v, want %v", tc.schema, tc.doc, got, tc.want)
		}
	}
}

// TestFastPathInferred: the schemas inferred from Go types all take the
// fast path, and it says valid to a valid input.
func TestFastPathInferred(t *testing.T) {
	type line struct {
		SKU string `json:"sku" affordances:"minLength=1,maxLength=40,pattern=^[a-z-]+$"`
		Qty int    `json:"quantity" affordances:"minimum=1,maximum=99"`
	}
	type input struct {
		Lines  []line            `json:"lines" affordances:"minItems=1"`
		Note   *string           `json:"note,omitempty" jsonschema:"for the packer"`
		Size   string            `json:"size" affordances:"enum=S|M|L"`
		Rating float64           `json:"rating" affordances:"exclusiveMinimum=0,maximum=5"`
		Gift   bool              `json:"gift,omitempty"`
		Tags   map[string]int    `json:"tags,omitempty"`
		Extra  json.RawMessage   `json:"extra,omitempty"`
		Meta   map[string]string `json:"meta,omitzero"`
	}
	doc, err := typeschema.For(reflect.TypeFor[input]())
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if s.fast == nil {
		t.Fatalf("no fast path for %s", doc)
	}
	for _, in := range []string{
		`{"lines":[{"sku":"mug","quantity":2}],"size":"M","rating":4,"note":null,"tags":{"a":1},"extra":[{}],"meta":{"k":"v"}}`,
		`{"lines":[{"sku":"mug","quantity":99}],"size":"S","rating":5,"note":"wrap it","gift":true}`,
	} {
		if !agree(t, s, string(doc), in) {
			t.Errorf("schema %s, document %s: the fast path does not say valid", doc, in)
		}
	}
}

// TestFastPathAgrees: random schemas of the subset (and a few keywords
// beyond it) against random documents, most of them built to fit: the
// fast path never says valid where the library does not, and says valid
// often enough to matter.
func TestFastPathAgrees(t *testing.T) {
	const schemas, docs = 3000, 20
	fast := 0
	for i := range uint64(schemas) {
		g := gen{rand.New(rand.NewPCG(i, 15))}
		sd, s := g.compiled(t)
		for range docs {
			var b strings.Builder
			g.value(&b, sd, 0)
			doc := g.mangle(b.String())
			if agree(t, s, sd, doc) {
				fast++
			}
		}
	}
	if fast < schemas*docs/10 {
		t.Errorf("the fast path said valid to %d documents of %d, want at least a tenth", fast, schemas*docs)
	}
}

// FuzzFastPath: a random schema of the seed against any bytes.
func FuzzFastPath(f *testing.F) {
	for i, doc := range []string{`{"a":1}`, `[1,"é",null]`, `{"a":{"b":[true]},"a":2}`, `"\u00e9"`, `1.0`, `-0`, `12345678901234567890`} {
		f.Add(uint64(i), doc)
	}
	f.Fuzz(func(t *testing.T, seed uint64, doc string) {
		g := gen{rand.New(rand.NewPCG(seed, 15))}
		sd, s := g.compiled(t)
		agree(t, s, sd, doc)
	})
}

// gen makes random schemas and documents.
type gen struct{ r *rand.Rand }

func (g gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

var names = []string{"a", "b", "é", "a b", "~/", "quantity"}

// compiled returns a random schema, as JSON, and compiled.
func (g gen) compiled(t *testing.T) (string, *Schema) {
	t.Helper()
	doc, err := json.Marshal(g.schema(0))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(doc)
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return string(doc), s
}

// schema returns a random schema, mostly of the fast path's keywords.
func (g gen) schema(depth int) any {
	if g.r.IntN(12) == 0 {
		return g.r.IntN(3) > 0
	}
	s := map[string]any{}
	kinds := []string{"null", "boolean", "object", "array", "string", "integer", "number"}
	if depth > 2 {
		kinds = []string{"null", "boolean", "string", "integer", "number"}
	}
	switch g.r.IntN(4) {
	case 0: // no type
	case 1:
		s["type"] = []string{kinds[g.r.IntN(len(kinds))], kinds[g.r.IntN(len(kinds))]}
		if t := s["type"].([]string); t[0] == t[1] {
			s["type"] = t[0]
		}
	default:
		s["type"] = kinds[g.r.IntN(len(kinds))]
	}
	bound := func() json.Number {
		return json.Number(g.pick("0", "1", "-1", "1.5", "-2.5", "2", "99", "1e2", "0.1", "123456789012345678", "9223372036854775808", "1e30", "-1e30"))
	}
	for range g.r.IntN(5) {
		switch g.r.IntN(17) {
		case 0:
			s["minimum"] = bound()
		case 1:
			s["maximum"] = bound()
		case 2:
			s["exclusiveMinimum"] = bound()
		case 3:
			s["exclusiveMaximum"] = bound()
		case 4:
			s["minLength"] = g.r.IntN(4)
		case 5:
			s["maxLength"] = g.r.IntN(4)
		case 6:
			s["pattern"] = g.pick("^a", "é", "^.{2}$", "[0-9]")
		case 7:
			s["enum"] = g.enum()
		case 8:
			s["const"] = g.enum()[0]
		case 9, 10, 11:
			props := map[string]any{}
			for range g.r.IntN(4) {
				props[names[g.r.IntN(len(names))]] = g.schema(depth + 1)
			}
			s["properties"] = props
			var req []string
			for range g.r.IntN(3) {
				req = append(req, names[g.r.IntN(len(names))])
			}
			if len(req) > 0 {
				s["required"] = compactNames(req)
			}
		case 12:
			if g.r.IntN(2) == 0 {
				s["additionalProperties"] = false
			} else {
				s["additionalProperties"] = g.schema(depth + 1)
			}
		case 13:
			s["items"] = g.schema(depth + 1)
		case 14:
			s["minItems"] = g.r.IntN(3)
			s["maxItems"] = g.r.IntN(4)
		case 15:
			s["description"] = "annotation"
		case 16: // beyond the fast path
			k := g.pick("format", "multipleOf", "anyOf", "minProperties", "uniqueItems")
			s[k] = map[string]any{
				"format": "date", "multipleOf": 2, "anyOf": []any{map[string]any{"type": "integer"}}, "minProperties": 1, "uniqueItems": true,
			}[k]
		}
	}
	return s
}

func compactNames(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func (g gen) enum() []any {
	pool := []any{"a", "é", "ab", json.Number("1"), json.Number("1.0"), json.Number("2"), json.Number("1.5"), nil, true, false, []any{json.Number("1")}, map[string]any{"a": json.Number("1")}}
	var out []any
	for range 1 + g.r.IntN(3) {
		v := pool[g.r.IntN(len(pool))]
		if !slicesContainsJSON(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func slicesContainsJSON(xs []any, v any) bool {
	for _, x := range xs {
		if fmt.Sprint(x) == fmt.Sprint(v) {
			return true
		}
	}
	return false
}

// value writes a random document, mostly one that s (a schema as JSON)
// describes.
func (g gen) value(b *strings.Builder, sd string, depth int) {
	var s any
	if err := json.Unmarshal([]byte(sd), &s); err != nil {
		panic(err)
	}
	g.write(b, s, depth)
}

func (g gen) write(b *strings.Builder, s any, depth int) {
	m, _ := s.(map[string]any)
	if g.r.IntN(3) == 0 {
		if e, ok := m["enum"].([]any); ok {
			enc, _ := json.Marshal(e[g.r.IntN(len(e))])
			b.Write(enc)
			return
		}
		if c, ok := m["const"]; ok {
			enc, _ := json.Marshal(c)
			b.Write(enc)
			return
		}
	}
	kind := g.pick("null", "boolean", "object", "array", "string", "integer", "number")
	switch t := m["type"].(type) {
	case string:
		kind = t
	case []any:
		kind = t[g.r.IntN(len(t))].(string)
	}
	if g.r.IntN(10) == 0 || depth > 4 && (kind == "object" || kind == "array") {
		kind = g.pick("null", "boolean", "string", "integer", "number")
	}
	switch kind {
	case "null":
		b.WriteString("null")
	case "boolean":
		b.WriteString(g.pick("true", "false"))
	case "string":
		b.WriteString(g.pick(`""`, `"a"`, `"aa"`, `"ab"`, `"é"`, `"\u00e9"`, `"a\u0301"`, `"😀"`, `"\ud83d\ude00"`, `"\ud800"`, "\"\xe9\"", `"a\"b"`, `"12"`, `"2026-01-01"`))
	case "integer", "number":
		b.WriteString(g.pick("0", "-0", "1", "1.0", "1e0", "2", "3", "99", "100", "-1", "-3", "1.5", "0.1", "123456789012345678", "-123456789012345678", "1234567890123456789", "9223372036854775808", "1e400", "1E2", "01", "-01", "1.", ".5", "+1", "-", "1e", "1e+"))
	case "array":
		items := m["items"]
		b.WriteByte('[')
		for i := range g.r.IntN(4) {
			if i > 0 {
				b.WriteString(g.pick(",", " , "))
			}
			g.write(b, items, depth+1)
		}
		b.WriteByte(']')
	case "object":
		props, _ := m["properties"].(map[string]any)
		keys := asStrings(m["required"])
		for k := range props {
			if g.r.IntN(2) == 0 {
				keys = append(keys, k)
			}
		}
		if g.r.IntN(5) == 0 {
			keys = append(keys, names[g.r.IntN(len(names))])
		}
		keys = compactNames(keys)
		if len(keys) > 0 && g.r.IntN(10) == 0 {
			keys = append(keys, keys[0]) // a duplicate key
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if k == "é" && g.r.IntN(2) == 0 {
				b.WriteString(`"\u00e9"`)
			} else {
				enc, _ := json.Marshal(k)
				b.Write(enc)
			}
			b.WriteString(g.pick(":", " : "))
			sub, ok := props[k]
			if !ok {
				sub = m["additionalProperties"]
			}
			g.write(b, sub, depth+1)
		}
		b.WriteByte('}')
	}
}

func asStrings(v any) []string {
	var out []string
	if xs, ok := v.([]any); ok {
		for _, x := range xs {
			out = append(out, x.(string))
		}
	}
	return out
}

// mangle sometimes breaks doc's syntax.
func (g gen) mangle(doc string) string {
	if len(doc) == 0 || g.r.IntN(8) != 0 {
		return doc
	}
	i := g.r.IntN(len(doc))
	switch g.r.IntN(3) {
	case 0:
		return doc[:i]
	case 1:
		return doc[:i] + g.pick(",", "}", "]", "\"", "x", "\x00", " ") + doc[i:]
	}
	return doc + g.pick("x", " ", "{}", ",")
}
