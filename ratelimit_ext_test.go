package affordances_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
)

// guessSite serves /login with one public action, guess, that counts each
// call against a limit per account (burst 3, then one an hour) with
// Request.Limit before it runs, as a sign-in would; and one whose Limit
// is not one. Bearer tokens name their principal.
func guessSite(t *testing.T) (http.Handler, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	site := affordances.NewSite(&affordances.SiteOptions{
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			return affordances.Principal{ID: tok}, nil
		},
	})
	type guessInput struct {
		Account string `json:"account"`
	}
	login := site.Route("/login", nil)
	perAccount := affordances.Limit{Calls: 1, Per: time.Hour, Burst: 3}
	affordances.AddAction(login, &affordances.Action{Name: "guess", Description: "Guess an account's password.", Expose: affordances.ExposePublic},
		func(ctx context.Context, r *affordances.Request, in guessInput) (struct{}, error) {
			if err := r.Limit(ctx, in.Account, perAccount); err != nil {
				return struct{}{}, err
			}
			runs.Add(1)
			return struct{}{}, nil
		})
	affordances.AddAction(login, &affordances.Action{Name: "misdeclared", Description: "Counts against a limit that is not one.", Expose: affordances.ExposePublic},
		func(ctx context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
			return struct{}{}, r.Limit(ctx, "k", affordances.Limit{Calls: 1, Per: time.Minute})
		})
	return site.Handler(app), &runs
}

// TestRequestLimit: Request.Limit counts calls under the action's own key
// from every address and principal together, and answers over the limit
// as the site's own limit does: rate_limited, 429, Retry-After in whole
// seconds that the message repeats (docs/protocol.md decision 2). Its keys never
// count against the site's limit per requester, even a key spelled like
// one.
func TestRequestLimit(t *testing.T) {
	h, runs := guessSite(t)
	// The key the site's own limit gives the address 192.0.2.9 on /login.
	const siteKey = "a:192.0.2.9 /login"
	for i, tc := range []struct {
		who, account string // who: an address, or "Bearer ID"
		status       int
	}{
		{"192.0.2.1", "alice", 200},
		{"192.0.2.2", "alice", 200},
		{"Bearer mallory", "alice", 200},
		{"192.0.2.3", "alice", 429}, // a fresh address: alice's burst is spent
		{"Bearer trudy", "alice", 429},
		{"192.0.2.3", "bob", 200}, // another key has a budget of its own
		{"192.0.2.4", siteKey, 200},
		{"192.0.2.5", siteKey, 200},
		{"192.0.2.6", siteKey, 200},
		{"192.0.2.7", siteKey, 429},
		{"192.0.2.9", "carol", 200}, // 192.0.2.9's own budget is untouched
	} {
		r := post("/login", `{"action":"guess","input":{"account":`+strconv.Quote(tc.account)+`}}`)
		if tok, ok := strings.CutPrefix(tc.who, "Bearer "); ok {
			r.Header.Set("Authorization", "Bearer "+tok)
		} else {
			r.RemoteAddr = tc.who + ":1234"
		}
		res := do(t, h, r)
		if res.status != tc.status {
			t.Fatalf("call %d, %s guessing at %q: got %d %s, want %d", i+1, tc.who, tc.account, res.status, res.body, tc.status)
		}
		if tc.status != 429 {
			continue
		}
		wait := res.header.Get("Retry-After")
		want := regexp.MustCompile(`^Too many calls\. Try again in ` + regexp.QuoteMeta(wait) + ` seconds\.$`)
		if secs, err := strconv.Atoi(wait); err != nil || secs < 1 || secs > 3600 {
			t.Errorf("call %d: got Retry-After %q, want whole seconds, at most an hour", i+1, wait)
		}
		if res.code() != affordances.RateLimited || !want.MatchString(res.delta.Error.Message) {
			t.Errorf("call %d: got %q %q, want rate_limited and the message %s", i+1, res.code(), res.delta.Error.Message, want)
		}
	}
	if got := runs.Load(); got != 8 {
		t.Errorf("runs: got %d, want 8 (every call within the limits)", got)
	}

	res := do(t, h, post("/login", `{"action":"misdeclared"}`))
	if res.status != 500 || res.code() != affordances.Internal {
		t.Errorf("a Limit without Burst: got %d %q, want 500 internal", res.status, res.code())
	}
	err := (&affordances.Request{}).Limit(t.Context(), "k", affordances.Limit{Calls: 60, Per: time.Minute, Burst: 20})
	if err == nil || !strings.HasPrefix(err.Error(), "affordances: ") {
		t.Errorf("Limit on a request the site did not make: got %v, want an affordances error", err)
	}
}

// ExampleRequest_Limit counts a sign-in's guesses at one account from
// every address and session together.
func ExampleRequest_Limit() {
	site := affordances.NewSite(nil)
	type signInInput struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	perAccount := affordances.Limit{Calls: 5, Per: 15 * time.Minute, Burst: 5}
	affordances.AddAction(site.Route("/login", nil), &affordances.Action{Name: "signIn", Description: "Sign in.", Expose: affordances.ExposePublic},
		func(ctx context.Context, r *affordances.Request, in signInInput) (struct{}, error) {
			if err := r.Limit(ctx, "signIn:"+strings.ToLower(strings.TrimSpace(in.Email)), perAccount); err != nil {
				return struct{}{}, err
			}
			return struct{}{}, affordances.NewError(affordances.Unauthorized, "Wrong email or password.")
		})
	h := site.Handler(nil)
	for i := range 6 {
		r := post("/login", `{"action":"signIn","input":{"email":"Alice@example.com","password":"guess"}}`)
		r.RemoteAddr = fmt.Sprintf("192.0.2.%d:1234", i+1) // a new address each time
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var d affordances.Delta
		json.Unmarshal(rec.Body.Bytes(), &d)
		fmt.Println(rec.Code, d.Error.Code)
	}
	// Output:
	// 401 unauthorized
	// 401 unauthorized
	// 401 unauthorized
	// 401 unauthorized
	// 401 unauthorized
	// 429 rate_limited
}
