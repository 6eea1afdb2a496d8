package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestMemoryRateLimiterStaysBounded: a flood of new clients never grows the
// limiter past its size, and each new key still gets its burst.
func TestMemoryRateLimiterStaysBounded(t *testing.T) {
	l := NewMemoryRateLimiter(&MemoryOptions{Max: 10}).(*memoryLimiter)
	lim := Limit{Calls: 1, Per: time.Hour, Burst: 1}
	ctx := context.Background()
	if ok, _, _ := l.Allow(ctx, "alice", lim); !ok {
		t.Fatal("first call refused")
	}
	if ok, wait, _ := l.Allow(ctx, "alice", lim); ok || wait < 59*time.Minute {
		t.Fatalf("second call: got ok %v wait %v, want refused for about an hour", ok, wait)
	}
	for i := range 1000 {
		if ok, _, _ := l.Allow(ctx, fmt.Sprint("flood", i), lim); !ok {
			t.Fatalf("new key %d refused", i)
		}
		if n := held(t, l.buckets); n > 10 {
			t.Fatalf("after %d keys the limiter holds %d, want at most 10", i+1, n)
		}
	}
}

// TestMemoryRateLimiterClock: the limiter counts time by MemoryOptions.Now,
// so a refused key fits again once that clock has moved by the wait.
func TestMemoryRateLimiterClock(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewMemoryRateLimiter(&MemoryOptions{Now: func() time.Time { return now }})
	lim := Limit{Calls: 1, Per: time.Hour, Burst: 1}
	ctx := context.Background()
	l.Allow(ctx, "alice", lim)
	ok, wait, _ := l.Allow(ctx, "alice", lim)
	if ok || wait != time.Hour {
		t.Fatalf("second call: got ok %v wait %v, want refused for an hour", ok, wait)
	}
	now = now.Add(wait)
	if ok, wait, _ := l.Allow(ctx, "alice", lim); !ok {
		t.Errorf("an hour later by the clock: got refused, wait %v; want allowed", wait)
	}
}

// TestMemoryRateLimiterBucket: a burst, then one call each Per/Calls,
// refused calls not counted, the bucket never fuller than Burst, and a
// clock that goes back adds nothing; past Max, the key used longest ago
// is the one forgotten.
func TestMemoryRateLimiterBucket(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewMemoryRateLimiter(&MemoryOptions{Max: 2, Now: func() time.Time { return now }})
	lim := Limit{Calls: 2, Per: time.Second, Burst: 2}
	ctx := context.Background()
	allow := func(key string) (bool, time.Duration) {
		ok, wait, err := l.Allow(ctx, key, lim)
		if err != nil {
			t.Fatal(err)
		}
		return ok, wait
	}
	for i, want := range []bool{true, true, false, false} {
		if ok, wait := allow("a"); ok != want || (!ok && wait != 500*time.Millisecond) {
			t.Fatalf("call %d: got ok %v wait %v, want ok %v (or refused for 500ms)", i+1, ok, wait, want)
		}
	}
	now = now.Add(250 * time.Millisecond)
	if ok, wait := allow("a"); ok || wait != 250*time.Millisecond {
		t.Fatalf("a quarter second later: got ok %v wait %v, want refused for 250ms", ok, wait)
	}
	now = now.Add(time.Hour) // a long rest fills the bucket to Burst, not more
	for i, want := range []bool{true, true, false} {
		if ok, _ := allow("a"); ok != want {
			t.Fatalf("after an hour, call %d: got ok %v, want %v", i+1, ok, want)
		}
	}
	now = now.Add(-time.Minute) // the clock goes back
	if ok, _ := allow("a"); ok {
		t.Fatal("a clock that went back gave a call")
	}
	now = now.Add(time.Minute)
	allow("b")
	allow("a") // a is used last, so b goes when c comes
	allow("c")
	if ok, _ := allow("a"); ok {
		t.Error("a was forgotten: it got a fresh bucket, want its empty one")
	}
	if ok, _ := allow("b"); !ok {
		t.Error("b was kept, want it forgotten (used longest ago) and given a fresh bucket")
	}
}
