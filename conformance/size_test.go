package conformance_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/conformance"
)

// entriesSite serves one page whose entity "entries" lists n entries.
func entriesSite(t *testing.T, n int) string {
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Reader"})
	site.Route("/", &affordances.RouteOptions{
		Description: "Unread entries",
		State: func(context.Context, *affordances.Request) (*affordances.State, error) {
			entries := make([]map[string]any, n)
			for i := range entries {
				entries[i] = map[string]any{"id": i + 1, "title": fmt.Sprintf("Entry %d of the feed, with a title of some words", i+1)}
			}
			return &affordances.State{Entities: map[string]any{"entries": entries, "unread": n}}, nil
		},
	})
	srv := httptest.NewServer(site.Handler(http.NotFoundHandler()))
	t.Cleanup(srv.Close)
	return srv.URL
}

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
			rep := conformance.Run(t.Context(), entriesSite(t, tc.entries), nil)
			res, _ := rep.Result("v0.size.tokens")
			if res.Outcome != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Errorf("v0.size.tokens: got %s (%s), want %s with %q", res.Outcome, res.Reason, tc.want, tc.reason)
			}
			t.Log(res.Reason)
		})
	}
}
