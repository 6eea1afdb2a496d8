package affordances

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestMemoryRateLimiterStaysBounded: a flood of new clients never grows the
// limiter past its size, and each new key still gets its burst.
func TestMemoryRateLimiterStaysBounded(t *testing.T) {
	l := NewMemoryRateLimiter(10).(*memoryLimiter)
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

// TestClientNetwork: anonymous callers are counted by IPv4 address or IPv6
// /64, so one host cannot mint fresh quota from its own prefix.
func TestClientNetwork(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.7:5555":             "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2::9]:80":       "2001:db8:1:2::/64",
		"[::ffff:192.0.2.7]:1":       "192.0.2.7",
		"not-an-address":             "not-an-address",
	} {
		if got := clientNetwork(addr); got != want {
			t.Errorf("clientNetwork(%q): got %q, want %q", addr, got, want)
		}
	}
}
