package jsonptr_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/affordances/affordances-go/internal/jsonptr"
)

// TestRoundTrip: the examples of RFC 6901 section 3 and 4 escape and
// split back to their tokens.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		tokens []string
		ptr    string
	}{
		{nil, ""},
		{[]string{"foo"}, "/foo"},
		{[]string{"foo", "0"}, "/foo/0"},
		{[]string{""}, "/"},
		{[]string{"a/b"}, "/a~1b"},
		{[]string{"m~n"}, "/m~0n"},
		{[]string{"~1"}, "/~01"}, // "~01" is "~1", not "/"
		{[]string{"a", "", "b"}, "/a//b"},
	} {
		if got := jsonptr.Format(tc.tokens); got != tc.ptr {
			t.Errorf("Format(%q): got %q, want %q", tc.tokens, got, tc.ptr)
		}
		got, err := jsonptr.Split(tc.ptr)
		if err != nil || !slices.Equal(got, tc.tokens) {
			t.Errorf("Split(%q): got %q, %v; want %q", tc.ptr, got, err, tc.tokens)
		}
	}
	if got := jsonptr.Append("/address", "c/o"); got != "/address/c~1o" {
		t.Errorf("Append: got %q, want /address/c~1o", got)
	}
	for _, bad := range []string{"foo", "/a~", "/a~2"} {
		if toks, err := jsonptr.Split(bad); err == nil {
			t.Errorf("Split(%q): got %q, want an error", bad, toks)
		}
	}
}

// TestGet: a pointer finds its value, and one to nothing finds nothing.
func TestGet(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"foo":["bar","baz"],"":0,"a/b":1,"m~n":8,"n":null}`), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ptr  string
		want string // JSON; "" when absent
	}{
		{"", `{"":0,"a/b":1,"foo":["bar","baz"],"m~n":8,"n":null}`},
		{"/foo/0", `"bar"`},
		{"/", `0`},
		{"/a~1b", `1`},
		{"/m~0n", `8`},
		{"/n", `null`},
		{"/foo/2", ""},
		{"/foo/01", ""},
		{"/foo/-1", ""},
		{"/foo/+1", ""},
		{"/missing", ""},
		{"/foo/0/x", ""},
	} {
		v, ok := jsonptr.Get(doc, tc.ptr)
		got := ""
		if ok {
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != tc.want {
			t.Errorf("Get(%q): got %s, want %s", tc.ptr, got, tc.want)
		}
	}
}
