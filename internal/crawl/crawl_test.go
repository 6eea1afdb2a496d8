package crawl

import (
	"net/url"
	"slices"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// TestWalk: breadth-first from the start pages, each page once, links of
// other sites and fragments left out, at most max pages.
func TestWalk(t *testing.T) {
	site := map[string][]string{
		"/":      {"/a", "/b#top", "https://elsewhere.example/x", "//elsewhere.example/y", "mailto:x@example.com", "/a"},
		"/a":     {"/", "/a/1?q=2"},
		"/b":     {"/b", "/c"},
		"/login": {"/"},
	}
	for _, tc := range []struct {
		name    string
		start   []string
		max     int
		want    []string
		bounded bool
	}{
		{"from /", []string{"/"}, 50, []string{"/", "/a", "/b", "/a/1?q=2", "/c"}, false},
		{"the start pages first", []string{"/", "/login", "/"}, 50, []string{"/", "/login", "/a", "/b", "/a/1?q=2", "/c"}, false},
		{"bounded", []string{"/"}, 3, []string{"/", "/a", "/b"}, true},
		{"bounded at the last page", []string{"/"}, 5, []string{"/", "/a", "/b", "/a/1?q=2", "/c"}, false},
		{"a start that is no path", []string{"https://elsewhere.example/", "/b"}, 50, []string{"/b", "/c"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			bounded := Walk(tc.start, tc.max, func(path string) []string {
				got = append(got, path)
				return site[path]
			})
			if !slices.Equal(got, tc.want) {
				t.Errorf("visited %q, want %q", got, tc.want)
			}
			if bounded != tc.bounded {
				t.Errorf("bounded: got %v, want %v", bounded, tc.bounded)
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	idx := &affordances.SiteIndex{Routes: []affordances.RouteSummary{{Route: "/"}, {Route: "/products/[slug]"}, {Route: "/cart"}}}
	m := &aal.Manifest{Routes: []aal.ManifestRoute{{Route: "/cart"}, {Route: "/docs/[...path]"}, {Route: "/help"}}}
	if got, want := Routes(idx, m), []string{"/", "/cart", "/help"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Routes(nil, nil); got != nil {
		t.Errorf("no index, no manifest: got %q, want none", got)
	}
}

func TestFragment(t *testing.T) {
	m := &aal.Manifest{Routes: []aal.ManifestRoute{
		{Route: "/", Fragment: "/.well-known/agent-affordances/index.json"},
		{Route: "/products/[slug]", Fragment: "/.well-known/agent-affordances/products/[slug].json"},
	}}
	for _, tc := range []struct{ route, path, want string }{
		{"/", "/", "/.well-known/agent-affordances/index.json"},
		{"/", "/?q=tote&page=2", "/.well-known/agent-affordances/index.json?q=tote&page=2"},
		{"/products/[slug]", "/products/canvas-tote", "/.well-known/agent-affordances/products/canvas-tote.json"},
		{"/cart", "/cart", ""},
	} {
		if got := Fragment(m, tc.route, tc.path); got != tc.want {
			t.Errorf("Fragment(%s, %s): got %q, want %q", tc.route, tc.path, got, tc.want)
		}
	}
	if got := Fragment(nil, "/", "/"); got != "" {
		t.Errorf("no manifest: got %q, want \"\"", got)
	}
}

func TestNav(t *testing.T) {
	g := &affordances.Graph{Nav: []affordances.NavLink{{To: "/cart", Label: "Cart"}, {To: "https://example.com/", Label: "Out"}}}
	if got, want := Nav(g), []string{"/cart", "https://example.com/"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestHTMLLinks: the a[href] of a page, resolved against it, within its
// origin, with their queries.
func TestHTMLLinks(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:8080/products/tee?color=red")
	body := []byte(`<!doctype html><head><link rel="stylesheet" href="/app.css"></head><body>
<a href="/cart">Cart</a> <a href="cap">Cap</a> <a href="?color=blue#sizes">Blue</a>
<a href="http://127.0.0.1:8080/">Home</a> <a href="https://127.0.0.1:8080/secure">TLS</a>
<a href="http://elsewhere.example/">Out</a> <a href="mailto:a@example.com">Mail</a> <a>no href</a></body>`)
	want := []string{"/cart", "/products/cap", "/products/tee?color=blue", "/"}
	if got := HTMLLinks(base, body); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
