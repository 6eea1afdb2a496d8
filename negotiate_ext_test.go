package affordances_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
)

// TestNegotiation checks which requests ask for a graph (docs/protocol.md decision 3;
// docs/protocol.md §2: a server must not return an Affordances document
// for a request that did not ask for one).
func TestNegotiation(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(app)
	for _, tc := range []struct {
		name, method, target, accept string
		wantGraph                    bool
		wantStatus                   int
	}{
		{"exact media type asks", "GET", "/", affordances.MediaType, true, 200},
		{"media type among others asks", "GET", "/", "text/html, " + affordances.MediaType + ";q=0.5", true, 200},
		{"case-insensitive media type asks", "GET", "/", "Application/Vnd.Affordances+JSON", true, 200},
		{"q=0 does not ask", "GET", "/", affordances.MediaType + ";q=0", false, 200},
		{"q=0.000 does not ask", "GET", "/", affordances.MediaType + "; q=0.000", false, 200},
		{"q=0.001 asks", "GET", "/", affordances.MediaType + ";q=0.001", true, 200},
		{"*/* does not ask", "GET", "/", "*/*", false, 200},
		{"application/* does not ask", "GET", "/", "application/*", false, 200},
		{"application/json does not ask", "GET", "/", "application/json", false, 200},
		{"browser Accept does not ask", "GET", "/", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false, 200},
		{"no Accept does not ask", "GET", "/", "", false, 200},
		{"alias asks (docs/protocol.md §3 (Discovery))", "GET", "/?affordances=1", "text/html", true, 200},
		{"alias with other query asks", "GET", "/?q=tee&affordances=1", "", true, 200},
		{"alias other than 1 does not ask", "GET", "/?affordances=0", "", false, 200},
		{"alias beside a malformed parameter asks", "GET", "/?x=%zz&affordances=1", "", true, 200},
		{"alias after affordances=0 asks", "GET", "/?affordances=0&affordances=1", "", true, 200},
		{"q=0 with a quoted comma does not ask", "GET", "/", affordances.MediaType + `;ext="a,b";q=0, text/html`, false, 200},
		{"HEAD asks", "HEAD", "/", affordances.MediaType, true, 200},
		{"page without graph: not_found delta", "GET", "/nowhere", affordances.MediaType, true, 404},
		{"page without graph, not asked: the app's own answer", "GET", "/nowhere", "text/html", false, 404},
		{"loader says not found: 404 delta", "GET", "/items/2", affordances.MediaType, true, 404},
		{"route without loader has a graph", "GET", "/plain", affordances.MediaType, true, 200},
		{"literal route wins over parameter", "GET", "/items/new", affordances.MediaType, true, 200},
		{"trailing slash is another path", "GET", "/items/1/", affordances.MediaType, true, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "http://shop.test"+tc.target, nil)
			if tc.accept != "" {
				r.Header.Set("Accept", tc.accept)
			}
			res := do(t, h, r)
			gotGraph := res.header.Get("Content-Type") == affordances.MediaType
			if gotGraph != tc.wantGraph {
				t.Errorf("Affordances document: got %v, want %v (Content-Type %q)", gotGraph, tc.wantGraph, res.header.Get("Content-Type"))
			}
			if res.status != tc.wantStatus {
				t.Errorf("status: got %d, want %d", res.status, tc.wantStatus)
			}
			if tc.method == "HEAD" && len(res.body) != 0 {
				t.Errorf("HEAD body: got %d bytes, want none", len(res.body))
			}
			if tc.wantGraph && tc.wantStatus == 404 && res.code() != affordances.NotFound {
				t.Errorf("code: got %q, want not_found", res.code())
			}
		})
	}
}

// TestAcceptOnTwoLines: several Accept header lines are one list (RFC
// 9110, 5.3), so the media type on the second line asks.
func TestAcceptOnTwoLines(t *testing.T) {
	site, _ := testSite(t, nil)
	r := httptest.NewRequest("GET", "http://shop.test/", nil)
	r.Header.Add("Accept", "text/html")
	r.Header.Add("Accept", affordances.MediaType)
	if res := do(t, site.Handler(app), r); res.header.Get("Content-Type") != affordances.MediaType {
		t.Errorf("got %q, want the graph", res.header.Get("Content-Type"))
	}
}

// TestAliasRemovedFromQuery: the loader must not see affordances=1, and the
// rest of the query survives (docs/protocol.md §3).
func TestAliasRemovedFromQuery(t *testing.T) {
	site, _ := testSite(t, nil)
	res := do(t, site.Handler(app), get("/?q=tee&affordances=1&x=%zz"))
	if _, ok := res.graph.Entities["sawAlias"]; ok {
		t.Errorf("the loader saw affordances in the query")
	}
	if got := res.graph.Entities["q"]; got != "tee" {
		t.Errorf("q: got %v, want tee", got)
	}
	if res.graph.Page != "/" {
		t.Errorf("page: got %q, want /", res.graph.Page)
	}
}

// TestHeaders checks the caching and discovery headers of both
// representations (docs/protocol.md decision 3; docs/protocol.md §3).
func TestHeaders(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(app)
	html := func(path string) *http.Request {
		r := httptest.NewRequest("GET", "http://shop.test"+path, nil)
		r.Header.Set("Accept", "text/html")
		return r
	}
	for _, tc := range []struct {
		name string
		req  *http.Request
		want map[string]string // "" means absent
	}{
		{"graph", get("/"), map[string]string{
			"Content-Type": affordances.MediaType, "Vary": "Accept", "Cache-Control": "private, no-store", "Link": ""}},
		{"graph by HEAD", with(httptest.NewRequest("HEAD", "http://shop.test/", nil), []string{"Accept: " + affordances.MediaType}), map[string]string{
			"Content-Type": affordances.MediaType, "Vary": "Accept", "Cache-Control": "private, no-store"}},
		{"not_found delta", get("/nowhere"), map[string]string{
			"Content-Type": affordances.MediaType, "Vary": "Accept", "Cache-Control": "private, no-store"}},
		{"delta", post("/", `{"action":"ping"}`), map[string]string{
			"Content-Type": affordances.MediaType, "Vary": "Accept", "Cache-Control": "private, no-store"}},
		{"HTML page with a graph", html("/"), map[string]string{
			"Content-Type": "text/html; charset=utf-8", "Vary": "Accept", "Link": `<?affordances=1>; rel="affordances", </llms.txt>; rel="alternate"; type="text/markdown"`, "Cache-Control": ""}},
		{"HTML page with a query keeps it in the Link", html("/?q=tote&x=%zz"), map[string]string{
			"Link": `<?q=tote&x=%zz&affordances=1>; rel="affordances", </llms.txt>; rel="alternate"; type="text/markdown"`}},
		{"HTML page whose query holds bytes a URI may not: encoded", html("/?q=%3E"), map[string]string{
			"Link": `<?q=%3E&affordances=1>; rel="affordances", </llms.txt>; rel="alternate"; type="text/markdown"`}},
		{"HTML page whose loader says not found: no Link", html("/items/9"), map[string]string{
			"Vary": "Accept", "Link": ""}},
		{"HTML page without a route: untouched", html("/about"), map[string]string{
			"Vary": "", "Link": ""}},
		{"site index, any Accept", httptest.NewRequest("GET", "http://shop.test"+affordances.IndexPath, nil), map[string]string{
			"Content-Type": affordances.MediaType, "Vary": "Accept", "Cache-Control": "private, no-store"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, h, tc.req)
			for k, want := range tc.want {
				if got := strings.Join(res.header.Values(k), ", "); got != want {
					t.Errorf("%s: got %q, want %q", k, got, want)
				}
			}
		})
	}
}

// TestHTMLFromTheSameLoad: the HTML handler renders from the state the
// library loaded, as the same principal (docs/protocol.md decision 3).
func TestHTMLFromTheSameLoad(t *testing.T) {
	site, _ := testSite(t, nil)
	r := httptest.NewRequest("GET", "http://shop.test/", nil)
	r.Header.Set("Authorization", "Bearer good")
	rec := httptest.NewRecorder()
	site.Handler(app).ServeHTTP(rec, r)
	body := rec.Body.String()
	for _, want := range []string{"viewer=u1", "counter=0", `<link rel="affordances" href="?affordances=1">`} {
		if !strings.Contains(body, want) {
			t.Errorf("HTML %q lacks %q", body, want)
		}
	}
}

// TestFormPostsGoToTheApp: a POST that is not an Affordances call is the
// application's (docs/protocol.md decision 3).
func TestFormPostsGoToTheApp(t *testing.T) {
	site, _ := testSite(t, nil)
	r := httptest.NewRequest("POST", "http://shop.test/", strings.NewReader("action=ping"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res := do(t, site.Handler(app), r)
	if got := string(res.body); got != "form post handled by the app" {
		t.Errorf("body: got %q, want the app's answer", got)
	}
}

// TestIndex checks the site index (docs/protocol.md decision 6): routes in
// declaration order, exposed actions only, actions hidden from the
// requester left out.
func TestIndex(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(app)
	index := func(headers ...string) affordances.SiteIndex {
		r := with(httptest.NewRequest("GET", "http://shop.test"+affordances.IndexPath, nil), headers)
		res := do(t, h, r)
		var idx affordances.SiteIndex
		if err := jsonUnmarshal(res.body, &idx); err != nil {
			t.Fatal(err)
		}
		return idx
	}
	idx := index()
	if idx.V != "0" || idx.Name != "Test" {
		t.Errorf("v, name: got %q %q, want 0 Test", idx.V, idx.Name)
	}
	if got, want := mustJSON(idx.Auth), `["cookie","bearer"]`; got != want {
		t.Errorf("auth: got %s, want %s", got, want)
	}
	var routes []string
	for _, r := range idx.Routes {
		routes = append(routes, r.Route)
	}
	if got, want := strings.Join(routes, " "), "/ /items/[id] /items/new /plain"; got != want {
		t.Errorf("routes: got %s, want %s", got, want)
	}
	names := func(idx affordances.SiteIndex) string {
		var ns []string
		for _, a := range idx.Routes[0].Actions {
			ns = append(ns, a.Name)
		}
		return strings.Join(ns, " ")
	}
	if got, want := names(idx), "ping increment addNote tally reset signOut boom broken soldOut raw"; got != want {
		t.Errorf("anonymous sees actions: got %s, want %s", got, want)
	}
	if got, want := names(index("Authorization: Bearer admin")), "ping increment addNote tally reset audit signOut boom broken soldOut raw"; got != want {
		t.Errorf("admin sees actions: got %s, want %s", got, want)
	}
}

// TestPageStateSaysWhy: the HTML handler learns why there is no state, so
// it renders 404 or 500 without loading again.
func TestPageStateSaysWhy(t *testing.T) {
	site := affordances.NewSite(nil)
	site.Route("/items/[id]", &affordances.RouteOptions{State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
		switch r.Param("id") {
		case "ok":
			return &affordances.State{}, nil
		case "broken":
			return nil, errors.New("db down")
		}
		return nil, affordances.NewError(affordances.NotFound, "No such item.")
	}})
	for _, tc := range []struct {
		path       string
		wantStatus int
		wantBody   string
	}{
		{"/items/ok", 200, "ok"},
		{"/items/gone", 404, "No such item."},
		{"/items/broken", 500, "Something went wrong on the server. Try again later."},
		{"/elsewhere", 404, "This page has no Affordances graph."},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			site.Handler(app).ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
			if rec.Code != tc.wantStatus || !strings.Contains(rec.Body.String(), tc.wantBody) {
				t.Errorf("got %d %q, want %d %q", rec.Code, rec.Body.String(), tc.wantStatus, tc.wantBody)
			}
		})
	}
}
