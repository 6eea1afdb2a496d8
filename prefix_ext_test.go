package affordances_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// TestPrefix: a site mounted under /app behind http.StripPrefix speaks of
// its pages by their full paths (docs/protocol.md decision 13; issue 27, clash 5):
// page, route, nav, redirect, the index, the AAL manifest, fragments and
// llms.txt carry /app, while its documents are at the origin's
// /.well-known/ and /llms.txt as well as under /app, and the app's own
// patterns, nav and redirects leave /app out.
func TestPrefix(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Links", Prefix: "/app"})
	list := site.Route("/links/", &affordances.RouteOptions{State: func(_ context.Context, r *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"page": r.Page}, Nav: []affordances.NavLink{{To: "/links/7", Label: "Seven"}}}, nil
	}})
	site.Route("/links/{id}", &affordances.RouteOptions{State: func(_ context.Context, r *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"id": r.Param("id")}}, nil
	}})
	affordances.AddAction(list, &affordances.Action{Name: "refresh", Description: "Refresh the list", Expose: affordances.ExposePublic},
		func(_ context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
			r.SetRedirect("/links/7")
			return struct{}{}, nil
		})
	h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<head>"+string(affordances.PageFrom(r.Context()).Head())+"</head>")
	}))
	root := http.NewServeMux()
	root.Handle("/app/", http.StripPrefix("/app", h))
	root.Handle("/.well-known/", h)
	root.Handle("/llms.txt", h)

	graph := do(t, root, get("/app/links/"))
	if graph.status != 200 || graph.graph.Page != "/app/links/" || graph.graph.Route != "/app/links/" || graph.graph.Entities["page"] != "/links/" {
		t.Errorf("graph: got %d page %q route %q, the app's page %v; want /app/links/ on the wire, /links/ for the app", graph.status, graph.graph.Page, graph.graph.Route, graph.graph.Entities["page"])
	}
	if nav := graph.graph.Nav; len(nav) != 1 || nav[0].To != "/app/links/7" {
		t.Errorf("nav: got %+v, want /app/links/7", nav)
	}
	if call := do(t, root, post("/app/links/", `{"action":"refresh"}`)); call.delta.Redirect != "/app/links/7" {
		t.Errorf("redirect: got %q, want /app/links/7", call.delta.Redirect)
	}
	form := httptest.NewRequest("POST", "http://shop.test/app/links/", strings.NewReader(url.Values{"_action": {"refresh"}}.Encode()))
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	form.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := httptest.NewRecorder()
	root.ServeHTTP(rec, form)
	if rec.Code != 303 || rec.Header().Get("Location") != "/app/links/7" {
		t.Errorf("form: got %d to %q, want 303 to /app/links/7", rec.Code, rec.Header().Get("Location"))
	}

	var index affordances.SiteIndex
	if err := json.Unmarshal(do(t, root, get(affordances.IndexPath)).body, &index); err != nil || len(index.Routes) != 2 || index.Routes[0].Route != "/app/links/" || index.Routes[1].Route != "/app/links/[id]" {
		t.Errorf("index: got %+v (%v), want the routes under /app", index.Routes, err)
	}
	var manifest aal.Manifest
	if err := json.Unmarshal(do(t, root, get(aal.ManifestPath)).body, &manifest); err != nil || len(manifest.Routes) != 2 ||
		manifest.Routes[1].Route != "/app/links/[id]" || manifest.Routes[1].Fragment != "/app/.well-known/agent-affordances/app/links/[id].json" {
		t.Errorf("manifest: got %+v (%v)", manifest.Routes, err)
	}
	var fragment aal.Fragment
	if res := do(t, root, get(aal.FragmentFor(manifest.Routes[1].Fragment, manifest.Routes[1].Route, "/app/links/7"))); json.Unmarshal(res.body, &fragment) != nil || fragment.Page != "/app/links/7" {
		t.Errorf("fragment: got %d %s, want the fragment of /app/links/7", res.status, res.body)
	}
	if res := do(t, root, get("/.well-known/agent-affordances/links/7.json")); res.status != 404 {
		t.Errorf("a fragment path without the prefix: got %d, want 404", res.status)
	}
	rec = httptest.NewRecorder()
	root.ServeHTTP(rec, httptest.NewRequest("GET", "/app/links/", nil))
	if want := `<link rel="agent-affordances" href="/app/.well-known/agent-affordances/app/links/index.json">`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("head: got %s, want %s", rec.Body, want)
	}
	rec = httptest.NewRecorder()
	root.ServeHTTP(rec, httptest.NewRequest("GET", "/llms.txt", nil))
	if !strings.Contains(rec.Body.String(), "## /app/links/[id]") || !strings.Contains(rec.Body.String(), "/app/links/?affordances=1") {
		t.Errorf("llms.txt: got %s, want the routes and graph links under /app", rec.Body)
	}
}

// TestPrefixRefused: a Prefix that is not a path such as /app is refused
// when the site is made, saying what it must be.
func TestPrefixRefused(t *testing.T) {
	for _, p := range []string{"app", "/app/", "/a?b", "/{x}"} {
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.Contains(v, "starting with / and not ending in one") {
					t.Errorf("Prefix %q: panic %q, want the reason", p, v)
				}
			}()
			affordances.NewSite(&affordances.SiteOptions{Prefix: p})
		}()
	}
}

// TestPrefixApproval: under a prefix, the approval page of a
// human-verified call is a page of the site, under its prefix, where the
// person's cookie (its Path the prefix) goes (docs/protocol.md decisions 10 and 13).
func TestPrefixApproval(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{Prefix: "/app", Authenticate: func(r *http.Request) (affordances.Principal, error) {
		if r.Header.Get("Authorization") == "Bearer tok" {
			return affordances.Principal{ID: "ada"}, nil
		}
		return affordances.Principal{}, nil
	}})
	rt := site.Route("/links/", nil)
	affordances.AddAction(rt, &affordances.Action{Name: "clear", Description: "Delete every link", Expose: affordances.ExposeConfirm, Verify: true,
		Summary: affordances.Summarize(func(context.Context, *affordances.Request, struct{}) (string, error) {
			return "Delete every link.", nil
		})}, noop)
	root := http.NewServeMux()
	root.Handle("/app/", http.StripPrefix("/app", site.Handler(nil)))
	res := do(t, root, post("/app/links/", `{"action":"clear"}`, "Authorization: Bearer tok"))
	if res.delta.Approval == nil || !strings.HasPrefix(res.delta.Approval.URL, "/app"+affordances.ApprovalsPath) {
		t.Fatalf("got %s, want an approval page under /app", res.body)
	}
	rec := httptest.NewRecorder()
	root.ServeHTTP(rec, get(res.delta.Approval.URL, "Authorization: Bearer tok"))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"page":"/app/links/"`) {
		t.Errorf("the approval's status at %s: got %d %s", res.delta.Approval.URL, rec.Code, rec.Body)
	}
}

// TestPrefixDocumentsLinked: behind a proxy that forwards only /app/, the
// site's index and manifest are served under the prefix, and every page
// names them there (Link rel="affordances-index", "agent-affordances"),
// so that a client that finds nothing at the origin's /.well-known/ finds
// them (docs/protocol.md decision 13, issue 38); what the page's head and the
// manifest name (the fragment, llms.txt, the WebMCP script) is there
// through the proxy too: before, all but the graph were 404.
func TestPrefixDocumentsLinked(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Links", Prefix: "/app"})
	site.Route("/links/", nil)
	rt := site.Route("/links/{id}", &affordances.RouteOptions{State: func(_ context.Context, r *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"id": r.Param("id")}}, nil
	}})
	affordances.AddAction(rt, &affordances.Action{Name: "archive", Description: "Archive the link", Expose: affordances.ExposePublic}, noop)
	onlyApp := http.NewServeMux()
	onlyApp.Handle("/app/", http.StripPrefix("/app", site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<!doctype html><title>Links</title>"+string(affordances.PageFrom(r.Context()).Head()))
	}))))
	rec := httptest.NewRecorder()
	onlyApp.ServeHTTP(rec, httptest.NewRequest("GET", "/app/links/", nil))
	links := rec.Header().Values("Link")
	for _, want := range []string{`</app/.well-known/affordances.json>; rel="affordances-index"`, `</app/.well-known/agent-affordances.json>; rel="agent-affordances"`, `</app/llms.txt>; rel="alternate"; type="text/markdown"`} {
		if !slices.Contains(links, want) {
			t.Errorf("the page's Link headers %q lack %s", links, want)
		}
	}
	var index affordances.SiteIndex
	rec = httptest.NewRecorder()
	onlyApp.ServeHTTP(rec, httptest.NewRequest("GET", "/app"+affordances.IndexPath, nil))
	if json.Unmarshal(rec.Body.Bytes(), &index) != nil || len(index.Routes) != 2 || index.Routes[0].Route != "/app/links/" {
		t.Errorf("the index under the prefix: got %d %s", rec.Code, rec.Body)
	}
	var manifest aal.Manifest
	rec = httptest.NewRecorder()
	onlyApp.ServeHTTP(rec, httptest.NewRequest("GET", "/app"+aal.ManifestPath, nil))
	if json.Unmarshal(rec.Body.Bytes(), &manifest) != nil || len(manifest.Routes) != 2 {
		t.Fatalf("the manifest under the prefix: got %d %s", rec.Code, rec.Body)
	}
	// What the page and the manifest name is there, through the proxy.
	rec = httptest.NewRecorder()
	onlyApp.ServeHTTP(rec, httptest.NewRequest("GET", "/app/links/7", nil))
	named := regexp.MustCompile(`(?:href|src)="([^"]+)"`).FindAllStringSubmatch(rec.Body.String(), -1)
	if len(named) != 4 {
		t.Errorf("the head names %d documents, want 4 (graph, llms.txt, fragment, script): %s", len(named), rec.Body)
	}
	paths := []string{aal.FragmentFor(manifest.Routes[1].Fragment, manifest.Routes[1].Route, "/app/links/7")}
	for _, m := range named {
		paths = append(paths, html.UnescapeString(m[1]))
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") { // the graph's ?affordances=1, on the page itself
			p = "/app/links/7" + p
		}
		rec := httptest.NewRecorder()
		onlyApp.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 200 {
			t.Errorf("%s, named by the page or the manifest: got %d through a proxy of /app/ only", p, rec.Code)
		}
	}
}
