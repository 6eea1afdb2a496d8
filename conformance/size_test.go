package conformance_test

import (
	"strings"
	"testing"

	"github.com/affordances/affordances-go/conformance"
	"github.com/affordances/affordances-go/internal/demotest"
)

// TestSizeNamesTheEntity: v0.size.tokens fails a graph over 2,000 tokens
// naming the entity that weighs most, and passes a small one (issue 28).
func TestSizeNamesTheEntity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		entries int
		want    conformance.Outcome
		reason  string
	}{
		{"300 entries", 300, conformance.Fail, "entity 'entries' is "},
		{"5 entries", 5, conformance.Pass, "largest "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := conformance.Run(t.Context(), demotest.Entries(t, tc.entries), nil)
			res, _ := rep.Result("v0.size.tokens")
			if res.Outcome != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Errorf("v0.size.tokens: got %s (%s), want %s with %q", res.Outcome, res.Reason, tc.want, tc.reason)
			}
			t.Log(res.Reason)
		})
	}
}
