package conformance_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/conformance"
	"github.com/affordances/affordances-go/examples/plain"
)

// TestPlainPassesAsAAL: the plain demo, a site that publishes AAL only, is
// checked as AAL: its manifest, each page's fragment and its selectors
// pass; every check of the Affordances protocol skips, saying that the
// site has no graph (information, not a failure); the run passes.
func TestPlainPassesAsAAL(t *testing.T) {
	srv := httptest.NewServer(plain.New(nil).Handler())
	defer srv.Close()
	rep := conformance.Test(t, srv.URL, nil)
	if !rep.Passed() || len(rep.Pages) != 5 {
		t.Errorf("passed %v, pages %q; want a pass over the 5 pages with AAL", rep.Passed(), rep.Pages)
	}
	for _, c := range rep.Checks {
		switch {
		case strings.HasPrefix(c.ID, "v0."):
			if c.Outcome != conformance.Skip || !strings.HasPrefix(c.Reason, "AAL only: the site has no Affordances site index or graph") {
				t.Errorf("%s: %s (%s), want a skip saying the site publishes AAL only", c.ID, c.Outcome, c.Reason)
			}
		case strings.HasPrefix(c.ID, "oauth."):
			if c.Outcome != conformance.Skip {
				t.Errorf("%s: %s (%s), want a skip: the site takes no OAuth tokens", c.ID, c.Outcome, c.Reason)
			}
		case c.ID == "aal.fragment.affordances":
			if c.Outcome != conformance.Skip {
				t.Errorf("%s: %s (%s), want a skip: no Affordances action to map", c.ID, c.Outcome, c.Reason)
			}
		case c.Outcome != conformance.Pass:
			t.Errorf("%s: %s (%s), want a pass", c.ID, c.Outcome, c.Reason)
		}
	}
	// It has no actions to run: AllowWrites changes nothing, and no write
	// is said to be untested (it made conform exit 5 before).
	if rep := conformance.Run(t.Context(), srv.URL, &conformance.Options{AllowWrites: true}); !rep.Passed() || rep.WritesNotTested != nil {
		t.Errorf("with AllowWrites: passed %v, writes not tested %q; want a pass and none", rep.Passed(), rep.WritesNotTested)
	}
}

// aalSite serves a small site that publishes AAL only: a manifest with
// the routes / and /b, the fragment / links and the one the manifest
// names for /b, and a page /c that inlines one. broken changes one thing.
func aalSite(t *testing.T, broken string) string {
	t.Helper()
	aff := func(id, label string) string {
		return `{"id":"` + id + `","selector":"[data-aal=\"` + id + `\"]","action":"submit","label":"` + label + `","destructive":false,"reversible":true,"trust":"safe"}`
	}
	routes := []string{`{"route":"/","fragment":"/.well-known/agent-affordances/index.json"}`, `{"route":"/b","fragment":"/.well-known/agent-affordances/b.json"}`, `{"route":"/c","fragment":"/.well-known/agent-affordances/c.json"}`}
	index, bPage, bLabel, cButtons := aff("go", "Go"), "/b", "Pick", `<button data-aal="hide">Hide</button>`
	switch broken {
	case "route":
		routes = routes[:2]
	case "label":
		bLabel = "Pi\u200bck"
	case "page":
		bPage = "/elsewhere"
	case "selector":
		cButtons = `<button data-aal="hide">One</button><button data-aal="hide">Two</button>`
	}
	mux := http.NewServeMux()
	file := func(doc string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(doc))
		}
	}
	page := func(head, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(`<!doctype html><html lang="en"><head><title>T</title>` + head + `</head><body><main>` + body + `</main></body></html>`))
		}
	}
	cFragment := `{"aal":"0.1","page":"/c","affordances":[` + aff("hide", "Hide") + `]}`
	mux.HandleFunc("GET /.well-known/agent-affordances.json", file(`{"aal":"0.1","site":{"name":"T","origin":"http://t.example"},"routes":[`+strings.Join(routes, ",")+`]}`))
	mux.HandleFunc("GET /.well-known/agent-affordances/index.json", file(`{"aal":"0.1","page":"/","affordances":[`+index+`]}`))
	mux.HandleFunc("GET /.well-known/agent-affordances/b.json", file(`{"aal":"0.1","page":"`+bPage+`","affordances":[`+aff("pick", bLabel)+`]}`))
	mux.HandleFunc("GET /.well-known/agent-affordances/c.json", file(cFragment))
	mux.HandleFunc("GET /{$}", page(`<link rel="agent-affordances" href="/.well-known/agent-affordances/index.json">`, `<button data-aal="go">Go</button> <a href="/c">C</a>`))
	mux.HandleFunc("GET /b", page("", `<button data-aal="pick">Pick</button>`))
	mux.HandleFunc("GET /c", page(`<script type="application/aal+json">`+cFragment+`</script>`, cButtons))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestAALOnlyChecksCanFail: each AAL check of a site that publishes AAL
// alone fails on a site that breaks its rule, and only that check.
func TestAALOnlyChecksCanFail(t *testing.T) {
	for _, tc := range []struct{ broken, check, reason string }{
		{"", "", ""},
		{"route", "aal.manifest.routes", "/c publishes a fragment (inline) and the manifest has no route for it"},
		{"label", "aal.fragment.valid", "/affordances/0/label"},
		{"page", "aal.fragment.page", `the fragment's page is "/elsewhere" for /b`},
		{"selector", "aal.selector.unique", `page /c, affordance "hide", selector [data-aal="hide"]: element 1 of 2 lacks data-aal-input`},
	} {
		rep := conformance.Run(t.Context(), aalSite(t, tc.broken), nil)
		var failed []string
		for _, c := range rep.Failed(conformance.Must) {
			failed = append(failed, c.ID)
			if c.ID == tc.check && !strings.Contains(c.Reason, tc.reason) {
				t.Errorf("%s: %s says %q, want %q", tc.broken, c.ID, c.Reason, tc.reason)
			}
		}
		if want := tc.check; strings.Join(failed, " ") != want {
			t.Errorf("broken %q: failed %q, want %q", tc.broken, failed, want)
		}
		if len(rep.Pages) != 3 {
			t.Errorf("broken %q: pages %q, want /, /b and /c", tc.broken, rep.Pages)
		}
	}
}
