package display

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInputLine: an action's input schema in one line, properties in the
// order the site wrote them.
func TestInputLine(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"sku":{"type":"string","minLength":1,"maxLength":40},"quantity":{"type":"integer","minimum":1,"maximum":99}},"required":["sku"]}`,
			"sku: string (required, 1-40 chars), quantity: integer 1-99"},
		{`{"type":"object","properties":{"card":{"type":"string","minLength":4,"maxLength":4}},"required":["card"]}`, "card: string (required, exactly 4 chars)"},
		{`{"type":"object","additionalProperties":false}`, "none"},
		{``, "none"},
		{`{"type":"object"}`, "any object"},
		{`{}`, "any"},
		{`{"properties":{"size":{"enum":["S","M"]},"n":{"type":"number","exclusiveMinimum":0},"tags":{"type":"array","items":{"type":"string"},"maxItems":5},"at":{"type":["string","null"],"format":"date-time"},"q":{"type":"integer","default":1,"maximum":9}}}`,
			`size: "S"|"M", n: number > 0, tags: array of string (at most 5 items), at: string|null (format date-time), q: integer <= 9 (default 1)`},
		{`{"properties":{"a\u200bb":{"type":"object","properties":{"x":{},"y":{}}}}}`, `a\u200bb: object {x, y}`},
		{`not json`, "none"},
	} {
		if got := InputLine(json.RawMessage(tc.schema)); got != tc.want {
			t.Errorf("InputLine(%s):\n got %s\nwant %s", tc.schema, got, tc.want)
		}
	}
}

// FuzzInputLine: any input schema a site sends is shown in one line, and
// never panics. Run with go test -fuzz FuzzInputLine ./internal/display.
func FuzzInputLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"sku":{"type":"string","minLength":1,"maxLength":40}},"required":["sku"]}`,
		`{"properties":{"a":{"type":["array","null"],"items":{"enum":[1,"x",null]}}}}`,
		`{"properties":{"n":{"minimum":1e400,"exclusiveMaximum":"x"}}}`,
		`{"properties":[1,2]}`, `[]`, `null`, `{"properties":{"":{}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		if got := InputLine(schema); strings.ContainsAny(got, "\n\r") {
			t.Errorf("InputLine(%q) = %q spans lines", schema, got)
		}
	})
}

// TestJSON: characters a person could not see are escaped in JSON
// text, which stays JSON and means the same; everything else is verbatim.
func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"plain <b>&</b>", `"plain <b>&</b>"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"rtl\u202eoverride", `"rtl\u202eoverride"`},
		{"tag\U000e0041", `"tag\udb40\udc41"`},
		{"line\nbreak\x7f", `"line\nbreak\u007f"`},
		{"émoji 🛒 and 日本", `"émoji 🛒 and 日本"`},
		{map[string]any{"k\u2060": 1}, `{"k\u2060":1}`},
	} {
		got := JSON(tc.v)
		if got != tc.want {
			t.Errorf("JSON(%q): got %s, want %s", tc.v, got, tc.want)
		}
		var back any
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("JSON(%q) = %s is not JSON: %v", tc.v, got, err)
		}
	}
}
