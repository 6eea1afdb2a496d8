package affordances_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/affordances/affordances-go"
)

// errDatabase is a failure of the site's own database.
var errDatabase = errors.New("database: connection refused")

// TestAuthenticateErrors: a token Authenticate does not know
// (ErrInvalidToken) is the requester's fault, 401 with WWW-Authenticate; any
// other error of Authenticate (its database did not answer) is the site's,
// 500 internal and logged, and the token is not called bad; an *Error it
// returns is answered as it is (docs/protocol.md decision 2).
func TestAuthenticateErrors(t *testing.T) {
	var logs bytes.Buffer
	site := affordances.NewSite(&affordances.SiteOptions{
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			switch r.Header.Get("Authorization") {
			case "Bearer unknown":
				return affordances.Principal{}, affordances.ErrInvalidToken
			case "Bearer outage":
				return affordances.Principal{}, fmt.Errorf("looking up the token: %w", errDatabase)
			case "Bearer disabled":
				return affordances.Principal{}, affordances.Forbidden("This account is disabled.")
			}
			return affordances.Principal{}, nil
		},
	})
	site.Route("/", nil)
	h := site.Handler(nil)
	for _, tc := range []struct {
		token, code string
		status      int
		challenge   bool
	}{
		{"unknown", "unauthorized", 401, true},
		{"outage", "internal", 500, false},
		{"disabled", "unauthorized", 403, false},
	} {
		res := do(t, h, get("/", "Authorization: Bearer "+tc.token))
		if res.status != tc.status || string(res.code()) != tc.code {
			t.Errorf("a %s token: got %d %s, want %d %s", tc.token, res.status, res.body, tc.status, tc.code)
		}
		if got := res.header.Get("WWW-Authenticate") != ""; got != tc.challenge {
			t.Errorf("a %s token: WWW-Authenticate %q, want it sent: %v", tc.token, res.header.Get("WWW-Authenticate"), tc.challenge)
		}
	}
	if !strings.Contains(logs.String(), "connection refused") {
		t.Errorf("the outage was not logged: %s", logs.String())
	}
}

// TestErrorCause: an *Error keeps its cause for the site's code (errors.Is,
// errors.As) and logs, and never sends it; an internal *Error with a cause
// is logged.
func TestErrorCause(t *testing.T) {
	e := &affordances.Error{Code: affordances.Unavailable, Message: "The warehouse did not answer.", Err: errDatabase}
	if !errors.Is(e, errDatabase) || affordances.CodeOf(fmt.Errorf("wrapped: %w", e)) != affordances.Unavailable {
		t.Errorf("errors.Is(e, errDatabase) = %v, CodeOf = %s; want true, unavailable", errors.Is(e, errDatabase), affordances.CodeOf(e))
	}
	if got, want := e.Error(), "affordances: unavailable: The warehouse did not answer.: database: connection refused"; got != want {
		t.Errorf("Error(): got %q, want %q", got, want)
	}
	var logs bytes.Buffer
	site := affordances.NewSite(&affordances.SiteOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	rt := site.Route("/", nil)
	for name, err := range map[string]error{
		"domain":   e,
		"internal": &affordances.Error{Code: affordances.Internal, Message: "Try again later.", Err: errors.New("disk full")},
	} {
		affordances.AddAction(rt, &affordances.Action{Name: name, Description: "Fails.", Expose: affordances.ExposePublic},
			func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, err })
	}
	h := site.Handler(nil)
	if res := do(t, h, post("/", `{"action":"domain"}`)); res.status != 409 || strings.Contains(string(res.body), "connection refused") {
		t.Errorf("a domain error with a cause: got %d %s, want 409 without the cause", res.status, res.body)
	}
	if res := do(t, h, post("/", `{"action":"internal"}`)); res.status != 500 || strings.Contains(string(res.body), "disk full") || !strings.Contains(logs.String(), "disk full") {
		t.Errorf("an internal error with a cause: got %d %s, logs %s; want 500, the cause logged and not sent", res.status, res.body, logs.String())
	}
}

// TestDeclarationsFreeze: declarations made from several goroutines before
// the site is served all take; once Handler was called, Route and
// AddAction panic with the reason.
func TestDeclarationsFreeze(t *testing.T) {
	site := affordances.NewSite(nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			rt := site.Route(fmt.Sprintf("/p%d", i), nil)
			affordances.AddAction(rt, &affordances.Action{Name: "a", Description: "A.", Expose: affordances.ExposePublic}, noop)
		})
	}
	wg.Wait()
	first := site.Route("/first", nil)
	h := site.Handler(nil)
	for i := range 8 {
		if res := do(t, h, post(fmt.Sprintf("/p%d", i), `{"action":"a"}`)); res.status != 200 {
			t.Errorf("/p%d: got %d %s, want 200", i, res.status, res.body)
		}
	}
	for name, declare := range map[string]func(){
		"Route": func() { site.Route("/late", nil) },
		"AddAction": func() {
			affordances.AddAction(first, &affordances.Action{Name: "late", Description: "L.", Expose: affordances.ExposePublic}, noop)
		},
	} {
		func() {
			defer func() {
				if got := fmt.Sprint(recover()); !strings.Contains(got, "after Site.Handler: declare every route and action before the site is served") {
					t.Errorf("%s after Handler: got panic %q, want one saying why", name, got)
				}
			}()
			declare()
		}()
	}
}
