package affordancestest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/affordancestest"
)

type (
	noInput  struct{}
	addInput struct {
		Slug     string `json:"slug" affordances:"minLength=1"`
		Quantity int    `json:"quantity,omitempty" affordances:"minimum=1,maximum=99"`
	}
	added struct {
		Count int `json:"count"`
	}
)

// shop is a small site of the publisher in the root package, so that these
// tests check what it really writes against the schemas.
func shop(t *testing.T) http.Handler {
	t.Helper()
	cart := 0
	site := affordances.NewSite(&affordances.SiteOptions{
		Name: "Shop",
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			if r.Header.Get("Authorization") == "Bearer good" {
				return affordances.Principal{ID: "u1"}, nil
			}
			return affordances.Principal{}, nil
		},
	})
	product := site.Route("/products/[slug]", &affordances.RouteOptions{
		Description: "One product",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return &affordances.State{
				Entities: map[string]any{"product": map[string]any{"slug": r.Param("slug")}, "cart": cart},
				Nav:      []affordances.NavLink{{To: "/", Label: "Catalog"}},
			}, nil
		},
	})
	affordances.AddAction(product, &affordances.Action{
		Name: "addToCart", Description: "Add this product to the cart", Expose: affordances.ExposeSession, Effects: []string{"cart"},
	}, func(ctx context.Context, r *affordances.Request, in addInput) (added, error) {
		cart += max(in.Quantity, 1)
		return added{Count: cart}, nil
	})
	affordances.AddAction(product, &affordances.Action{
		Name: "buyNow", Description: "Buy this product now", Expose: affordances.ExposeConfirm,
		GuardText: "the cart is empty",
		Guard:     func(ctx context.Context, r *affordances.Request) (bool, string) { return true, "" },
		Summary: affordances.Summarize(func(ctx context.Context, r *affordances.Request, _ noInput) (string, error) {
			return "Buy one " + r.Param("slug") + ".", nil
		}),
	}, func(ctx context.Context, r *affordances.Request, _ noInput) (noInput, error) {
		return noInput{}, nil
	})
	return site.Handler(http.NotFoundHandler())
}

// TestPublisherWritesValidDocuments checks every kind of document the root
// package's publisher writes.
func TestPublisherWritesValidDocuments(t *testing.T) {
	h := shop(t)
	tests := []struct {
		name, method, path, auth, body string
		status                         int
		check                          func(testing.TB, []byte)
	}{
		{"graph, anonymous (docs/protocol.md §7 (Graph))", "GET", "/products/canvas-tote", "", "", 200, affordancestest.CheckGraph},
		{"graph, signed in (docs/protocol.md §7 (Graph))", "GET", "/products/canvas-tote", "Bearer good", "", 200, affordancestest.CheckGraph},
		{"site index (docs/protocol.md §24 (Site index))", "GET", "/.well-known/affordances.json", "", "", 200, affordancestest.CheckIndex},
		{"delta of a call (docs/protocol.md §22 (Delta))", "POST", "/products/canvas-tote", "Bearer good", `{"action":"addToCart","input":{"slug":"canvas-tote","quantity":2}}`, 200, affordancestest.CheckDelta},
		{"not_found delta (docs/protocol.md decision 2)", "POST", "/products/canvas-tote", "Bearer good", `{"action":"nope"}`, 404, affordancestest.CheckDelta},
		{"unauthorized delta (docs/protocol.md decision 2)", "POST", "/products/canvas-tote", "", `{"action":"addToCart","input":{"slug":"x"}}`, 401, affordancestest.CheckDelta},
		{"invalid_input delta with issues (docs/protocol.md decision 2)", "POST", "/products/canvas-tote", "Bearer good", `{"action":"addToCart","input":{"slug":""}}`, 400, affordancestest.CheckDelta},
		{"confirm_required delta (docs/protocol.md §18 (Call), step 6)", "POST", "/products/canvas-tote", "Bearer good", `{"action":"buyNow"}`, 428, affordancestest.CheckDelta},
		{"page without a graph (docs/protocol.md §3 (Discovery))", "GET", "/nowhere", "", "", 404, affordancestest.CheckDelta},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req *http.Request
			if tt.method == "POST" {
				affordancestest.CheckCall(t, []byte(tt.body))
				req = httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
				req.Header.Set("Content-Type", affordances.MediaType)
			} else {
				req = httptest.NewRequest(tt.method, tt.path, nil)
			}
			req.Header.Set("Accept", affordances.MediaType)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("got status %d, want %d; body: %s", rec.Code, tt.status, rec.Body)
			}
			tt.check(t, rec.Body.Bytes())
		})
	}
}
