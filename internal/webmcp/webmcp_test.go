package webmcp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/webmcp"
)

// TestSchema: a schema within the subset is given as it is; a wider one
// says less, within the subset.
func TestSchema(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, tc := range []struct{ name, in, want string }{
		{"within, as it is", `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":99,"description":"how many"},"s":{"type":["string","null"],"pattern":"^a","maxLength":4,"default":"a"},"e":{"enum":["x","y"]},"l":{"type":"array","items":{"type":"string"},"maxItems":3}},"required":["n"],"additionalProperties":false}`, ""},
		{"format goes", `{"type":"object","properties":{"due":{"type":"string","format":"date"}}}`, `{"properties":{"due":{"type":"string"}},"type":"object"}`},
		{"a local $ref in its place", `{"$defs":{"addr":{"type":"object","properties":{"city":{"type":"string"}}}},"type":"object","properties":{"a":{"$ref":"#/$defs/addr","description":"where"}}}`,
			`{"properties":{"a":{"description":"where","properties":{"city":{"type":"string"}},"type":"object"}},"type":"object"}`},
		{"definitions too", `{"definitions":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/n"}}}`, `{"properties":{"a":{"type":"integer"}}}`},
		{"a recursive $ref stops", `{"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`,
			`{"properties":{"next":{}},"type":"object"}`},
		{"a remote $ref goes", `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, `{"properties":{"a":{}}}`},
		{"const is an enum", `{"properties":{"a":{"const":"x"}}}`, `{"properties":{"a":{"enum":["x"]}}}`},
		{"anyOf of consts is an enum", `{"properties":{"a":{"anyOf":[{"const":1,"title":"one"},{"const":2}]}}}`, `{"properties":{"a":{"enum":[1,2]}}}`},
		{"anyOf of schemas goes", `{"properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"properties":{"a":{}}}`},
		{"additionalProperties a schema goes", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"type":"object"}`},
		{"draft 4's boolean exclusiveMinimum goes", `{"type":"number","minimum":0,"exclusiveMinimum":true}`, `{"minimum":0,"type":"number"}`},
		{"large numbers kept exactly", `{"type":"integer","maximum":9007199254740993}`, ""},
		{"a boolean schema is {}", `{"properties":{"a":true}}`, `{"properties":{"a":{}}}`},
		{"a long description cut", `{"properties":{"a":{"type":"string","description":"` + long + `"}}}`,
			`{"properties":{"a":{"description":"` + strings.TrimSpace(strings.Repeat("word ", 30)) + `…","type":"string"}}}`},
		{"$schema, title, allOf go", `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"T","allOf":[{"type":"object"}],"type":"object"}`, `{"type":"object"}`},
		{"no JSON", `{`, `{"type":"object"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.in
			}
			got := webmcp.Schema(json.RawMessage(tc.in))
			if string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if o := webmcp.Outside(got); o != nil {
				t.Errorf("outside the subset: %v", o)
			}
			if again := webmcp.Schema(got); string(again) != string(got) {
				t.Errorf("again: got %s, want %s", again, got)
			}
		})
	}
}

// TestOutside names what a schema says beyond the subset.
func TestOutside(t *testing.T) {
	got := strings.Join(webmcp.Outside(json.RawMessage(`{"$defs":{},"properties":{"a":{"format":"date","description":"`+strings.Repeat("x", 151)+`"},"b":{"additionalProperties":true}}}`)), " ")
	want := "/$defs /properties/a/description: longer than 150 characters /properties/a/format /properties/b/additionalProperties: not false"
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestCut: a text within the limit is as it is; a longer one ends at a
// word, with the note, in the limit.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"one two three four", 16, "one two three…"},
		{"one two three four", 12, "one two thr…"}, // no space in the last quarter
		{"ünïcödé wörds hérè", 14, "ünïcödé wörds…"},
		{"nospaceatallinthis", 8, "nospace…"},
	} {
		if got := webmcp.Cut(tc.s, tc.n, "…"); got != tc.want || len([]rune(got)) > tc.n {
			t.Errorf("Cut(%q, %d): got %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestHeaders: the headers that keep registerTool from registering, and
// those that do not.
func TestHeaders(t *testing.T) {
	const origin = "https://shop.example"
	for _, tc := range []struct {
		name    string
		headers []string // name: value
		want    string   // a word of each reason, "" for none
	}{
		{"none", nil, ""},
		{"Origin-Agent-Cluster: ?1", []string{"Origin-Agent-Cluster: ?1"}, ""},
		{"Origin-Agent-Cluster: ?0", []string{"Origin-Agent-Cluster: ?0"}, "SecurityError"},
		{"Origin-Agent-Cluster unparseable", []string{"Origin-Agent-Cluster: 0"}, ""},
		{"a policy without tools", []string{"Permissions-Policy: geolocation=(), camera=(self)"}, ""},
		{"tools=()", []string{"Permissions-Policy: geolocation=(), tools=()"}, "NotAllowedError"},
		{"tools=(self)", []string{"Permissions-Policy: tools=(self)"}, ""},
		{"tools=self", []string{"Permissions-Policy: tools=self"}, ""},
		{"tools=*", []string{"Permissions-Policy: tools=*"}, ""},
		{"tools of another origin only", []string{`Permissions-Policy: tools=("https://other.example")`}, "NotAllowedError"},
		{"tools of the page's origin by name", []string{`Permissions-Policy: tools=("https://shop.example" "https://other.example")`}, ""},
		{"two headers, the last tools wins", []string{"Permissions-Policy: tools=()", "Permissions-Policy: tools=(self)"}, ""},
		{"two headers, tools denied in the second", []string{"Permissions-Policy: camera=()", "Permissions-Policy: tools=();report-to=x"}, "NotAllowedError"},
		{"an unparseable policy is ignored", []string{"Permissions-Policy: tools=() camera"}, ""},
		{"both", []string{"Origin-Agent-Cluster: ?0", "Permissions-Policy: tools=()"}, "SecurityError NotAllowedError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, l := range tc.headers {
				k, v, _ := strings.Cut(l, ": ")
				h.Add(k, v)
			}
			got := webmcp.Headers(h, origin)
			want := strings.Fields(tc.want)
			if len(got) != len(want) {
				t.Fatalf("got %q, want %d reasons", got, len(want))
			}
			for i, w := range want {
				if !strings.Contains(got[i], w) {
					t.Errorf("reason %d: got %q, want it to name %s", i, got[i], w)
				}
			}
		})
	}
}

// FuzzHeaders: any header value is read without a panic.
func FuzzHeaders(f *testing.F) {
	for _, s := range []string{"tools=()", `tools=("https://a" self);x=1, geolocation=*`, "a, b=?1, c=:aGk=:, d=@1, e=%\"x\", f=1.5", "?0", `"\\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		webmcp.Headers(http.Header{"Permissions-Policy": {s}, "Origin-Agent-Cluster": {s}}, "https://a")
	})
}
