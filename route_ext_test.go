package affordances_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
)

// TestMuxPatterns: one pattern string, in http.ServeMux syntax, serves the
// app's mux and the site; the wire writes it as seed 000 does, and the
// most specific route wins.
func TestMuxPatterns(t *testing.T) {
	site := affordances.NewSite(nil)
	params := func(names ...string) func(context.Context, *affordances.Request) (*affordances.State, error) {
		return func(_ context.Context, r *affordances.Request) (*affordances.State, error) {
			ents := map[string]any{}
			for _, n := range names {
				ents[n] = r.Param(n)
			}
			return &affordances.State{Entities: ents}, nil
		}
	}
	patterns := []string{"/{$}", "/boards/{board}", "/boards/new", "/files/{path...}", "/files/{dir}/readme", "/old/[id]", "/docs/[...page]"}
	mux := http.NewServeMux()
	for _, p := range patterns {
		site.Route(p, &affordances.RouteOptions{State: params("board", "path", "dir", "id", "page")})
		mux.HandleFunc("GET "+p, func(http.ResponseWriter, *http.Request) {})
	}
	for _, tc := range []struct {
		path, route string
		want        map[string]string
	}{
		{"/", "/", nil},
		{"/boards/launch", "/boards/[board]", map[string]string{"board": "launch"}},
		{"/boards/new", "/boards/new", nil},
		{"/files/a", "/files/[...path]", map[string]string{"path": "a"}},
		{"/files/a/b/c.txt", "/files/[...path]", map[string]string{"path": "a/b/c.txt"}},
		{"/files/a/readme", "/files/[dir]/readme", map[string]string{"dir": "a"}},
		{"/old/7", "/old/[id]", map[string]string{"id": "7"}},
		{"/docs/guide/forms", "/docs/[...page]", map[string]string{"page": "guide/forms"}},
		// An escaped slash is part of its segment, as the mux reads it.
		{"/boards/q1%2Fq2", "/boards/[board]", map[string]string{"board": "q1/q2"}},
		{"/files/a%2Fb/readme", "/files/[dir]/readme", map[string]string{"dir": "a/b"}},
		{"/boards/caf%C3%A9", "/boards/[board]", map[string]string{"board": "café"}},
	} {
		res := do(t, site.Handler(mux), get(tc.path))
		if res.status != http.StatusOK || res.graph.Route != tc.route {
			t.Errorf("GET %s: got %d route %q, want 200 %q (%s)", tc.path, res.status, res.graph.Route, tc.route, res.body)
			continue
		}
		for name, want := range tc.want {
			if got := res.graph.Entities[name]; got != want {
				t.Errorf("GET %s: Param(%q) got %q, want %q", tc.path, name, got, want)
			}
		}
	}
	for _, path := range []string{"/boards", "/boards/", "/boards/a/b", "/files", "/files/", "/files/a//b", "/old/7/8"} {
		if res := do(t, site.Handler(mux), get(path)); res.status != http.StatusNotFound {
			t.Errorf("GET %s: got %d, want 404 (%s)", path, res.status, res.body)
		}
	}
}

// TestActionRateLimitedHasRetryAfter: an action that answers rate_limited
// itself (a sign-in lockout) sends 429 with Retry-After, as the limiter's
// refusals do (CLARIFICATIONS 2).
func TestActionRateLimitedHasRetryAfter(t *testing.T) {
	site := affordances.NewSite(nil)
	rt := site.Route("/", nil)
	affordances.AddAction(rt, &affordances.Action{Name: "lockedOut", Description: "Always locked out", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			return struct{}{}, &affordances.Error{Code: affordances.RateLimited, Message: "Too many attempts.", RetryAfter: 90 * time.Second}
		})
	affordances.AddAction(rt, &affordances.Action{Name: "busy", Description: "Rate limited, no wait given", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			return struct{}{}, affordances.NewError(affordances.RateLimited, "Busy.")
		})
	for _, tc := range []struct{ action, retryAfter string }{{"lockedOut", "90"}, {"busy", "1"}} {
		res := do(t, site.Handler(nil), post("/", `{"action":"`+tc.action+`"}`))
		if res.status != http.StatusTooManyRequests || res.header.Get("Retry-After") != tc.retryAfter {
			t.Errorf("%s: got %d Retry-After %q, want 429 Retry-After %q", tc.action, res.status, res.header.Get("Retry-After"), tc.retryAfter)
		}
	}
	// A replay of a kept 429 carries one too: the first wait is gone.
	h := site.Handler(nil)
	do(t, h, post("/", `{"action":"lockedOut"}`, "Idempotency-Key: k1"))
	if res := do(t, h, post("/", `{"action":"lockedOut"}`, "Idempotency-Key: k1")); res.status != 429 || res.header.Get("Idempotent-Replayed") != "true" || res.header.Get("Retry-After") != "1" {
		t.Errorf("replayed 429: got %d Retry-After %q replayed %q", res.status, res.header.Get("Retry-After"), res.header.Get("Idempotent-Replayed"))
	}
}
