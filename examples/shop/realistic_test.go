package shop_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/graphsize"
)

// realisticShop opens a shop of the realistic seed in a new directory.
func realisticShop(t *testing.T) *agent {
	t.Helper()
	_, srv := demotest.Shop(t, &shop.Options{DataDir: t.TempDir(), DemoToken: demoToken, Seed: "realistic"}, nil)
	return newAgent(t, srv, demoToken)
}

// TestRealisticSeed: the realistic seed holds about 200 products, the
// demo's first and as they are; the catalog pages them 24 at a time in
// the graph and the HTML alike, every graph under 2,000 tokens
// (docs/protocol.md §12); a product with more reviews than its page lists
// links them all.
func TestRealisticSeed(t *testing.T) {
	alice := realisticShop(t)
	_, g := alice.graph("/")
	var first struct {
		Total   int `json:"total"`
		Results []struct {
			Slug string `json:"slug"`
		} `json:"results"`
		Page struct {
			Number int `json:"page"`
			Pages  int `json:"pages"`
			Size   int `json:"size"`
		} `json:"resultsPage"`
	}
	entities(t, g, &first)
	if first.Total != 206 || first.Page.Number != 1 || first.Page.Pages != 9 || first.Page.Size != 24 || len(first.Results) != 24 {
		t.Fatalf("got %d products, page %+v of %d results, want 206, page 1 of 9 of 24", first.Total, first.Page, len(first.Results))
	}
	var slugs []string
	for _, r := range first.Results[:4] {
		slugs = append(slugs, r.Slug)
	}
	if want := []string{"heavyweight-tee", "pocket-tee", "striped-long-sleeve", "merino-crew"}; !slices.Equal(slugs, want) {
		t.Errorf("got the catalog starting %v, want the demo's products first, %v", slugs, want)
	}
	if !slices.Contains(g.Nav, affordances.NavLink{To: "/?page=2", Label: "Next 24 of 206 products"}) {
		t.Errorf("the catalog's nav has no link to its next page: %v", g.Nav)
	}
	_, html := alice.page("/")
	if !strings.Contains(html, `<a href="/?page=2">Next page →</a>`) || !strings.Contains(html, "page 1 of 9") {
		t.Errorf("the catalog's HTML page does not link its next page")
	}
	if status, _ := alice.graph("/?page=10"); status != http.StatusNotFound {
		t.Errorf("GET /?page=10: got %d, want 404", status)
	}
	for _, path := range []string{"/", "/?page=9", "/?category=tees", "/?category=tees&page=3", "/?q=tote",
		"/products/slub-cotton-crew-tee", "/products/fisherman-beanie", "/products/fisherman-beanie/reviews"} {
		resp, body := alice.do(http.MethodGet, path, http.Header{"Accept": {affordances.MediaType}}, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: got %d, want 200", path, resp.StatusCode)
			continue
		}
		w, err := graphsize.Weigh(body)
		if err != nil {
			t.Fatal(err)
		}
		if w.Over() {
			t.Errorf("%s: %s, want under %d", path, w, graphsize.Ceiling)
		}
	}

	// fisherman-beanie has 12 reviews: the product page shows 10, its
	// graph 3, and both link the page of them all, 10 a page.
	_, g = alice.graph("/products/fisherman-beanie")
	if !slices.Contains(g.Nav, affordances.NavLink{To: "/products/fisherman-beanie/reviews", Label: "All 12 reviews"}) {
		t.Errorf("the product's nav does not link its reviews: %v", g.Nav)
	}
	if _, html := alice.page("/products/fisherman-beanie"); !strings.Contains(html, `<a href="/products/fisherman-beanie/reviews">All 12 reviews</a>`) {
		t.Errorf("the product page does not link its reviews")
	}
	_, g = alice.graph("/products/fisherman-beanie/reviews?page=2")
	var second struct {
		Reviews []json.RawMessage `json:"reviews"`
	}
	entities(t, g, &second)
	if len(second.Reviews) != 2 || !slices.Contains(g.Nav, affordances.NavLink{To: "/products/fisherman-beanie/reviews", Label: "Previous 10 of 12 reviews"}) {
		t.Errorf("page 2 of the reviews: got %d reviews and nav %v, want 2 and a link to page 1", len(second.Reviews), g.Nav)
	}
	if _, html := alice.page("/products/fisherman-beanie/reviews"); !strings.Contains(html, `href="/products/fisherman-beanie/reviews?page=2"`) {
		t.Errorf("the reviews' HTML page does not link its next page")
	}
}

// TestRealisticSeedIsFixed: two seedings make the same catalog and
// reviews.
func TestRealisticSeedIsFixed(t *testing.T) {
	a, b := realisticShop(t), realisticShop(t)
	for _, path := range []string{"/?page=5", "/products/linen-place-mat", "/products/fisherman-beanie/reviews?page=2"} {
		_, ga := a.do(http.MethodGet, path, http.Header{"Accept": {affordances.MediaType}}, nil)
		_, gb := b.do(http.MethodGet, path, http.Header{"Accept": {affordances.MediaType}}, nil)
		if string(ga) != string(gb) {
			t.Errorf("%s differs between two seedings:\n%s\n%s", path, ga, gb)
		}
	}
}

// entities decodes g's entities into v.
func entities(t *testing.T, g affordances.Graph, v any) {
	t.Helper()
	b, err := json.Marshal(g.Entities)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
