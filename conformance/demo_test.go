package conformance_test

import (
	"net/http"
	"net/url"
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
// approval page) when noApproval is set. It is served as `affordances
// demo` serves it: its own OAuth authorization server, its /mcp behind it.
func demoWith(t *testing.T, mutate func(http.Handler) http.Handler, noApproval bool) (string, string) {
	t.Helper()
	s, srv := demotest.Demo(t, &shop.Options{DemoToken: demoToken, NoApproval: noApproval}, mutate)
	return srv.URL, s.Token()
}

// signIn signs the demo user in on the demo at base, as a browser's form
// does, and returns the session's cookies.
func signIn(t *testing.T, base string) []*http.Cookie {
	t.Helper()
	form := url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}
	req, _ := http.NewRequest(http.MethodPost, base+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) == 0 {
		t.Fatalf("signing in: got %d and %d cookies, want 303 and a session", res.StatusCode, len(res.Cookies()))
	}
	return res.Cookies()
}

// TestDemoPassesEveryCheck: the demo, with the demo user's token and
// browser session, passes every check but those it cannot exercise.
func TestDemoPassesEveryCheck(t *testing.T) {
	base, token := demo(t, nil)
	rep := conformance.Test(t, base, &conformance.Options{Token: token, Cookies: signIn(t, base), AllowWrites: true})
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
