package wirejson

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
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
// takes, encoding/json takes too, into the same value.
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
	})
}
