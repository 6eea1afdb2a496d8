package affordancestest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
)

// TestRateLimiter checks that the limiters newLimiter returns keep the
// contract of [affordances.RateLimiter] as the in-memory limiter does, so
// that a shared one (Redis) can stand in for it: a burst of Burst calls
// fits, the next is refused with the wait until one fits, a refused call
// is not counted, keys are counted apart, and concurrent calls never let
// more through than the limit. Each subtest gets a new limiter.
func TestRateLimiter(t *testing.T, newLimiter func(t *testing.T) affordances.RateLimiter) {
	ctx := context.Background()
	t.Run("burst, then the wait", func(t *testing.T) {
		l := newLimiter(t)
		lim := affordances.Limit{Calls: 60, Per: time.Minute, Burst: 5}
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
		lim := affordances.Limit{Calls: 10, Per: time.Second, Burst: 1} // one call each 100ms
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
		lim := affordances.Limit{Calls: 1, Per: time.Hour, Burst: 20}
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
// contract of [affordances.IdempotencyStore]: Begin claims once and then
// reports the claim as running, Finish keeps the answer byte for byte,
// Release forgets the claim, scopes and keys are apart, and of concurrent
// Begins exactly one claims. Each subtest gets a new store.
func TestIdempotencyStore(t *testing.T, newStore func(t *testing.T) affordances.IdempotencyStore) {
	ctx := context.Background()
	hash := sha256.Sum256([]byte(`{"action":"start"}`))
	other := sha256.Sum256([]byte(`{"action":"stop"}`))
	begin := func(t *testing.T, s affordances.IdempotencyStore, scope, key string, h [sha256.Size]byte) *affordances.KeptCall {
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
		kept := &affordances.KeptDelta{Status: http.StatusOK, Header: http.Header{"Set-Cookie": {"run=1"}}, Body: []byte(`{"ok":true}`)}
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
					t.Error(fmt.Errorf("Begin %d: %w", i, err))
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
