package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/graphsize"
)

// TestRealisticSeed: -seed realistic gives the relaunch 100 tasks and the
// offsite 20, the demo's keeping their ids; a board of more than 25 pages
// its tasks, each page the next cards of every column, its graph under
// the protocol's 2,000 tokens (docs/protocol.md §12) and its HTML page linking the next page as the
// graph's nav does.
func TestRealisticSeed(t *testing.T) {
	_, srv := serveBoard(t, options{Token: demoToken, Realistic: true}, nil)
	alice := newClient(t, srv, demoToken)
	_, g := alice.graph("/boards")
	var counts []string
	for _, b := range g.Entities["yours"].([]any) {
		b := b.(map[string]any)
		counts = append(counts, fmt.Sprint(b["slug"], " ", b["tasks"]))
	}
	if want := []string{"team-offsite 20", "website-relaunch 100"}; !slices.Equal(counts, want) {
		t.Errorf("got boards %v, want %v", counts, want)
	}
	_, g = alice.graph("/boards/website-relaunch")
	if page, _ := g.Entities["tasksPage"].(map[string]any); page["pages"] != 4.0 || page["total"] != 100.0 {
		t.Errorf("got tasksPage %v, want 4 pages of 100 tasks", page)
	}
	if !slices.Contains(g.Nav, affordances.NavLink{To: "/boards/website-relaunch?page=2", Label: "Next 25 of 100 tasks"}) {
		t.Errorf("the board's nav does not link its next page: %v", g.Nav)
	}
	if cols := tasks(g); len(cols["todo"]) != 9 || len(cols["doing"]) != 8 || len(cols["done"]) != 8 {
		t.Errorf("the first page has %d, %d and %d tasks to do, doing and done, want the first 9, 8 and 8 of each column", len(cols["todo"]), len(cols["doing"]), len(cols["done"]))
	}
	if titles := tasks(g)["todo"]; !slices.Contains(titles, "Pick a typeface for headings") || !slices.Contains(titles, "Redirect the old blog URLs") {
		t.Errorf("the demo's tasks to do are not on the first page: %v", titles)
	}
	_, html := alice.page("/boards/website-relaunch")
	if !strings.Contains(html, `<a href="/boards/website-relaunch?page=2">Next page →</a>`) || !strings.Contains(html, "Page 1 of 4") {
		t.Errorf("the board's HTML page does not link its next page")
	}
	for _, path := range []string{"/boards/website-relaunch", "/boards/website-relaunch?page=2", "/boards/website-relaunch?page=4", "/boards/team-offsite", "/boards/website-relaunch?q=the"} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Accept", affordances.MediaType)
		req.Header.Set("Authorization", "Bearer "+demoToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		w, err := graphsize.Weigh(body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK || w.Over() {
			t.Errorf("%s: got %d, %s, want 200 under %d", path, resp.StatusCode, w, graphsize.Ceiling)
		}
	}
	if status, _ := alice.graph("/boards/website-relaunch?page=5"); status != http.StatusNotFound {
		t.Errorf("page 5 of 4: got %d, want 404", status)
	}
}
