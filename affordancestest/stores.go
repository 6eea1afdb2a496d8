package affordancestest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
