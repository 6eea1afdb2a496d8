package affordances_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
)

// TestMuxPatterns: one pattern string, in http.ServeMux syntax, serves the
// app's mux and the site; the wire writes it as the protocol does, and the
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
	patterns := []string{"/{$}", "/boards/{board}", "/boards/new", "/files/{path...}", "/files/{dir}/readme", "/old/[id]", "/docs/[...page]",
		"/me/posts/", "/tags/{tag}/{$}", "/tags/{tag}"}
	mux := http.NewServeMux()
	for _, p := range patterns {
		site.Route(p, &affordances.RouteOptions{State: params("board", "path", "dir", "id", "page", "tag")})
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
		// A trailing slash is part of the page, as apps write them (issue
		// 27, clash 11): "/me/posts/" is "/me/posts/{$}", that page alone.
		{"/me/posts/", "/me/posts/", nil},
		{"/tags/go/", "/tags/[tag]/", map[string]string{"tag": "go"}},
		{"/tags/go", "/tags/[tag]", map[string]string{"tag": "go"}},
		{"/files/a/b/", "/files/[...path]", map[string]string{"path": "a/b/"}},
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
	// A page ending in / has its AAL fragment at its index.json, as / has.
	for page, fragment := range map[string]string{"/tags/go/": "/.well-known/agent-affordances/tags/go/index.json", "/tags/go": "/.well-known/agent-affordances/tags/go.json"} {
		rec := httptest.NewRecorder()
		site.Handler(mux).ServeHTTP(rec, httptest.NewRequest("GET", fragment, nil))
		var f struct{ Page string }
		if err := json.Unmarshal(rec.Body.Bytes(), &f); rec.Code != 200 || err != nil || f.Page != page {
			t.Errorf("GET %s: got %d %s, want the fragment of %s", fragment, rec.Code, rec.Body, page)
		}
	}
	for _, path := range []string{"/boards", "/boards/", "/boards/a/b", "/files", "/files/", "/files/a//b", "/old/7/8", "/me/posts", "/me/posts/x", "/old/7/", "/tags//"} {
		if res := do(t, site.Handler(mux), get(path)); res.status != http.StatusNotFound {
			t.Errorf("GET %s: got %d, want 404 (%s)", path, res.status, res.body)
		}
	}
}

// TestActionRateLimitedHasRetryAfter: an action that answers rate_limited
// itself (a sign-in lockout) sends 429 with Retry-After, as the limiter's
// refusals do (docs/protocol.md decision 2).
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

// TestAppPatternsWin: the app's own ServeMux patterns take their paths
// from a declared route as ServeMux ranks patterns (issue 27, clash 12):
// the app's /login and /favicon.ico beat a declared /{post}, which keeps
// every other path; a state loader's ErrNotMine gives a path back to the
// app. Either way the path has no graph, no call and no Link header, and
// the person's request reaches the app's handler.
func TestAppPatternsWin(t *testing.T) {
	site := affordances.NewSite(nil)
	posts := site.Route("/{post}", &affordances.RouteOptions{State: func(_ context.Context, r *affordances.Request) (*affordances.State, error) {
		if r.Param("post") == "drafts" {
			return nil, affordances.ErrNotMine
		}
		return &affordances.State{Entities: map[string]any{"post": r.Param("post")}}, nil
	}})
	affordances.AddAction(posts, &affordances.Action{Name: "like", Description: "Like the post", Expose: affordances.ExposePublic}, noop)
	mux := http.NewServeMux()
	for _, p := range []string{"GET /{post}", "GET /login", "POST /login", "GET /favicon.ico", "GET /drafts"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			_, err := affordances.PageFrom(r.Context()).State()
			io.WriteString(w, p+" "+string(affordances.CodeOf(err)))
		})
	}
	h := site.Handler(mux)
	for _, tc := range []struct {
		path  string
		ours  bool
		wants string // what the app's handler writes for the HTML page
	}{
		{"/hello", true, "GET /{post} "},
		{"/login", false, "GET /login not_found"},
		{"/favicon.ico", false, "GET /favicon.ico not_found"},
		{"/drafts", false, "GET /drafts not_found"},
	} {
		graph := do(t, h, get(tc.path))
		call := do(t, h, post(tc.path, `{"action":"like"}`))
		if tc.ours != (graph.status == 200) || tc.ours != (call.status == 200) {
			t.Errorf("%s: graph %d, call %d; want both 200: %v", tc.path, graph.status, call.status, tc.ours)
		}
		if !tc.ours && (graph.delta.Error == nil || graph.delta.Error.Code != affordances.NotFound) {
			t.Errorf("%s: the graph request got %s, want not_found", tc.path, graph.body)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
		if rec.Body.String() != tc.wants {
			t.Errorf("%s: the app wrote %q, want %q", tc.path, rec.Body, tc.wants)
		}
		if link := rec.Header().Get("Link"); tc.ours == (link == "") {
			t.Errorf("%s: Link %q; want one only on the route's page", tc.path, link)
		}
	}
	// An app whose router does not say its patterns keeps the site's
	// precedence: /login is the declared /{post}'s.
	plain := site.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	if res := do(t, plain, get("/login")); res.status != 200 {
		t.Errorf("/login under a plain handler: got %d, want the route's graph", res.status)
	}
	// A mux behind the app's middleware says its patterns through
	// SiteOptions.Mux.
	wrapped := affordances.NewSite(&affordances.SiteOptions{Mux: mux})
	wrapped.Route("/{post}", nil)
	h = wrapped.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mux.ServeHTTP(w, r) }))
	if res := do(t, h, get("/login")); res.status != 404 {
		t.Errorf("/login behind middleware with SiteOptions.Mux: got %d, want the app's (404 for a graph)", res.status)
	}
}
