package mediatype

import (
	"strings"
	"testing"
)

const aff = "application/vnd.affordances+json"

// TestAccepts: docs/protocol.md decision 3, a request asks when Accept lists the
// media type with q > 0; wildcards never ask.
func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   bool
	}{
		{aff, true},
		{" " + aff + " ", true},
		{"APPLICATION/VND.AFFORDANCES+JSON", true},
		{aff + ";q=1", true},
		{aff + ";q=1.000", true},
		{aff + ";q=0.5", true},
		{aff + "; charset=utf-8; q=0.1", true},
		{aff + ";Q=0.1", true},
		{aff + ";q=0", false},
		{aff + ";q=0.", false},
		{aff + ";q=0.0", false},
		{aff + ";q=0.000", false},
		{aff + ";q=1.5", false},
		{aff + ";q=-1", false},
		{aff + ";q=abc", false},
		{aff + ";q=1e0", false},
		{aff + ";q=0x1", false},
		{aff + ";q=", false},
		{"text/html, " + aff + ";q=0.2", true},
		{aff + ";q=0, text/html", false},
		{aff + ";q=0, " + aff, true},
		{"*/*", false},
		{"application/*", false},
		{"application/json", false},
		{"application/vnd.affordances+json2", false},
		{"", false},
		{",,,", false},
		{aff + `;ext="a,b";q=0, text/html`, false},
		{aff + `;ext="a;q=0";q=0.5`, true},
		{aff + `;ext="a\"b,c";q=0`, false},
	} {
		if got := Accepts([]string{tc.accept}, aff); got != tc.want {
			t.Errorf("Accepts(%q): got %v, want %v", tc.accept, got, tc.want)
		}
	}
}

// TestAcceptsLines: several Accept lines are one list.
func TestAcceptsLines(t *testing.T) {
	if !Accepts([]string{"text/html", aff}, aff) {
		t.Error("the media type on a second Accept line: got false, want true")
	}
	if Accepts(nil, aff) {
		t.Error("no Accept: got true, want false")
	}
}

func TestIs(t *testing.T) {
	for _, tc := range []struct {
		ct   string
		want bool
	}{
		{aff, true},
		{aff + "; charset=utf-8", true},
		{"Application/Vnd.Affordances+Json", true},
		{"application/json", false},
		{"application/x-www-form-urlencoded", false},
		{"", false},
	} {
		if got := Is(tc.ct, aff); got != tc.want {
			t.Errorf("Is(%q): got %v, want %v", tc.ct, got, tc.want)
		}
	}
}

// FuzzAccepts: the Accept parser reads network input; it must never panic,
// and a header that only lists other types, or the type with q=0, never
// asks.
func FuzzAccepts(f *testing.F) {
	for _, s := range []string{aff, aff + ";q=0", "text/html,*/*;q=0.8", aff + ";q=0.5;level=1", ";;,=q=", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		got := Accepts([]string{accept}, aff)
		if got && !strings.Contains(strings.ToLower(accept), aff) {
			t.Fatalf("Accepts(%q) without the media type", accept)
		}
		if zero := Accepts([]string{accept, aff + ";q=0"}, aff); zero != got {
			t.Fatalf("adding a line with a q=0 range changed the answer for %q", accept)
		}
	})
}
