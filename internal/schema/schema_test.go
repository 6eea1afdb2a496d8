package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/schema"
)

// TestIssues: each leaf problem is at the pointer of the value it is
// about, a missing or an unknown property at the property's own, names
// the keyword that failed, and says what is wrong for a developer and for
// a person.
func TestIssues(t *testing.T) {
	s, err := schema.Compile([]byte(`{"type":"object","properties":{"a/b":{"type":"integer","minimum":1},"due":{"type":"string","format":"date"},"tags":{"type":"array","items":{"enum":["x"]}},"q~":{},` +
		`"name":{"type":"string","minLength":3,"maxLength":5},"n":{"type":["integer","null"]}},"required":["q~"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ doc, want string }{
		{`{"q~":1}`, ``},
		{`{}`, `/q~0: is required (required): is required`},
		{`{"q~":1,"a/b":0}`, `/a~1b: minimum: got 0, want 1 (minimum): must be at least 1`},
		{`{"q~":1,"due":"2026-02-30"}`, `/due: must be a real date, as YYYY-MM-DD (format): must be a real date, as YYYY-MM-DD`},
		{`{"q~":1,"tags":["y"]}`, `/tags/0: value must be 'x' (enum): must be "x"`},
		{`{"q~":1,"x/y":1}`, `/x~1y: is not allowed (additionalProperties): is not allowed`},
		{`{"q~":1,"name":"ab"}`, `/name: minLength: got 2, want 3 (minLength): must be at least 3 characters`},
		{`{"q~":1,"name":"abcdef"}`, `/name: maxLength: got 6, want 5 (maxLength): must be at most 5 characters`},
		{`{"q~":1,"n":"two"}`, `/n: got string, want null or integer (type): must be a whole number`},
	} {
		got, err := s.Validate([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, is := range got {
			lines = append(lines, fmt.Sprintf("%s: %s (%s): %s", is.Path, is.Message, is.Keyword, is.Person))
		}
		if got := strings.Join(lines, "\n"); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.doc, got, tc.want)
		}
	}
}

// TestCompileDefs: the named $defs compile on their own and validate as
// they are.
func TestCompileDefs(t *testing.T) {
	ss, err := schema.CompileDefs("https://example.test/s.json", []byte(`{"$defs":{"n":{"type":"integer"},"s":{"type":"string"}}}`), "n", "s")
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range []string{`"x"`, `1`} {
		if got, _ := ss[i].Validate([]byte(doc)); len(got) != 1 || got[0].Keyword != "type" {
			t.Errorf("def %d against %s: got %v, want one type issue", i, doc, got)
		}
	}
	if _, err := schema.CompileDefs("https://example.test/s.json", []byte(`{"$defs":{}}`), "missing"); err == nil {
		t.Error("a missing def: got no error")
	}
}
