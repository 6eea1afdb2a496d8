package affordances

import (
	"strings"
	"testing"
)

// TestActionChanges: a delta's actionsAdded are the actions listed now
// that were not, or whose availability flipped, and its actionsRemoved
// the ones no longer listed, each in the route's order (docs/protocol.md decision 5).
func TestActionChanges(t *testing.T) {
	var declared []*action
	for _, name := range strings.Split("a b c d e f", " ") {
		declared = append(declared, &action{Action: Action{Name: name}, summary: ActionSummary{Name: name}})
	}
	// listing reads "a b- d": a, b unavailable, d.
	listing := func(s string) []listed {
		var ls []listed
		for _, f := range strings.Fields(s) {
			name, off := strings.CutSuffix(f, "-")
			ls = append(ls, listed{a: declared[strings.Index("abcdef", name)], available: !off})
		}
		return ls
	}
	for _, c := range []struct{ before, after, added, removed string }{
		{"", "", "", ""},
		{"a b c", "a b c", "", ""},
		{"a b c", "a b- c", "b-", ""},
		{"a c", "a b c", "b", ""},
		{"a b c", "a c", "", "b"},
		{"a b c d", "b- e", "b- e", "a c d"},
		{"", "a b-", "a b-", ""},
		{"a b- f", "", "", "a b f"},
		{"b d f", "a c e", "a c e", "b d f"},
		{"a- c e", "a b c- d e f", "a b c- d f", ""},
	} {
		added, removed := actionChanges(listing(c.before), listing(c.after))
		var got []string
		for _, d := range added {
			got = append(got, d.Name+map[bool]string{true: "", false: "-"}[d.Available])
		}
		if strings.Join(got, " ") != c.added || strings.Join(removed, " ") != c.removed {
			t.Errorf("from %q to %q: added %q, removed %q; want %q and %q", c.before, c.after, got, removed, c.added, c.removed)
		}
	}
}
