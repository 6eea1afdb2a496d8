package crawl

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
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

// TestCredentials: an agent's requests carry the token, else the session
// with the site's Origin (a cookie call's, docs/protocol.md decision 4); a person's
// carry the session, the Origin on a POST only, else the token; Lacks
// names, as the command line does, what a reader needs and has not.
func TestCredentials(t *testing.T) {
	const origin = "http://blog.test"
	session := []*http.Cookie{{Name: "sid", Value: "s1"}, {Name: "lang", Value: "en"}}
	both := Credentials{Token: "tok", Cookies: session}
	for _, tc := range []struct {
		name   string
		c      Credentials
		r      Reader
		method string
		want   string      // what Authorize returns
		header http.Header // what it sets
		lacks  string
	}{
		{"agent with both", both, Agent, "GET", FlagToken, http.Header{"Authorization": {"Bearer tok"}}, ""},
		{"person with both", both, Person, "GET", FlagCookieJar, http.Header{"Cookie": {"sid=s1; lang=en"}}, ""},
		{"person posts a form", both, Person, "POST", FlagCookieJar, http.Header{"Cookie": {"sid=s1; lang=en"}, "Origin": {origin}}, ""},
		{"agent with a session alone", Credentials{Cookies: session}, Agent, "GET", FlagCookieJar, http.Header{"Cookie": {"sid=s1; lang=en"}, "Origin": {origin}}, ""},
		{"person with a token alone", Credentials{Token: "tok"}, Person, "GET", FlagToken, http.Header{"Authorization": {"Bearer tok"}}, "--cookie-jar"},
		{"anonymous agent", Credentials{}, Agent, "GET", "", http.Header{}, "--token or --cookie-jar"},
		{"anonymous person", Credentials{}, Person, "GET", "", http.Header{}, "--cookie-jar"},
		{"nobody", both, Nobody, "POST", "", http.Header{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if got := tc.c.Authorize(h, tc.r, tc.method, origin); got != tc.want {
				t.Errorf("Authorize: got %q, want %q", got, tc.want)
			}
			if !reflect.DeepEqual(h, tc.header) {
				t.Errorf("headers: got %v, want %v", h, tc.header)
			}
			if got := tc.c.Lacks(tc.r); got != tc.lacks {
				t.Errorf("Lacks: got %q, want %q", got, tc.lacks)
			}
		})
	}
}

// TestAnswered: a redirect is named for where it leads, relative to the
// site; 304 is no redirect, and no sign-in.
func TestAnswered(t *testing.T) {
	for _, tc := range []struct {
		status   int
		location string
		want     string
		signIn   bool
	}{
		{303, "http://blog.test/login?next=%2Funread", "GET /unread answered 303 to /login?next=%2Funread", true},
		{302, "https://sso.example/auth", "GET /unread answered 302 to https://sso.example/auth", true},
		{401, "", "GET /unread answered 401 Unauthorized", true},
		{304, "", "GET /unread answered 304 Not Modified", false},
		{404, "", "GET /unread answered 404 Not Found", false},
	} {
		if got := Answered("GET", "/unread", tc.status, tc.location, "http://blog.test"); got != tc.want {
			t.Errorf("Answered(%d, %q): got %q, want %q", tc.status, tc.location, got, tc.want)
		}
		if got := SignIn(tc.status); got != tc.signIn {
			t.Errorf("SignIn(%d): got %v, want %v", tc.status, got, tc.signIn)
		}
	}
}

// TestNoRedirects: the copy follows no redirect; the client it copies
// still does.
func TestNoRedirects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/unread" {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
		}
	}))
	defer srv.Close()
	orig := &http.Client{}
	res, err := NoRedirects(orig).Get(srv.URL + "/unread")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login" {
		t.Errorf("got %d to %q, want 303 to /login", res.StatusCode, res.Header.Get("Location"))
	}
	if orig.CheckRedirect != nil {
		t.Error("NoRedirects changed the client it copied")
	}
}
