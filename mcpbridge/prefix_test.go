package mcpbridge_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/mcpbridge"
)

// TestSiteUnderAPrefix: behind a proxy that forwards only /app/, the
// bridge given a page of the site reads the site index that page names in
// its Link headers, and the page's AAL fragment the manifest names under
// the prefix (docs/protocol.md decision 13, issue 38). Before, site_index
// read the origin's /.well-known/ alone and said the site publishes none.
func TestSiteUnderAPrefix(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Links", Prefix: "/app"})
	rt := site.Route("/links/", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"links": 2}}, nil
	}})
	affordances.AddAction(rt, &affordances.Action{Name: "refresh", Description: "Refresh the links", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	app := http.StripPrefix("/app", site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><title>Links</title>`+string(affordances.PageFrom(r.Context()).Head())+`<button data-aal="refresh">Refresh</button>`)
	})))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/app/") {
			http.NotFound(w, r)
			return
		}
		app.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	page := srv.URL + "/app/links/"
	cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{srv.URL}}), nil)
	idx, res := call(t, cs, "site_index", map[string]any{"origin": page})
	if res.IsError || idx["name"] != "Links" {
		t.Errorf("site_index of %s: %s", page, text(res))
	}
	got, res := call(t, cs, "fetch_affordances", map[string]any{"url": page})
	if res.IsError || got["fragment"] == nil || action(got, "refresh") == nil {
		t.Errorf("fetch_affordances of %s: %s", page, text(res))
	}
}
