package conformance_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/conformance"
)

// TestUnreachableRunsNoCheck: a site where nothing listens is one
// sentence that names it and the cause, no check at all, and no pass;
// before, it read "must 4 passed, 19 failed" (issue 36).
func TestUnreachableRunsNoCheck(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	l.Close()
	rep := conformance.Run(t.Context(), base, nil)
	want := "could not reach " + base + " (connection refused: nothing listens at " + l.Addr().String() + "); is the site running, at that address?"
	if rep.Unreachable != want || len(rep.Checks) != 0 || rep.Passed() {
		t.Errorf("got unreachable %q, %d checks, passed %v; want %q, none, not passed", rep.Unreachable, len(rep.Checks), rep.Passed(), want)
	}
}

// TestNothingToCheckIsNoPass: on a server that answers 404 to everything,
// a check with nothing to look at (no delta, no page, no call refused for
// its Origin) skips and says so; what passes shows the exchange it passed
// on (issue 36).
func TestNothingToCheckIsNoPass(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	rep := conformance.Run(t.Context(), srv.URL, nil)
	if rep.Unreachable != "" {
		t.Fatalf("unreachable: %s", rep.Unreachable)
	}
	// What may pass there, each on an exchange it shows: a site with no
	// Affordances answers a page nobody has with 404.
	allowed := []string{"v0.status.not-found"}
	var passed []string
	for _, c := range rep.Checks {
		if c.Outcome == conformance.Pass && (c.Evidence == nil || !slices.Contains(allowed, c.ID)) {
			passed = append(passed, c.ID+" ("+c.Reason+")")
		}
	}
	if len(passed) > 0 {
		t.Errorf("passed on a site with no Affordances at all:\n%s", strings.Join(passed, "\n"))
	}
}

// TestWritesNotTested: under AllowWrites, a site with no action the suite
// can run lists each write check that ran none, and why; without
// AllowWrites, nothing (issue 36: "ran no write on a real app and still
// passed").
func TestWritesNotTested(t *testing.T) {
	site := affordances.NewSite(nil)
	site.Route("/", nil)
	srv := httptest.NewServer(site.Handler(nil))
	t.Cleanup(srv.Close)
	rep := conformance.Run(t.Context(), srv.URL, &conformance.Options{AllowWrites: true, Token: "t"})
	want := []string{
		"v0.write.read-action: no public read-only action the suite can build an input for",
		"v0.write.session-action: no available session action that AAL says is harmless and reversible, with an input the suite can build",
		"v0.write.changed: no action ran",
	}
	if !slices.Equal(rep.WritesNotTested, want) {
		t.Errorf("with AllowWrites: got %q, want %q", rep.WritesNotTested, want)
	}
	if rep = conformance.Run(t.Context(), srv.URL, &conformance.Options{Token: "t"}); rep.WritesNotTested != nil {
		t.Errorf("without AllowWrites: got %q, want none", rep.WritesNotTested)
	}
}

// TestReadingChangesThePage: on a site whose page changes each time it is
// read (it marks what it shows as read), v0.readonly.state-unchanged
// names that GET and skips rather than blame the site's refused calls
// for what the suite's own reads did (issue 38: conform marked 46 of a
// reader's entries read, then failed its own must).
func TestReadingChangesThePage(t *testing.T) {
	var reads atomic.Int32
	site := affordances.NewSite(nil)
	affordances.AddAction(site.Route("/unread", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"unread": 100 - reads.Add(1)}}, nil
	}}), &affordances.Action{Name: "look", Description: "Looks.", Expose: affordances.ExposePublic, ReadOnly: true},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	srv := httptest.NewServer(site.Handler(nil))
	t.Cleanup(srv.Close)
	rep := conformance.Run(t.Context(), srv.URL, nil)
	res, _ := rep.Result("v0.readonly.state-unchanged")
	if res.Outcome != conformance.Skip || !strings.Contains(res.Reason, "reading /unread changes it") || !strings.Contains(res.Reason, conformance.DefaultUserAgent) {
		t.Errorf("got %s (%s), want a skip naming the page whose reading changes it, and the suite's User-Agent", res.Outcome, res.Reason)
	}
}
