package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestMemoryIdempotencyStaysBounded: a flood of new keys never grows
// the store past its size, the answers used last are the ones kept, and a
// claim still running is never forgotten for room (it would let the
// action run twice).
func TestMemoryIdempotencyStaysBounded(t *testing.T) {
	m := newMemoryIdempotency(&MemoryOptions{Max: 10})
	ctx := context.Background()
	hash := sha256.Sum256([]byte(`{"action":"ping"}`))
	if held, _ := m.Begin(ctx, "p:\"u1\" /", "running", hash); held != nil {
		t.Fatalf("first Begin: got %+v, want a claim", held)
	}
	for i := range 1000 {
		key := fmt.Sprint("flood", i)
		if held, _ := m.Begin(ctx, "a:\"192.0.2.7\" /", key, hash); held != nil {
			t.Fatalf("new key %d: got %+v, want a claim", i, held)
		}
		m.Finish(ctx, "a:\"192.0.2.7\" /", key, &KeptDelta{Status: http.StatusOK, Body: []byte(key)})
		if n := held(t, m.kept); n > 10 {
			t.Fatalf("after %d keys the store keeps %d, want at most 10", i+1, n)
		}
	}
	if n := len(m.running); n != 1 {
		t.Errorf("running claims: got %d, want 1", n)
	}
	held, _ := m.Begin(ctx, "p:\"u1\" /", "running", hash)
	if held == nil || held.Delta != nil {
		t.Errorf("the running claim after the flood: got %+v, want still running", held)
	}
	held, _ = m.Begin(ctx, "a:\"192.0.2.7\" /", "flood999", hash)
	if held == nil || held.Delta == nil || string(held.Delta.Body) != "flood999" {
		t.Errorf("the last key: got %+v, want its kept answer", held)
	}
	if held, _ = m.Begin(ctx, "a:\"192.0.2.7\" /", "flood0", hash); held != nil {
		t.Errorf("the first key: got %+v, want forgotten and claimed again", held)
	}
}

// TestMemoryIdempotencyDropsExpired: answers older than 24 hours
// (docs/protocol.md decision 10) are dropped as the store is used, not only when
// their own key comes back.
func TestMemoryIdempotencyDropsExpired(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	m := newMemoryIdempotency(&MemoryOptions{Max: 100, Now: func() time.Time { return now }})
	ctx := context.Background()
	var hash [sha256.Size]byte
	for i := range 5 {
		key := fmt.Sprint("k", i)
		m.Begin(ctx, "s", key, hash)
		m.Finish(ctx, "s", key, &KeptDelta{Status: http.StatusOK})
	}
	now = now.Add(IdempotencyTTL)
	m.Begin(ctx, "s", "fresh", hash)
	if n := held(t, m.kept); n != 0 {
		t.Errorf("kept after 24 hours: got %d, want 0", n)
	}
}
