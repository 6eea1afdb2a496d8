package wirejson

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// awkward are strings encoding/json escapes: quotes, backslashes, every
// control character, HTML's <, > and &, DEL, U+2028 and U+2029, invalid
// UTF-8 (a lone continuation byte, a truncated sequence, a surrogate, an
// overlong form), and text that needs nothing.
var awkward = []string{
	"", "plain", `say "hi" \ back`, "\x00\x01\x08\t\n\x0b\x0c\r\x1f", "<b>Tea & biscuits</b>", "\x7f",
	"line\u2028para\u2029end", "\x80", "caf\xc3", "\xed\xa0\x80", "\xc0\xaf", "Café crème ☕ 𝄞",
}

// FuzzAppendString: AppendString writes exactly what json.Marshal writes
// for any string, valid UTF-8 or not.
func FuzzAppendString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}

func TestAppendStringMatchesMarshal(t *testing.T) {
	all := append([]string(nil), awkward...)
	for b := range 256 { // every byte alone, and amid plain text
		all = append(all, string([]byte{byte(b)}), "plain before "+string([]byte{byte(b)})+" and after")
	}
	for _, s := range all {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

// named has a method set of its own: AppendValue must not take it for a
// plain string.
type named string

func (n named) MarshalJSON() ([]byte, error) { return []byte(`{"named":"` + string(n) + `"}`), nil }

// TestAppendValueMatchesMarshal: entities and outputs of every kind come
// out as json.Marshal writes them, and what it cannot encode is an error.
func TestAppendValueMatchesMarshal(t *testing.T) {
	type card struct {
		Name  string   `json:"name"`
		Price float64  `json:"price"`
		Tags  []string `json:"tags,omitempty"`
		Note  *string  `json:"note"`
	}
	values := []any{
		nil, true, false, 0, -42, int64(math.MaxInt64), int32(7), uint8(200), 3.5, 1e21, 1e-7, float32(0.1),
		"<&>", named("x"), json.RawMessage(` { "a" : [1, 2] } `), []byte("bytes"),
		[]string{"a", "<b>"}, map[string]any{"z": 1, "a": nil, "m": map[string]int{"b": 2, "a": 1}},
		card{Name: "Tea & biscuits", Price: 19}, &card{Tags: []string{"\u2028"}}, []card{},
		time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), struct{}{}, map[int]string{2: "b", 10: "a"},
	}
	for _, s := range awkward {
		values = append(values, s)
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%#v): %v", v, err)
		}
		got, err := AppendValue([]byte("x"), v)
		if err != nil || string(got) != "x"+string(want) {
			t.Errorf("AppendValue(%#v) = %s, %v; want %s", v, got, err, want)
		}
	}
	for _, v := range []any{math.NaN(), make(chan int), map[string]any{"f": func() {}}} {
		if _, err := AppendValue(nil, v); err == nil {
			t.Errorf("AppendValue(%#v): no error; json.Marshal refuses it", v)
		}
	}
}

func TestAppendObjectMatchesMarshal(t *testing.T) {
	many := map[string]any{}
	for _, s := range awkward { // more keys than AppendObject keeps on its stack
		many[s] = s
	}
	for _, m := range []map[string]any{
		{}, {"b": 1, "a": "<x>", "c": nil, "B": []int{1}}, many,
	} {
		want, _ := json.Marshal(m)
		got, err := AppendObject(nil, m)
		if err != nil || string(got) != string(want) {
			t.Errorf("AppendObject:\n got %s, %v\nwant %s", got, err, want)
		}
	}
}
