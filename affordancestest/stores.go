package affordancestest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances/affordances-go/store"
)

// TestRateLimiter checks that the limiters newLimiter returns keep the
// contract of [store.RateLimiter] as the in-memory limiter does, so
// that a shared one (Redis) can stand in for it: a burst of Burst calls
// fits, the next is refused with the wait until one fits, a refused call
// is not counted, keys are counted apart, and concurrent calls never let
// more through than the limit. Each subtest gets a new limiter.
func TestRateLimiter(t *testing.T, newLimiter func(t *testing.T) store.RateLimiter) {
	ctx := context.Background()
	t.Run("burst, then the wait", func(t *testing.T) {
		l := newLimiter(t)
		lim := store.Limit{Calls: 60, Per: time.Minute, Burst: 5}
		for i := range 5 {
			if ok, _, err := l.Allow(ctx, "burst", lim); err != nil || !ok {
				t.Fatalf("call %d of the burst: got %v, %v; want allowed", i+1, ok, err)
			}
		}
		ok, wait, err := l.Allow(ctx, "burst", lim)
		if err != nil || ok || wait <= 0 || wait > time.Second+50*time.Millisecond {
			t.Errorf("after the burst: got %v, wait %v, %v; want refused with a wait of at most 1s (one call a second)", ok, wait, err)
		}
		if ok, _, _ := l.Allow(ctx, "other", lim); !ok {
			t.Error("another key: refused, want its own budget")
		}
	})
	t.Run("a refused call is not counted", func(t *testing.T) {
		l := newLimiter(t)
		lim := store.Limit{Calls: 10, Per: time.Second, Burst: 1} // one call each 100ms
		if ok, _, err := l.Allow(ctx, "k", lim); !ok || err != nil {
			t.Fatalf("first call: %v, %v", ok, err)
		}
		var wait time.Duration
		for range 3 {
			ok, w, err := l.Allow(ctx, "k", lim)
			if ok || err != nil {
				t.Fatalf("within the interval: got %v, %v; want refused", ok, err)
			}
			wait = w
		}
		time.Sleep(wait + 20*time.Millisecond)
		if ok, w, err := l.Allow(ctx, "k", lim); !ok || err != nil {
			t.Errorf("after the wait it gave: got %v (wait %v), %v; want allowed: refusals must not have counted", ok, w, err)
		}
	})
	t.Run("concurrent calls", func(t *testing.T) {
		l := newLimiter(t)
		lim := store.Limit{Calls: 1, Per: time.Hour, Burst: 20}
		var allowed atomic.Int32
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				if ok, _, err := l.Allow(ctx, "hot", lim); err != nil {
					t.Error(err)
				} else if ok {
					allowed.Add(1)
				}
			})
		}
		wg.Wait()
		if n := allowed.Load(); n != 20 {
			t.Errorf("allowed: got %d of 50, want exactly the burst, 20", n)
		}
	})
}

// TestIdempotencyStore checks that the stores newStore returns keep the
// contract of [store.Idempotency]: Begin claims once and then
// reports the claim as running, Finish keeps the answer byte for byte,
// Release forgets the claim, scopes and keys are apart, and of concurrent
// Begins exactly one claims. Each subtest gets a new store.
func TestIdempotencyStore(t *testing.T, newStore func(t *testing.T) store.Idempotency) {
	ctx := context.Background()
	hash := sha256.Sum256([]byte(`{"action":"start"}`))
	other := sha256.Sum256([]byte(`{"action":"stop"}`))
	begin := func(t *testing.T, s store.Idempotency, scope, key string, h [sha256.Size]byte) *store.KeptCall {
		t.Helper()
		held, err := s.Begin(ctx, scope, key, h)
		if err != nil {
			t.Fatalf("Begin(%q, %q): %v", scope, key, err)
		}
		return held
	}
	t.Run("claim, running, kept", func(t *testing.T) {
		s := newStore(t)
		if held := begin(t, s, `p:"u1" /jobs/1`, "k1", hash); held != nil {
			t.Fatalf("first Begin: got %+v, want the claim", held)
		}
		held := begin(t, s, `p:"u1" /jobs/1`, "k1", other)
		if held == nil || held.Delta != nil || held.BodyHash != hash {
			t.Fatalf("Begin while running: got %+v, want running with the first body's hash", held)
		}
		kept := &store.KeptDelta{Status: http.StatusOK, Header: http.Header{"Set-Cookie": {"run=1"}}, Body: []byte(`{"ok":true}`)}
		if err := s.Finish(ctx, `p:"u1" /jobs/1`, "k1", kept); err != nil {
			t.Fatal(err)
		}
		held = begin(t, s, `p:"u1" /jobs/1`, "k1", hash)
		if held == nil || held.Delta == nil || held.BodyHash != hash || held.Delta.Status != 200 ||
			string(held.Delta.Body) != `{"ok":true}` || held.Delta.Header.Get("Set-Cookie") != "run=1" {
			t.Fatalf("Begin after Finish: got %+v, want the kept answer", held)
		}
	})
	t.Run("release", func(t *testing.T) {
		s := newStore(t)
		begin(t, s, "s", "k", hash)
		if err := s.Release(ctx, "s", "k"); err != nil {
			t.Fatal(err)
		}
		if held := begin(t, s, "s", "k", other); held != nil {
			t.Errorf("Begin after Release: got %+v, want a new claim", held)
		}
	})
	t.Run("scopes and keys apart", func(t *testing.T) {
		s := newStore(t)
		begin(t, s, "s1", "k", hash)
		for _, sk := range [][2]string{{"s2", "k"}, {"s1", "k2"}, {"s", "1 k"}} {
			if held := begin(t, s, sk[0], sk[1], hash); held != nil {
				t.Errorf("Begin(%q, %q): got %+v, want a claim of its own", sk[0], sk[1], held)
			}
		}
	})
	t.Run("concurrent begins", func(t *testing.T) {
		s := newStore(t)
		var claims atomic.Int32
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Go(func() {
				held, err := s.Begin(ctx, "race", "same-key", hash)
				if err != nil {
					t.Error(fmt.Errorf("call %d of Begin: %w", i, err))
				} else if held == nil {
					claims.Add(1)
				}
			})
		}
		wg.Wait()
		if n := claims.Load(); n != 1 {
			t.Errorf("claims: got %d of 40 concurrent Begins, want exactly 1", n)
		}
	})
}

// TestApprovalStore checks that the stores newStore returns keep the
// contract of [store.Approvals]: Request keeps an approval once
// per call and then returns it, of concurrent Requests all get one, Get
// finds it by id, a decision is made once and never changed, Take removes
// a decided approval as it returns it (of concurrent Takes exactly one
// sees it) and leaves a pending one, an expired approval is as if absent,
// and every field comes back as it was given (Expires to the millisecond).
// Each subtest gets a new store.
func TestApprovalStore(t *testing.T, newStore func(t *testing.T) store.Approvals) {
	ctx := context.Background()
	approval := func(call string) *store.Approval {
		return &store.Approval{
			ID:        store.NewApprovalID(),
			Call:      call,
			Principal: "u1",
			Page:      "/orders/7",
			Action:    "cancel_order",
			Input:     json.RawMessage(`{"n":12345678901234567890,"reason":"late \u00e9 \"x\""}`),
			Summary:   "Cancel order 7 (€ 12.50) — \"late\"",
			Consent:   "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
			Cost:      "EUR 12.50",
			State:     store.ApprovalPending,
			Expires:   time.Now().Add(store.ApprovalTTL).Truncate(time.Millisecond),
		}
	}
	same := func(got, want *store.Approval) bool {
		return got != nil && got.ID == want.ID && got.Call == want.Call && got.Principal == want.Principal &&
			got.Page == want.Page && got.Action == want.Action && string(got.Input) == string(want.Input) &&
			got.Summary == want.Summary && got.Consent == want.Consent && got.Cost == want.Cost &&
			got.State == want.State && got.Expires.Equal(want.Expires)
	}
	request := func(t *testing.T, s store.Approvals, a *store.Approval) *store.Approval {
		t.Helper()
		got, err := s.Request(ctx, a)
		if err != nil {
			t.Fatalf("Request(%s): %v", a.Call, err)
		}
		return got
	}
	decide := func(t *testing.T, s store.Approvals, id string, approve bool) *store.Approval {
		t.Helper()
		before := time.Now()
		got, err := s.Decide(ctx, id, approve)
		if err != nil {
			t.Fatalf("Decide(%s, %v): %v", id, approve, err)
		}
		if lo, hi := before.Add(store.ApprovalTTL-time.Second), time.Now().Add(store.ApprovalTTL+time.Second); got.Expires.Before(lo) || got.Expires.After(hi) {
			t.Errorf("Decide: expires %v, want ApprovalTTL from the decision, about %v", got.Expires, lo.Add(time.Second))
		}
		return got
	}
	take := func(t *testing.T, s store.Approvals, call string) *store.Approval {
		t.Helper()
		got, err := s.Take(ctx, call)
		if err != nil {
			t.Fatalf("Take(%s): %v", call, err)
		}
		return got
	}
	get := func(t *testing.T, s store.Approvals, id string) *store.Approval {
		t.Helper()
		got, err := s.Get(ctx, id)
		if err != nil {
			t.Fatalf("Get(%s): %v", id, err)
		}
		return got
	}

	t.Run("request keeps, then returns the same", func(t *testing.T) {
		s := newStore(t)
		a := approval("call-1")
		want := *a
		want.Input = append(json.RawMessage{}, a.Input...)
		got := request(t, s, a)
		if !same(got, &want) {
			t.Fatalf("first Request: got %+v, want %+v", got, want)
		}
		a.Input[2], got.Input[2] = 'X', 'Y' // the store keeps its own copy
		again := approval("call-1")
		if got := request(t, s, again); !same(got, &want) {
			t.Errorf("second Request, id %s: got %+v, want the first, %+v", again.ID, got, want)
		}
		if got := get(t, s, want.ID); !same(got, &want) {
			t.Errorf("Get: got %+v, want %+v", got, want)
		}
		if got := get(t, s, again.ID); got != nil {
			t.Errorf("Get of the id the second Request offered: got %+v, want nil", got)
		}
		if got := get(t, s, store.NewApprovalID()); got != nil {
			t.Errorf("Get of an unknown id: got %+v, want nil", got)
		}
		other := approval("call-2")
		if got := request(t, s, other); got == nil || got.ID != other.ID {
			t.Errorf("Request for another call: got %+v, want its own approval %s", got, other.ID)
		}
	})
	t.Run("concurrent requests agree", func(t *testing.T) {
		s := newStore(t)
		offered := map[string]bool{}
		var ids [20]string
		as := make([]*store.Approval, len(ids))
		for i := range as {
			as[i] = approval("race")
			offered[as[i].ID] = true
		}
		var wg sync.WaitGroup
		for i := range as {
			wg.Go(func() {
				got, err := s.Request(ctx, as[i])
				if err != nil {
					t.Errorf("Request %d: %v", i, err)
					return
				}
				ids[i] = got.ID
			})
		}
		wg.Wait()
		for i, id := range ids {
			if id != ids[0] || !offered[id] {
				t.Fatalf("concurrent Requests: got ids %q, want one of those offered, the same for all (differs at %d)", ids, i)
			}
		}
	})
	t.Run("approve, then take once", func(t *testing.T) {
		s := newStore(t)
		a := request(t, s, approval("call-a"))
		got := decide(t, s, a.ID, true)
		want := *a
		want.State, want.Expires = store.ApprovalApproved, got.Expires
		if !same(got, &want) {
			t.Fatalf("Decide: got %+v, want %+v", got, want)
		}
		if got := get(t, s, a.ID); !same(got, &want) {
			t.Errorf("Get after Decide: got %+v, want %+v", got, want)
		}
		if got := take(t, s, a.Call); !same(got, &want) {
			t.Fatalf("Take: got %+v, want %+v", got, want)
		}
		if got := take(t, s, a.Call); got != nil {
			t.Errorf("second Take: got %+v, want nil: a decision is used once", got)
		}
		if got := get(t, s, a.ID); got != nil {
			t.Errorf("Get after Take: got %+v, want nil", got)
		}
		if _, err := s.Decide(ctx, a.ID, true); !errors.Is(err, store.ErrApprovalClosed) {
			t.Errorf("Decide after Take: got %v, want ErrApprovalClosed", err)
		}
		b := approval("call-a")
		if got := request(t, s, b); got == nil || got.ID != b.ID || got.State != store.ApprovalPending {
			t.Errorf("Request after Take: got %+v, want a new pending approval %s", got, b.ID)
		}
	})
	t.Run("deny, then take once", func(t *testing.T) {
		s := newStore(t)
		a := request(t, s, approval("call-d"))
		if got := decide(t, s, a.ID, false); got.State != store.ApprovalDenied || got.ID != a.ID {
			t.Fatalf("Decide deny: got %+v, want denied", got)
		}
		if got := take(t, s, a.Call); got == nil || got.State != store.ApprovalDenied || got.ID != a.ID {
			t.Fatalf("Take: got %+v, want denied", got)
		}
		if got := take(t, s, a.Call); got != nil {
			t.Errorf("second Take: got %+v, want nil", got)
		}
	})
	t.Run("a decision is never changed", func(t *testing.T) {
		s := newStore(t)
		a := request(t, s, approval("call-twice"))
		decide(t, s, a.ID, true)
		for _, approve := range []bool{false, true} {
			if got, err := s.Decide(ctx, a.ID, approve); !errors.Is(err, store.ErrApprovalClosed) || got != nil {
				t.Errorf("Decide(%v) again: got %+v, %v; want ErrApprovalClosed", approve, got, err)
			}
		}
		if got := take(t, s, a.Call); got == nil || got.State != store.ApprovalApproved {
			t.Errorf("Take: got %+v, want the first decision, approved", got)
		}
	})
	t.Run("concurrent decides: one wins", func(t *testing.T) {
		s := newStore(t)
		a := request(t, s, approval("call-cd"))
		var won atomic.Int32
		var winner atomic.Value
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				got, err := s.Decide(ctx, a.ID, i%2 == 0)
				switch {
				case err == nil:
					won.Add(1)
					winner.Store(got.State)
				case !errors.Is(err, store.ErrApprovalClosed):
					t.Errorf("Decide %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		if n := won.Load(); n != 1 {
			t.Fatalf("concurrent Decides: %d succeeded, want exactly 1", n)
		}
		if got := take(t, s, a.Call); got == nil || got.State != winner.Load() {
			t.Errorf("Take: got %+v, want the winning decision, %v", got, winner.Load())
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		s := newStore(t)
		request(t, s, approval("call-u"))
		for _, id := range []string{store.NewApprovalID(), "", "call-u"} {
			if got, err := s.Decide(ctx, id, true); !errors.Is(err, store.ErrApprovalClosed) || got != nil {
				t.Errorf("Decide(%q): got %+v, %v; want ErrApprovalClosed", id, got, err)
			}
		}
		if got := take(t, s, "no-such-call"); got != nil {
			t.Errorf("Take of an unknown call: got %+v, want nil", got)
		}
	})
	t.Run("a pending approval stays", func(t *testing.T) {
		s := newStore(t)
		a := request(t, s, approval("call-p"))
		for i := range 2 {
			if got := take(t, s, a.Call); !same(got, a) {
				t.Fatalf("Take %d of a pending approval: got %+v, want it, pending: %+v", i+1, got, a)
			}
		}
		if got := get(t, s, a.ID); !same(got, a) {
			t.Errorf("Get after Takes: got %+v, want it still held", got)
		}
		decide(t, s, a.ID, true)
		if got := take(t, s, a.Call); got == nil || got.State != store.ApprovalApproved {
			t.Errorf("Take after Decide: got %+v, want approved", got)
		}
	})
	t.Run("concurrent takes: exactly one", func(t *testing.T) {
		s := newStore(t)
		a := request(t, s, approval("call-ct"))
		decide(t, s, a.ID, true)
		var seen atomic.Int32
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				got, err := s.Take(ctx, a.Call)
				switch {
				case err != nil:
					t.Errorf("Take %d: %v", i, err)
				case got != nil && got.State == store.ApprovalApproved:
					seen.Add(1)
				case got != nil:
					t.Errorf("Take %d: got %+v, want approved or nil", i, got)
				}
			})
		}
		wg.Wait()
		if n := seen.Load(); n != 1 {
			t.Errorf("concurrent Takes: %d saw the approval, want exactly 1", n)
		}
	})
	t.Run("an expired approval is absent", func(t *testing.T) {
		s := newStore(t)
		old := approval("call-x")
		old.Expires = time.Now().Add(-2 * time.Second).Truncate(time.Millisecond)
		request(t, s, old)
		if got := get(t, s, old.ID); got != nil {
			t.Errorf("Get: got %+v, want nil", got)
		}
		if got := take(t, s, old.Call); got != nil {
			t.Errorf("Take: got %+v, want nil", got)
		}
		if got, err := s.Decide(ctx, old.ID, true); !errors.Is(err, store.ErrApprovalClosed) {
			t.Errorf("Decide: got %+v, %v; want ErrApprovalClosed", got, err)
		}
		fresh := approval("call-x")
		if got := request(t, s, fresh); !same(got, fresh) {
			t.Errorf("Request after expiry: got %+v, want the new one %+v", got, fresh)
		}
		if got := get(t, s, old.ID); got != nil {
			t.Errorf("Get of the expired id after the new Request: got %+v, want nil", got)
		}
		if got := get(t, s, fresh.ID); !same(got, fresh) {
			t.Errorf("Get of the new id: got %+v, want %+v", got, fresh)
		}
	})
	t.Run("an approval expires while held", func(t *testing.T) {
		s := newStore(t)
		a := approval("call-soon")
		a.Expires = time.Now().Add(50 * time.Millisecond).Truncate(time.Millisecond)
		request(t, s, a)
		time.Sleep(time.Until(a.Expires) + 30*time.Millisecond)
		if got := get(t, s, a.ID); got != nil {
			t.Errorf("Get after it expired: got %+v, want nil", got)
		}
		if got, err := s.Decide(ctx, a.ID, true); !errors.Is(err, store.ErrApprovalClosed) {
			t.Errorf("Decide after it expired: got %+v, %v; want ErrApprovalClosed", got, err)
		}
		if got := take(t, s, a.Call); got != nil {
			t.Errorf("Take after it expired: got %+v, want nil", got)
		}
		b := approval("call-soon")
		if got := request(t, s, b); got == nil || got.ID != b.ID {
			t.Errorf("Request after it expired: got %+v, want the new one %s", got, b.ID)
		}
	})
}

// TestOAuthStore checks that the stores newStore returns keep the contract
// of [store.OAuth]: every field comes back as it was given (times to the
// millisecond, Request byte for byte, Trust in order) in the caller's own
// copy; an unknown or expired token is nil; Deactivate succeeds once, for
// exactly one of concurrent calls, and leaves the token to be found,
// inactive; what is done to a grant's tokens of one kind leaves the other
// kinds and grants alone; a new grant replaces the person's earlier one to
// the same client, with all its tokens, under concurrent grants too;
// Grants lists the newest first;
// Spend stays within the ceiling in its currency, under concurrent calls
// too, and changes nothing when it refuses; Used keeps the latest time;
// RevokeGrant forgets the grant and all its tokens; a registered client
// comes back as it was given. Each subtest gets a new store.
func TestOAuthStore(t *testing.T, newStore func(t *testing.T) store.OAuth) {
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	token := func(kind store.OAuthKind, signature, grant string) *store.OAuthToken {
		return &store.OAuthToken{
			Kind:      kind,
			Signature: signature,
			Grant:     grant,
			Active:    true,
			Expires:   now.Add(time.Hour),
			Request:   []byte("{\"client_id\":\"https://host.test/c\u00e9\",\"scope\":\"read spend\"}\x00\xff\xfe"),
		}
	}
	grant := func(id, subject, client string, created time.Time) *store.OAuthGrant {
		return &store.OAuthGrant{
			ID:         id,
			Subject:    subject,
			Client:     client,
			ClientName: "Claude — \"the assistant\"",
			Trust:      []string{"write", "read", "spend"},
			Currency:   "EUR",
			Ceiling:    96.99,
			Spent:      0.01,
			Created:    created,
			LastUsed:   created.Add(time.Second),
		}
	}
	sameToken := func(got, want *store.OAuthToken) bool {
		return got != nil && got.Kind == want.Kind && got.Signature == want.Signature && got.Grant == want.Grant &&
			got.Active == want.Active && got.Expires.Equal(want.Expires) && string(got.Request) == string(want.Request)
	}
	sameGrant := func(got, want *store.OAuthGrant) bool {
		return got != nil && got.ID == want.ID && got.Subject == want.Subject && got.Client == want.Client &&
			got.ClientName == want.ClientName && slices.Equal(got.Trust, want.Trust) && got.Currency == want.Currency &&
			got.Ceiling == want.Ceiling && got.Spent == want.Spent && got.Created.Equal(want.Created) && got.LastUsed.Equal(want.LastUsed)
	}
	createToken := func(t *testing.T, s store.OAuth, tok *store.OAuthToken) {
		t.Helper()
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatalf("CreateToken(%s %s): %v", tok.Kind, tok.Signature, err)
		}
	}
	getToken := func(t *testing.T, s store.OAuth, kind store.OAuthKind, signature string) *store.OAuthToken {
		t.Helper()
		got, err := s.Token(ctx, kind, signature)
		if err != nil {
			t.Fatalf("Token(%s %s): %v", kind, signature, err)
		}
		return got
	}
	createGrant := func(t *testing.T, s store.OAuth, g *store.OAuthGrant) {
		t.Helper()
		if err := s.CreateGrant(ctx, g); err != nil {
			t.Fatalf("CreateGrant(%s): %v", g.ID, err)
		}
	}
	getGrant := func(t *testing.T, s store.OAuth, id string) *store.OAuthGrant {
		t.Helper()
		got, err := s.Grant(ctx, id)
		if err != nil {
			t.Fatalf("Grant(%s): %v", id, err)
		}
		return got
	}
	// held reports which of the tokens the store still has, and whether
	// each is active: "access a1" or "access a1 inactive".
	held := func(t *testing.T, s store.OAuth, toks ...*store.OAuthToken) []string {
		t.Helper()
		var out []string
		for _, tok := range toks {
			if got := getToken(t, s, tok.Kind, tok.Signature); got != nil {
				out = append(out, fmt.Sprintf("%s %s%s", got.Kind, got.Signature, map[bool]string{false: " inactive"}[got.Active]))
			}
		}
		return out
	}
	kinds := []store.OAuthKind{store.OAuthCode, store.OAuthAccess, store.OAuthRefresh, store.OAuthPKCE}

	t.Run("a token comes back as given", func(t *testing.T) {
		s := newStore(t)
		tok := token(store.OAuthAccess, "sig-1", "g1")
		want := *tok
		want.Request = slices.Clone(tok.Request)
		createToken(t, s, tok)
		tok.Request[0] = 'X' // the store keeps its own copy
		got := getToken(t, s, store.OAuthAccess, "sig-1")
		if !sameToken(got, &want) {
			t.Fatalf("Token: got %+v, want %+v", got, want)
		}
		got.Request[0] = 'Y'
		if got := getToken(t, s, store.OAuthAccess, "sig-1"); !sameToken(got, &want) {
			t.Errorf("Token after the last one's Request was changed: got %+v, want %+v", got, want)
		}
		for _, k := range [][2]string{{string(store.OAuthRefresh), "sig-1"}, {string(store.OAuthAccess), "sig-2"}, {string(store.OAuthAccess), ""}} {
			if got := getToken(t, s, store.OAuthKind(k[0]), k[1]); got != nil {
				t.Errorf("Token(%s %q), unknown: got %+v, want nil", k[0], k[1], got)
			}
		}
		if err := s.DeleteToken(ctx, store.OAuthAccess, "sig-1"); err != nil {
			t.Fatal(err)
		}
		if got := getToken(t, s, store.OAuthAccess, "sig-1"); got != nil {
			t.Errorf("Token after DeleteToken: got %+v, want nil", got)
		}
		if err := s.DeleteToken(ctx, store.OAuthAccess, "sig-unknown"); err != nil {
			t.Errorf("DeleteToken of an unknown token: %v, want nil", err)
		}
	})
	t.Run("an expired token is absent", func(t *testing.T) {
		s := newStore(t)
		old := token(store.OAuthRefresh, "old", "g1")
		old.Expires = time.Now().Add(-2 * time.Second).Truncate(time.Millisecond)
		createToken(t, s, old)
		soon := token(store.OAuthCode, "soon", "g1")
		soon.Expires = time.Now().Add(50 * time.Millisecond).Truncate(time.Millisecond)
		createToken(t, s, soon)
		if got := getToken(t, s, store.OAuthCode, "soon"); !sameToken(got, soon) {
			t.Fatalf("Token before it expires: got %+v, want %+v", got, soon)
		}
		time.Sleep(time.Until(soon.Expires) + 30*time.Millisecond)
		for _, tok := range []*store.OAuthToken{old, soon} {
			if got := getToken(t, s, tok.Kind, tok.Signature); got != nil {
				t.Errorf("Token %s, expired: got %+v, want nil", tok.Signature, got)
			}
			if err := s.Deactivate(ctx, tok.Kind, tok.Signature); !errors.Is(err, store.ErrInactive) {
				t.Errorf("Deactivate %s, expired: got %v, want ErrInactive", tok.Signature, err)
			}
		}
	})
	t.Run("deactivate once", func(t *testing.T) {
		s := newStore(t)
		tok := token(store.OAuthCode, "code-1", "g1")
		createToken(t, s, tok)
		other := token(store.OAuthRefresh, "code-1", "g1") // same signature, another kind
		createToken(t, s, other)
		if err := s.Deactivate(ctx, store.OAuthCode, "code-1"); err != nil {
			t.Fatalf("Deactivate: %v", err)
		}
		want := *tok
		want.Active = false
		if got := getToken(t, s, store.OAuthCode, "code-1"); !sameToken(got, &want) {
			t.Errorf("Token after Deactivate: got %+v, want it kept, inactive: %+v", got, want)
		}
		if err := s.Deactivate(ctx, store.OAuthCode, "code-1"); !errors.Is(err, store.ErrInactive) {
			t.Errorf("Deactivate again: got %v, want ErrInactive", err)
		}
		if got := getToken(t, s, store.OAuthRefresh, "code-1"); !sameToken(got, other) {
			t.Errorf("the token of another kind with the same signature: got %+v, want it untouched, active", got)
		}
		for _, k := range [][2]string{{string(store.OAuthCode), "code-2"}, {string(store.OAuthAccess), "code-1"}} {
			if err := s.Deactivate(ctx, store.OAuthKind(k[0]), k[1]); !errors.Is(err, store.ErrInactive) {
				t.Errorf("Deactivate(%s %s), unknown: got %v, want ErrInactive", k[0], k[1], err)
			}
		}
		inactive := token(store.OAuthRefresh, "born-inactive", "g1")
		inactive.Active = false
		createToken(t, s, inactive)
		if err := s.Deactivate(ctx, store.OAuthRefresh, "born-inactive"); !errors.Is(err, store.ErrInactive) {
			t.Errorf("Deactivate of a token created inactive: got %v, want ErrInactive", err)
		}
	})
	t.Run("concurrent deactivates: one wins", func(t *testing.T) {
		s := newStore(t)
		createToken(t, s, token(store.OAuthRefresh, "r1", "g1"))
		var won atomic.Int32
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				switch err := s.Deactivate(ctx, store.OAuthRefresh, "r1"); {
				case err == nil:
					won.Add(1)
				case !errors.Is(err, store.ErrInactive):
					t.Errorf("Deactivate %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		if n := won.Load(); n != 1 {
			t.Errorf("concurrent Deactivates: %d succeeded, want exactly 1", n)
		}
		if err := s.Deactivate(ctx, store.OAuthRefresh, "r1"); !errors.Is(err, store.ErrInactive) {
			t.Errorf("Deactivate after them: got %v, want ErrInactive", err)
		}
	})
	t.Run("a grant's tokens of one kind", func(t *testing.T) {
		s := newStore(t)
		var toks []*store.OAuthToken
		for _, g := range []string{"g1", "g2"} {
			for _, k := range kinds {
				for _, n := range []string{"a", "b"} {
					tok := token(k, g+"-"+string(k)+"-"+n, g)
					createToken(t, s, tok)
					toks = append(toks, tok)
				}
			}
		}
		if err := s.DeactivateGrant(ctx, store.OAuthAccess, "g1"); err != nil {
			t.Fatal(err)
		}
		want := []string{
			"code g1-code-a", "code g1-code-b", "access g1-access-a inactive", "access g1-access-b inactive",
			"refresh g1-refresh-a", "refresh g1-refresh-b", "pkce g1-pkce-a", "pkce g1-pkce-b",
			"code g2-code-a", "code g2-code-b", "access g2-access-a", "access g2-access-b",
			"refresh g2-refresh-a", "refresh g2-refresh-b", "pkce g2-pkce-a", "pkce g2-pkce-b",
		}
		if got := held(t, s, toks...); !slices.Equal(got, want) {
			t.Errorf("after DeactivateGrant(access, g1): got %q, want %q", got, want)
		}
		if err := s.DeleteGrantTokens(ctx, store.OAuthRefresh, "g1"); err != nil {
			t.Fatal(err)
		}
		want = slices.DeleteFunc(want, func(s string) bool { return strings.HasPrefix(s, "refresh g1-") })
		if got := held(t, s, toks...); !slices.Equal(got, want) {
			t.Errorf("after DeleteGrantTokens(refresh, g1): got %q, want %q", got, want)
		}
		for _, err := range []error{s.DeactivateGrant(ctx, store.OAuthAccess, "g-unknown"), s.DeleteGrantTokens(ctx, store.OAuthAccess, "g-unknown")} {
			if err != nil {
				t.Errorf("on an unknown grant: %v, want nil", err)
			}
		}
	})
	t.Run("a grant comes back as given", func(t *testing.T) {
		s := newStore(t)
		g := grant("g1", "u1", "https://claude.test/client.json", now)
		want := *g
		want.Trust = slices.Clone(g.Trust)
		createGrant(t, s, g)
		g.Trust[0] = "admin" // the store keeps its own copy
		got := getGrant(t, s, "g1")
		if !sameGrant(got, &want) {
			t.Fatalf("Grant: got %+v, want %+v", got, want)
		}
		got.Trust[1] = "admin"
		if got := getGrant(t, s, "g1"); !sameGrant(got, &want) {
			t.Errorf("Grant after the last one's Trust was changed: got %+v, want %+v", got, want)
		}
		if got := getGrant(t, s, "g-unknown"); got != nil {
			t.Errorf("Grant of an unknown id: got %+v, want nil", got)
		}
		bare := &store.OAuthGrant{ID: "g2", Subject: "u2", Client: "c2", Created: now}
		createGrant(t, s, bare)
		if got := getGrant(t, s, "g2"); !sameGrant(got, bare) || !got.LastUsed.IsZero() {
			t.Errorf("Grant of no trust, currency or use: got %+v, want %+v", got, bare)
		}
	})
	t.Run("a new grant replaces the client's earlier one", func(t *testing.T) {
		s := newStore(t)
		createGrant(t, s, grant("g1", "u1", "c1", now))
		createGrant(t, s, grant("g-other-client", "u1", "c2", now))
		createGrant(t, s, grant("g-other-person", "u2", "c1", now))
		var toks []*store.OAuthToken
		for _, g := range []string{"g1", "g-other-client", "g-other-person"} {
			for _, k := range kinds {
				tok := token(k, g+"-"+string(k), g)
				createToken(t, s, tok)
				toks = append(toks, tok)
			}
		}
		g2 := grant("g2", "u1", "c1", now.Add(time.Second))
		createGrant(t, s, g2)
		if got := getGrant(t, s, "g1"); got != nil {
			t.Errorf("the earlier grant: got %+v, want it forgotten", got)
		}
		if got := getGrant(t, s, "g2"); !sameGrant(got, g2) {
			t.Errorf("the new grant: got %+v, want %+v", got, g2)
		}
		want := []string{
			"code g-other-client-code", "access g-other-client-access", "refresh g-other-client-refresh", "pkce g-other-client-pkce",
			"code g-other-person-code", "access g-other-person-access", "refresh g-other-person-refresh", "pkce g-other-person-pkce",
		}
		if got := held(t, s, toks...); !slices.Equal(got, want) {
			t.Errorf("tokens after the new grant: got %q, want %q: the earlier grant's all gone, the others' kept", got, want)
		}
		grants, err := s.Grants(ctx, "u1")
		if err != nil {
			t.Fatal(err)
		}
		if ids := grantIDs(grants); !slices.Equal(ids, []string{"g2", "g-other-client"}) {
			t.Errorf("Grants(u1): got %q, want [g2 g-other-client]", ids)
		}
	})
	t.Run("concurrent grants to one client: one stays", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		for i := range 10 {
			wg.Go(func() {
				if err := s.CreateGrant(ctx, grant(fmt.Sprint("g", i), "u1", "c1", now.Add(time.Duration(i)*time.Second))); err != nil {
					t.Errorf("CreateGrant %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		grants, err := s.Grants(ctx, "u1")
		if err != nil {
			t.Fatal(err)
		}
		if len(grants) != 1 {
			t.Errorf("Grants(u1) after 10 concurrent grants to one client: got %q, want one", grantIDs(grants))
		}
	})
	t.Run("grants newest first", func(t *testing.T) {
		s := newStore(t)
		for i, id := range []string{"g-mid", "g-old", "g-new"} {
			created := now.Add(time.Duration([]int{0, -1, 1}[i]) * time.Hour)
			createGrant(t, s, grant(id, "u1", "client-"+id, created))
		}
		createGrant(t, s, grant("g-u2", "u2", "client-g-new", now))
		grants, err := s.Grants(ctx, "u1")
		if err != nil {
			t.Fatal(err)
		}
		if ids := grantIDs(grants); !slices.Equal(ids, []string{"g-new", "g-mid", "g-old"}) {
			t.Errorf("Grants(u1): got %q, want [g-new g-mid g-old]", ids)
		}
		if want := grant("g-new", "u1", "client-g-new", now.Add(time.Hour)); len(grants) == 0 || !sameGrant(grants[0], want) {
			t.Errorf("Grants(u1)[0]: got %+v, want %+v", grants[0], want)
		}
		if grants, err := s.Grants(ctx, "u-unknown"); err != nil || len(grants) != 0 {
			t.Errorf("Grants of an unknown person: got %v, %v; want none", grants, err)
		}
	})
	t.Run("spend within the ceiling", func(t *testing.T) {
		s := newStore(t)
		g := grant("g1", "u1", "c1", now)
		g.Ceiling, g.Spent = 50, 0
		createGrant(t, s, g)
		spent := func(t *testing.T) float64 {
			t.Helper()
			got := getGrant(t, s, "g1")
			if got == nil {
				t.Fatal("Grant: nil, want it")
			}
			return got.Spent
		}
		for _, amount := range []float64{12.5, 30} {
			if err := s.Spend(ctx, "g1", "EUR", amount); err != nil {
				t.Fatalf("Spend(%v): %v", amount, err)
			}
		}
		if got := spent(t); got != 42.5 {
			t.Fatalf("Spent: got %v, want 42.5", got)
		}
		refused := []struct {
			name     string
			currency string
			amount   float64
		}{
			{"over the ceiling", "EUR", 7.75},
			{"another currency", "USD", 1},
			{"no currency", "", 1},
			{"not a number", "EUR", math.NaN()},
			{"infinite", "EUR", math.Inf(1)},
		}
		for _, r := range refused {
			if err := s.Spend(ctx, "g1", r.currency, r.amount); !errors.Is(err, store.ErrOverCeiling) {
				t.Errorf("Spend %s (%s %v): got %v, want ErrOverCeiling", r.name, r.currency, r.amount, err)
			}
			if got := spent(t); got != 42.5 {
				t.Errorf("Spent after Spend %s: got %v, want 42.5, unchanged", r.name, got)
			}
		}
		if err := s.Spend(ctx, "g1", "EUR", 7.5); err != nil {
			t.Errorf("Spend of what is left: %v, want nil", err)
		}
		if err := s.Spend(ctx, "g1", "EUR", -30); err != nil {
			t.Errorf("Spend(-30), giving back: %v, want nil", err)
		}
		if got := spent(t); got != 20 {
			t.Errorf("Spent after giving back: got %v, want 20", got)
		}
		if err := s.Spend(ctx, "g1", "EUR", math.NaN()); !errors.Is(err, store.ErrOverCeiling) {
			t.Errorf("Spend(NaN) after giving back: got %v, want ErrOverCeiling", err)
		}
		if err := s.Spend(ctx, "g1", "EUR", 30.25); !errors.Is(err, store.ErrOverCeiling) {
			t.Errorf("Spend(30.25) over what was given back: got %v, want ErrOverCeiling", err)
		}
		none := &store.OAuthGrant{ID: "g-none", Subject: "u1", Client: "c2", Ceiling: 100, Created: now}
		createGrant(t, s, none)
		for _, currency := range []string{"", "EUR"} {
			if err := s.Spend(ctx, "g-none", currency, 1); !errors.Is(err, store.ErrOverCeiling) {
				t.Errorf("Spend(%q) on a grant of no currency: got %v, want ErrOverCeiling", currency, err)
			}
		}
		if err := s.Spend(ctx, "g-unknown", "EUR", 1); err == nil {
			t.Error("Spend on an unknown grant: nil, want an error: nothing is spent on no grant")
		}
	})
	t.Run("concurrent spends never go over", func(t *testing.T) {
		s := newStore(t)
		g := grant("g1", "u1", "c1", now)
		g.Ceiling, g.Spent = 55, 0
		createGrant(t, s, g)
		var ok atomic.Int32
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				switch err := s.Spend(ctx, "g1", "EUR", 10); {
				case err == nil:
					ok.Add(1)
				case !errors.Is(err, store.ErrOverCeiling):
					t.Errorf("Spend %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		if n := ok.Load(); n != 5 {
			t.Errorf("20 concurrent Spends of 10 on a ceiling of 55: %d succeeded, want exactly 5", n)
		}
		if got := getGrant(t, s, "g1"); got == nil || got.Spent != 50 {
			t.Errorf("Spent: got %+v, want 50", got)
		}
	})
	t.Run("used keeps the latest", func(t *testing.T) {
		s := newStore(t)
		createGrant(t, s, grant("g1", "u1", "c1", now))
		later, earlier := now.Add(time.Minute), now.Add(30*time.Second)
		for _, at := range []time.Time{later, earlier} {
			if err := s.Used(ctx, "g1", at); err != nil {
				t.Fatalf("Used(%v): %v", at, err)
			}
		}
		if got := getGrant(t, s, "g1"); got == nil || !got.LastUsed.Equal(later) {
			t.Errorf("LastUsed: got %+v, want %v, the latest", got, later)
		}
	})
	t.Run("revoke forgets the grant and its tokens", func(t *testing.T) {
		s := newStore(t)
		createGrant(t, s, grant("g1", "u1", "c1", now))
		createGrant(t, s, grant("g2", "u1", "c2", now))
		var toks []*store.OAuthToken
		for _, g := range []string{"g1", "g2"} {
			for _, k := range kinds {
				tok := token(k, g+"-"+string(k), g)
				createToken(t, s, tok)
				toks = append(toks, tok)
			}
		}
		if err := s.Deactivate(ctx, store.OAuthCode, "g1-code"); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeGrant(ctx, "g1"); err != nil {
			t.Fatal(err)
		}
		if got := getGrant(t, s, "g1"); got != nil {
			t.Errorf("Grant after RevokeGrant: got %+v, want nil", got)
		}
		want := []string{"code g2-code", "access g2-access", "refresh g2-refresh", "pkce g2-pkce"}
		if got := held(t, s, toks...); !slices.Equal(got, want) {
			t.Errorf("tokens after RevokeGrant(g1): got %q, want %q", got, want)
		}
		if grants, err := s.Grants(ctx, "u1"); err != nil || !slices.Equal(grantIDs(grants), []string{"g2"}) {
			t.Errorf("Grants(u1): got %q, %v; want [g2]", grantIDs(grants), err)
		}
		if err := s.RevokeGrant(ctx, "g1"); err != nil {
			t.Errorf("RevokeGrant again: %v, want nil", err)
		}
		again := grant("g3", "u1", "c1", now.Add(time.Second))
		createGrant(t, s, again)
		if got := getGrant(t, s, "g3"); !sameGrant(got, again) {
			t.Errorf("a new grant to the client after RevokeGrant: got %+v, want %+v", got, again)
		}
	})
	t.Run("a client comes back as given", func(t *testing.T) {
		s := newStore(t)
		c := &store.OAuthClient{ID: "client-1", Name: "VS Code — \"dev\"", RedirectURIs: []string{"http://127.0.0.1/callback", "https://vscode.dev/redirect"}, Created: now}
		want := *c
		want.RedirectURIs = slices.Clone(c.RedirectURIs)
		if err := s.CreateClient(ctx, c); err != nil {
			t.Fatal(err)
		}
		c.RedirectURIs[0] = "https://evil.test/" // the store keeps its own copy
		got, err := s.Client(ctx, "client-1")
		if err != nil || got == nil || got.ID != want.ID || got.Name != want.Name ||
			!slices.Equal(got.RedirectURIs, want.RedirectURIs) || !got.Created.Equal(want.Created) {
			t.Fatalf("Client: got %+v, %v; want %+v", got, err, want)
		}
		if got, err := s.Client(ctx, "client-unknown"); err != nil || got != nil {
			t.Errorf("Client of an unknown id: got %+v, %v; want nil, nil", got, err)
		}
	})
}

// grantIDs returns the ids of grants, in order.
func grantIDs(grants []*store.OAuthGrant) []string {
	var ids []string
	for _, g := range grants {
		ids = append(ids, g.ID)
	}
	return ids
}
