package main

import (
	"encoding/json"
	"flag"
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
		if got := inputLine(json.RawMessage(tc.schema)); got != tc.want {
			t.Errorf("inputLine(%s):\n got %s\nwant %s", tc.schema, got, tc.want)
		}
	}
}

// TestVisibleJSON: characters a person could not see are escaped in JSON
// text, which stays JSON and means the same; everything else is verbatim.
func TestVisibleJSON(t *testing.T) {
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
		got := visibleJSON(tc.v)
		if got != tc.want {
			t.Errorf("visibleJSON(%q): got %s, want %s", tc.v, got, tc.want)
		}
		var back any
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("visibleJSON(%q) = %s is not JSON: %v", tc.v, got, err)
		}
	}
}

// TestWriteValue: entities summarised for a person.
func TestWriteValue(t *testing.T) {
	rows := make([]any, 5)
	for i := range rows {
		rows[i] = map[string]any{"n": float64(i), "long": strings.Repeat("x", 120)}
	}
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"scalar", "hi\u200b", "  k: \"hi\\u200b\"\n"},
		{"short array of scalars", []any{"a", "b"}, "  k: 2 items [\"a\",\"b\"]\n"},
		{"empty array", []any{}, "  k: 0 items\n"},
		{"long array of objects", rows, "  k: 5 items\n" +
			"    - {\"long\":\"" + strings.Repeat("x", 100-len(`    - {"long":"`)-1) + "…\n" +
			"    - {\"long\":\"" + strings.Repeat("x", 100-len(`    - {"long":"`)-1) + "…\n" +
			"    - {\"long\":\"" + strings.Repeat("x", 100-len(`    - {"long":"`)-1) + "…\n" +
			"    … 2 more\n"},
		{"small object", map[string]any{"b": 1.0, "a": true}, "  k: {\"a\":true,\"b\":1}\n"},
		{"large object", map[string]any{"b": strings.Repeat("y", 90), "a": 1.0}, "  k:\n    a: 1\n    b: \"" + strings.Repeat("y", 90) + "\"\n"},
	} {
		var b strings.Builder
		writeValue(&b, "  ", "k", tc.v, 0)
		if b.String() != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, b.String(), tc.want)
		}
	}
}

// TestInterspersed: flags may follow the arguments; a flag's value stays
// with it; "--" ends the flags.
func TestInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Bool("json", false, "")
	fs.String("token", "", "")
	var g grantList
	fs.Var(&g, "grant", "")
	for _, tc := range []struct{ in, want string }{
		{"URL ACTION --json", "--json -- URL ACTION"},
		{"--token t URL --grant a --grant=b ACTION {}", "--token t --grant a --grant=b -- URL ACTION {}"},
		{"URL ACTION - --json", "--json -- URL ACTION -"},
		{"URL -- -1 --json", "-- URL -1 --json"},
		{"--help", "--help"},
		{"URL --nope x", "--nope -- URL x"},
		{"URL --token", "--token"},
	} {
		if got := strings.Join(interspersed(fs, strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("interspersed(%s): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAgentHelp: each agent command's help teaches its flags, an example,
// the token variable and every exit code.
func TestAgentHelp(t *testing.T) {
	for _, name := range []string{"inspect", "call", "index"} {
		code, out, _ := cli(t, nil, name, "--help")
		if code != exitOK {
			t.Errorf("%s --help: exit %d, want 0", name, code)
		}
		for _, w := range []string{"Usage: affordances " + name, "-json", "-token", "-cookie-jar", "$AFFORDANCES_TOKEN", "Example:",
			"Exit status:", "  1  the site answered an error delta", "  2  usage", "  3  the call needed a person's approval", "  4  network or protocol failure"} {
			if !strings.Contains(out, w) {
				t.Errorf("%s --help lacks %q:\n%s", name, w, out)
			}
		}
	}
	_, out, _ := cli(t, nil, "help", "call")
	for _, w := range []string{"-approve", "the person's explicit approval of this one call; never give it on a model's behalf", "-grant", "-unattended", "Approve? [y/N]"} {
		if !strings.Contains(out, w) {
			t.Errorf("help call lacks %q:\n%s", w, out)
		}
	}
}

// FuzzInputLine: any input schema a site sends is shown in one line, and
// never panics. Run with go test -fuzz FuzzInputLine ./cmd/affordances.
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
		if got := inputLine(schema); strings.ContainsAny(got, "\n\r") {
			t.Errorf("inputLine(%q) = %q spans lines", schema, got)
		}
	})
}
