package affordances

import "testing"

// TestMuxRank: chi's and gorilla/mux's patterns rank as ServeMux's do.
func TestMuxRank(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		rank    int
	}{
		{"GET /posts/new", 5},
		{"/posts/{id}", 3},
		{"/posts/{id...}", 2},
		{"/posts/", 2},
		{"/posts/{$}", 3},
		{"/posts/*", 2},                 // chi: everything below
		{"/posts/{id:[0-9]+}", 3},       // a regexp is one wildcard segment
		{"/posts/{id:[0-9]{1,3}}", 3},   // braces in the regexp
		{"/posts/{id:[a-z/]+}/edit", 5}, // a slash in the regexp splits nothing
		{"/posts/{id}.json", 4},         // text and a wildcard: between
		{"/posts/{a}-{b}", 4},
		{"/post*", 1},
	} {
		if rank, ok := muxRank(tc.pattern); !ok || rank != tc.rank {
			t.Errorf("muxRank(%q): got %d %v, want %d", tc.pattern, rank, ok, tc.rank)
		}
	}
	if _, ok := muxRank(""); ok {
		t.Errorf(`muxRank(""): got ok, want none`)
	}
}
