package wirejson

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/affordances/affordances-go/internal/schema"
)

type (
	decodeFlat struct {
		SKU      string  `json:"sku"`
		Quantity int     `json:"quantity"`
		Small    int8    `json:"small,omitempty"`
		Count    uint16  `json:"count,omitzero"`
		Gift     bool    `json:"gift"`
		Weight   float64 `json:"weight"`
		Ratio    float32 `json:"ratio"`
		Plain    string
		//lint:ignore U1000 an unexported field, which encoding/json and the plan leave alone
		hidden  string
		Skipped string `json:"-"`
		//lint:ignore SA5008 "-," names a field "-", as encoding/json documents: the case is tested
		Dash string `json:"-,"`
	}
	decodeLists struct {
		Tags  []string  `json:"tags"`
		Qty   []int8    `json:"qty"`
		Grid  [][]bool  `json:"grid"`
		Lines []decLine `json:"lines"`
		Ship  decAddr   `json:"ship"`
	}
	decLine struct {
		SKU string  `json:"sku"`
		N   int     `json:"n"`
		At  decAddr `json:"at"`
	}
	decAddr      struct{ City, Zip string }
	decBytes     struct{ B []byte }
	decTree      struct{ Kids []decTree }
	decPtr       struct{ P *string }
	decMap       struct{ M map[string]string }
	decArray     struct{ A [2]int }
	decAnys      struct{ L []any }
	decodeString struct {
		N int `json:"n,string"`
	}
	decodeTime    struct{ At time.Time }
	decodeEmbed   struct{ decodeFlat }
	decodeAnyVal  struct{ V any }
	decodeDupName struct {
		X string
		Y string `json:"X"` // encoding/json takes neither
	}
)

// TestDecodePlanTypes: the plan takes structs of strings, booleans and
// numbers, and slices and structs of those, and no other type.
func TestDecodePlanTypes(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[decodeFlat](), reflect.TypeFor[struct{}](), reflect.TypeFor[decodeLists]()} {
		if DecodePlanOf(typ) == nil {
			t.Errorf("%v has no plan", typ)
		}
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[decBytes](), reflect.TypeFor[decTree](), reflect.TypeFor[decPtr](), reflect.TypeFor[decMap](),
		reflect.TypeFor[decArray](), reflect.TypeFor[decAnys](), reflect.TypeFor[decodeString](), reflect.TypeFor[decodeTime](),
		reflect.TypeFor[decodeEmbed](), reflect.TypeFor[decodeAnyVal](), reflect.TypeFor[decodeDupName](),
		reflect.TypeFor[map[string]string](), reflect.TypeFor[string](), reflect.TypeFor[json.RawMessage](),
	} {
		if DecodePlanOf(typ) != nil {
			t.Errorf("%v has a plan", typ)
		}
	}
}

// decodeBoth decodes input into a T by the plan, and by encoding/json, and
// fails t when the plan took the input and the two differ; it reports
// whether the plan took it.
func decodeBoth[T any](t *testing.T, input string) bool {
	t.Helper()
	var byPlan, byJSON T
	if !DecodePlanOf(reflect.TypeFor[T]()).Decode([]byte(input), reflect.ValueOf(&byPlan).Elem()) {
		return false
	}
	if err := json.Unmarshal([]byte(input), &byJSON); err != nil {
		t.Fatalf("the plan took %s, which encoding/json refuses: %v", input, err)
	}
	if !reflect.DeepEqual(byPlan, byJSON) {
		t.Fatalf("%s: the plan decoded %+v, encoding/json %+v", input, byPlan, byJSON)
	}
	return true
}

// The schemas of decodeFlat and decodeLists that the checked plan asks,
// with a rule of each kind the fast path knows.
var (
	flatSchema = mustCompile(`{"type":"object","required":["sku"],"additionalProperties":false,"properties":{
		"sku":{"type":"string","minLength":1,"maxLength":8,"pattern":"^[a-zé \"]+$"},
		"quantity":{"type":"integer","minimum":-10,"maximum":99},"small":{"enum":[-128,1,2]},
		"count":{"type":"integer"},"gift":{"const":true},"weight":{"type":"number"},"ratio":{"type":"number","maximum":1},
		"Plain":{"type":"string"},"-":{"type":"string","enum":["dash","x"]}}}`)
	listsSchema = mustCompile(`{"type":"object","properties":{
		"tags":{"type":"array","items":{"type":"string","maxLength":3},"maxItems":2},"qty":{"type":"array","minItems":1},
		"lines":{"type":"array","items":{"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":1}},
			"additionalProperties":{"type":["string","object"]}}},
		"ship":{"type":"object","properties":{"Zip":false}}}}`)
)

func mustCompile(doc string) *schema.Schema {
	s, err := schema.Compile(json.RawMessage(doc))
	if err != nil {
		panic(err)
	}
	return s
}

// decodeChecked decodes input into a T by the plan checked against s, and
// fails t when the plan took the input and s refuses it, or encoding/json
// decodes another value; it reports whether the plan took it.
func decodeChecked[T any](t *testing.T, s *schema.Schema, input string) bool {
	t.Helper()
	var byPlan, byJSON T
	if !DecodePlanOf(reflect.TypeFor[T]()).DecodeChecked([]byte(input), reflect.ValueOf(&byPlan).Elem(), s.Rule()) {
		return false
	}
	if issues, err := s.Validate(json.RawMessage(input)); err != nil || len(issues) > 0 {
		t.Fatalf("the checked plan took %s, which the schema refuses: %v %v", input, err, issues)
	}
	if err := json.Unmarshal([]byte(input), &byJSON); err != nil || !reflect.DeepEqual(byPlan, byJSON) {
		t.Fatalf("%s: the checked plan decoded %+v, encoding/json %+v (%v)", input, byPlan, byJSON, err)
	}
	return true
}

// TestDecodeChecked: the checked plan takes what its schema's fast path
// accepts and the plan decodes, and leaves the rest, each rule broken in
// turn, a name twice and what the plan leaves, to the library's validation.
func TestDecodeChecked(t *testing.T) {
	for _, in := range []string{
		`{"sku":"mug"}`, `{"sku":"a","quantity":-0}`, ` {"sku":"caf\u00e9 \"m\"", "quantity":-10, "small":2, "count":65535, "gift":true, "weight":1e3, "Plain":"", "-":"dash"} `,
	} {
		if !decodeChecked[decodeFlat](t, flatSchema, in) {
			t.Errorf("the checked plan left %s", in)
		}
	}
	for _, in := range []string{
		`{}`, `{"quantity":1}`, `{"sku":""}`, `{"sku":"abcdefghi"}`, `{"sku":"MUG"}`, `{"sku":"a","quantity":100}`,
		`{"sku":"a","quantity":-11}`, `{"sku":"a","quantity":1000000000000000000}`, `{"sku":"a","small":3}`, `{"sku":"a","gift":false}`, `{"sku":"a","ratio":1.5}`,
		`{"sku":"a","ratio":0.5}`, // a bound on a number not an integer: the fast path is not sure
		`{"sku":"a","-":"y"}`, `{"sku":"a","sku":"b"}`, `{"sku":"a","quantity":1.0}`, `{"sku":"a","other":1}`, `[]`,
	} {
		if decodeChecked[decodeFlat](t, flatSchema, in) {
			t.Errorf("the checked plan took %s", in)
		}
	}
	for _, in := range []string{
		`{}`, `{"tags":["a","abc"],"qty":[1],"lines":[{"n":1,"sku":"x","at":{}}],"ship":{"City":"Bath"}}`, `{"tags":[]}`,
	} {
		if !decodeChecked[decodeLists](t, listsSchema, in) {
			t.Errorf("the checked plan left %s", in)
		}
	}
	for _, in := range []string{
		`{"tags":["abcd"]}`, `{"tags":["a","b","c"]}`, `{"qty":[]}`, `{"lines":[{}]}`, `{"lines":[{"n":0}]}`,
		`{"ship":{"Zip":"BA1"}}`, `{"ship":{"City":"a","City":"b"}}`, `{"tags":["a"],"tags":["b"]}`,
	} {
		if decodeChecked[decodeLists](t, listsSchema, in) {
			t.Errorf("the checked plan took %s", in)
		}
	}
	// A schema beyond the fast path (format) has a rule sure of nothing.
	if beyond := mustCompile(`{"type":"object","properties":{"sku":{"type":"string","format":"email"}}}`); decodeChecked[decodeFlat](t, beyond, `{"sku":"mug"}`) {
		t.Error("the checked plan took an input whose schema is beyond the fast path")
	}
}

// TestDecodePlanMatchesUnmarshal: what the plan takes it decodes as
// encoding/json does, and what it leaves (other cases of a name, unknown
// names, null, numbers that do not fit) goes to encoding/json.
func TestDecodePlanMatchesUnmarshal(t *testing.T) {
	for _, in := range []string{
		`{}`, ` { } `,
		`{"sku":"mug","quantity":2,"gift":true,"weight":1.5e2,"ratio":-0.25,"Plain":"x","-":"dash"}`,
		"{\n\t\"sku\" : \"caf\\u00e9 \\\"crème\\\"\" ,\r\n\"quantity\":-7 }",
		`{"small":-128,"count":65535,"gift":false,"weight":0}`,
		`{"sku":"a","sku":"b"}`,
		`{"weight":1E400}`, // out of range: encoding/json's error
	} {
		took := decodeBoth[decodeFlat](t, in)
		if want := in != `{"weight":1E400}`; took != want {
			t.Errorf("the plan took %s: %v, want %v", in, took, want)
		}
	}
	for _, in := range []string{
		`{"SKU":"mug"}`, `{"plain":"x"}`, `{"other":1}`, `{"sku":null}`, `{"quantity":1.0}`, `{"quantity":1e2}`,
		`{"small":128}`, `{"count":-1}`, `{"count":65536}`, `{"quantity":"2"}`, `{"sku":2}`, `{"gift":"true"}`,
		`{"hidden":"x"}`, `{"Skipped":"x"}`, `[]`, `{"sku":"a"} {}`, `{"sku":"a",}`, `"x"`, `{"sku":"\xff"}`,
		`{"sku":"tee\ud800"}`, `{"sku":"\udc00"}`, // encoding/json would write U+FFFD
	} {
		if decodeBoth[decodeFlat](t, in) {
			t.Errorf("the plan took %s", in)
		}
	}
}

// TestDecodePlanLists: lists and nested structs decode as encoding/json
// decodes them: [] an empty slice, a name twice the second array in place
// of the first and a nested struct's fields merged; null, a list of
// another type or a nested unknown name go to encoding/json.
func TestDecodePlanLists(t *testing.T) {
	for _, in := range []string{
		`{"tags":[],"qty":[ ],"grid":[[],[true,false]],"lines":[]}`,
		`{"tags":["a","b\u00e9"],"qty":[1,-128,127],"lines":[{"sku":"mug","n":2,"at":{"City":"Oxford"}},{"n":1}],"ship":{"City":"Bath","Zip":"BA1"}}`,
		`{"tags":["a"],"tags":["b","c"]}`,
		`{"ship":{"City":"Bath"},"ship":{"Zip":"BA1"}}`,
		` { "lines" : [ { "sku" : "x" } , { } ] } `,
	} {
		if !decodeBoth[decodeLists](t, in) {
			t.Errorf("the plan left %s to encoding/json", in)
		}
	}
	for _, in := range []string{
		`{"tags":null}`, `{"tags":[null]}`, `{"tags":[1]}`, `{"qty":[128]}`, `{"tags":"a"}`, `{"ship":[]}`,
		`{"lines":[{"sku":"x","other":1}]}`, `{"ship":{"city":"Bath"}}`, `{"tags":["a",]}`, `{"tags":["a"}`, `{"grid":[[1]]}`,
	} {
		if decodeBoth[decodeLists](t, in) {
			t.Errorf("the plan took %s", in)
		}
	}
}

// FuzzDecodePlan holds the plan to encoding/json on any input: whatever it
// takes, encoding/json takes too, into the same value; and the checked
// plan to its schema: whatever it takes, the schema accepts.
func FuzzDecodePlan(f *testing.F) {
	for _, s := range []string{`{}`, `{"sku":"mug","quantity":2,"gift":true,"weight":1.5,"ratio":2,"small":1,"count":3}`,
		`{"sku":"\u00e9\ud83d\ude00","Plain":"\n"}`, `{"quantity":-9223372036854775808}`, `{"count":0}`,
		`{"sku":"tee\ud800"}`, `{"sku":"\ude00\ud83d"}`,
		`{"tags":["a"],"qty":[1,2],"grid":[[true]],"lines":[{"sku":"m","n":1,"at":{"Zip":"z"}}],"ship":{"City":"c"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		decodeBoth[decodeFlat](t, input)
		decodeBoth[decodeLists](t, input)
		decodeChecked[decodeFlat](t, flatSchema, input)
		decodeChecked[decodeLists](t, listsSchema, input)
	})
}
