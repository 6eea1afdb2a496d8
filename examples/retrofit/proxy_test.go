package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/conformance"
)

// TestBehindAProxyOfThePrefix: behind a proxy that forwards only /app/,
// the origin's /.well-known/ is not the app's, and the conformance suite
// given a page of the app finds the site index and the AAL manifest that
// page names, walks the app's pages and passes every must, as it does at
// the origin (docs/protocol.md decision 13, issue 38). Before, the suite read the
// origin's documents alone, found nothing and checked no page.
func TestBehindAProxyOfThePrefix(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the conformance suite")
	}
	app := testApp(t).Handler()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, basePath+"/") {
			http.NotFound(w, r) // the origin's own, not the app's
			return
		}
		app.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	rep := conformance.Run(t.Context(), proxy.URL+basePath+"/links/", &conformance.Options{Token: testToken})
	if res, ok := rep.Result("v0.discovery.index"); !ok || res.Outcome != conformance.Pass {
		t.Errorf("the site index: %+v", res)
	}
	if len(rep.Pages) < 5 || !rep.Passed() {
		t.Errorf("%d pages %q; must failed: %+v", len(rep.Pages), rep.Pages, rep.Failed(conformance.Must))
	}
}
