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
		if n := len(l.buckets); n > 10 || l.lru.Len() != n {
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
