package graphsize_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/graphsize"
)

func TestWeigh(t *testing.T) {
	var entries []string
	for i := range 300 {
		entries = append(entries, fmt.Sprintf(`{"id":%d,"title":"Entry number %d, a title of some words"}`, i, i))
	}
	for _, tc := range []struct {
		name, graph, part, ptr string
		over                   bool
	}{
		{"entities", `{"v":0,"page":"/unread","entities":{"entries":[` + strings.Join(entries, ",") + `],"count":300},"actions":[],"nav":[]}`, "entity 'entries'", "/entities/entries", true},
		{"md", `{"v":0,"page":"/","entities":{"a":"b"},"md":"` + strings.Repeat("word after word ", 1500) + `"}`, "'md'", "/md", true},
		{"small", `{"v":0,"page":"/","entities":{"a":1,"b":"two words"}}`, "entity 'b'", "/entities/b", false},
		{"not JSON", `not a graph`, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := graphsize.Weigh([]byte(tc.graph))
			if err != nil {
				t.Fatal(err)
			}
			if w.Part != tc.part || w.Pointer != tc.ptr || w.Over() != tc.over {
				t.Errorf("got %q at %q, over %v (%s); want %q at %q, over %v", w.Part, w.Pointer, w.Over(), w, tc.part, tc.ptr, tc.over)
			}
			if w.Part != "" && (w.PartTokens <= 0 || w.PartTokens > w.Tokens) {
				t.Errorf("got part %d of %d tokens", w.PartTokens, w.Tokens)
			}
		})
	}
}

func TestComma(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 7670: "7,670", 1234567: "1,234,567", -2000: "-2,000"} {
		if got := graphsize.Comma(n); got != want {
			t.Errorf("Comma(%d): got %q, want %q", n, got, want)
		}
	}
}
