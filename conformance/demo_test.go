package conformance_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/conformance"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
)

// demoToken is the bearer token of the demo user of every demo.
const demoToken = "conformance-demo-token"

// demo serves a fresh demo shop, wrapped in mutate when not nil, and
// returns its URL and the demo user's token.
func demo(t *testing.T, mutate func(http.Handler) http.Handler) (string, string) {
	t.Helper()
	return demoWith(t, mutate, false)
}

// demoWith is demo, with placeOrder run on confirm: true alone (no
// approval page) when noApproval is set.
func demoWith(t *testing.T, mutate func(http.Handler) http.Handler, noApproval bool) (string, string) {
	t.Helper()
	s, srv := demotest.Shop(t, &shop.Options{DemoToken: demoToken, NoApproval: noApproval}, mutate)
	return srv.URL, s.Token()
}

func TestDemoPassesEveryCheck(t *testing.T) {
	url, token := demo(t, nil)
	rep := conformance.Test(t, url, &conformance.Options{Token: token, AllowWrites: true})
	if len(rep.Checks) < 50 {
		t.Errorf("%d checks, want at least 50", len(rep.Checks))
	}
	for _, c := range rep.Checks {
		switch {
		case c.Outcome == conformance.Fail:
			t.Errorf("%s (%s) failed: %s", c.ID, c.Level, c.Reason)
		case c.Outcome == conformance.Skip && !inherentSkip[c.ID]:
			t.Errorf("%s skipped: %s", c.ID, c.Reason)
		}
	}
	t.Logf("pages: %s", strings.Join(rep.Pages, " "))
}

// inherentSkip are the checks the demo cannot exercise: a sound server
// answers no internal error, and a fresh account has no order to reach
// /orders/[id].
var inherentSkip = map[string]bool{
	"v0.status.internal":            true,
	"v0.consistency.routes-reached": true,
}

// TestFewPages: with MaxPages below the demo's pages, the routes that were
// not discovered are not failures: a route of the index answers its graph,
// and a route the HTML links to but discovery did not reach is a skip.
func TestFewPages(t *testing.T) {
	demotest.Parallel(t)
	url, token := demo(t, nil)
	rep := conformance.Run(t.Context(), url, &conformance.Options{Token: token, MaxPages: 3})
	if len(rep.Pages) != 3 {
		t.Errorf("got pages %q, want 3", rep.Pages)
	}
	for _, c := range rep.Checks {
		if c.Outcome == conformance.Fail {
			t.Errorf("%s (%s) failed: %s", c.ID, c.Level, c.Reason)
		}
	}
	if c, _ := rep.Result("v0.consistency.routes-reached"); c.Outcome != conformance.Skip {
		t.Errorf("v0.consistency.routes-reached: got %s (%s), want skip", c.Outcome, c.Reason)
	}
}

// TestRunsAreRepeatable: the suite run twice in a row against the same
// demo passes both times; the first run's rate-limit probe, which empties
// a bucket of the site's limiter, must not starve the second (the second
// honours Retry-After).
func TestRunsAreRepeatable(t *testing.T) {
	demotest.Parallel(t)
	url, token := demo(t, nil)
	for _, o := range []struct {
		name  string
		token string
	}{{"anonymous", ""}, {"with a token", token}} {
		for run := 1; run <= 2; run++ {
			rep := conformance.Run(t.Context(), url, &conformance.Options{Token: o.token, AllowWrites: true})
			for _, c := range rep.Failed(conformance.Must) {
				t.Errorf("%s, run %d: %s failed: %s", o.name, run, c.ID, c.Reason)
			}
		}
	}
}
