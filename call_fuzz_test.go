package affordances

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/affordances/affordances-go/internal/wirejson"
)

// FuzzDecodeCall: call bodies come from the network. decodeCall must never
// panic, must refuse with invalid_input whatever it refuses, and what it
// accepts is a JSON object with a non-empty action, nested at most 64 deep, with bounded values and numbers.
func FuzzDecodeCall(f *testing.F) {
	for _, s := range []string{
		`{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`,
		`{"action":"placeOrder","confirm":true}`,
		`{"action":"x","input":null,"extra":[1,2,{"a":"]"}]}`,
		`{"action":""}`, `[]`, `null`, `{"action":"a","confirm":"yes"}`, `"\u0000"`,
		`{"action":"addToCart","input":{"sku":"tee\ud800"}}`, `{"action":"addToCart","input":{"sku":"tee\ud83d\ude00"}}`,
		`{"action":"a","input":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := decodeCall(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != InvalidInput || e.Message == "" {
				t.Fatalf("refusal %#v: want an *Error, invalid_input with a message", err)
			}
			return
		}
		if c.Action == "" {
			t.Fatalf("accepted a call without an action: %q", body)
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) != nil || obj == nil {
			t.Fatalf("accepted a body that is not a JSON object: %q", body)
		}
		if _, err := wirejson.ScanCall(body); err != nil {
			t.Fatalf("accepted a body its scan refuses: %q", body)
		}
		if c.Input != nil && !json.Valid(c.Input) {
			t.Fatalf("input is not JSON: %q", c.Input)
		}
	})
}
