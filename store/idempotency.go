package store

import (
	"context"
	"crypto/sha256"
	"net/http"
	"sync"
	"time"
)

// IdempotencyTTL is how long a kept delta is replayed (docs/protocol.md decision 10).
const IdempotencyTTL = 24 * time.Hour

// An Idempotency store keeps the first delta of each call made with an
// Idempotency-Key (docs/protocol.md decision 10), so that a retry gets it back instead
// of running the action again. Implementations must be safe for concurrent
// use, by several instances of a site when they share it.
//
// An entry is named by a scope and a key. The scope is opaque: it says who
// is calling and on which page, and the site builds it so that distinct
// callers or pages never share one. The key is the header's value: 1 to 255
// visible ASCII characters, so it holds no space and key + " " + scope names
// the entry unambiguously.
//
// The contract, for one (scope, key):
//
//   - [Idempotency.Begin] either claims the entry for a call (when
//     nothing is held under it) or reports what is held. It must do both
//     atomically, so that of any number of concurrent Begins exactly one
//     claims: this is what guarantees an action never runs twice. A Redis
//     store does it in one round trip (SET NX GET).
//   - The caller that claimed calls [Idempotency.Finish] or
//     [Idempotency.Release], exactly once. Until then, Begin reports
//     the entry as running (a [KeptCall] with a nil Delta), and the site
//     answers such a duplicate with a retryable refusal: unavailable (409),
//     Retry-After: 1, "A call with this Idempotency-Key is still running;
//     retry." It never waits for, and never repeats, the running call.
//   - Finish keeps the answer for [IdempotencyTTL]; later Begins return it
//     until it expires, and then Begin claims again.
//   - Release forgets the claim, keeping nothing: the next Begin claims.
//
// A store may drop a kept answer early (to stay within its size) and may
// expire a claim that was never finished (an instance that crashed while a
// call ran); the first lets a late retry run again, the second is the only
// way a claim ends without Finish or Release.
type Idempotency interface {
	// Begin claims (scope, key) for a call whose body has the SHA-256
	// bodyHash and returns nil, or returns what is held there without
	// claiming: the hash of the body that claimed it, and its kept answer,
	// nil while that call still runs.
	Begin(ctx context.Context, scope, key string, bodyHash [sha256.Size]byte) (*KeptCall, error)

	// Finish keeps res as the answer of the call that claimed (scope, key),
	// for [IdempotencyTTL]. The store and its callers treat res as read-only
	// from then on.
	Finish(ctx context.Context, scope, key string, res *KeptDelta) error

	// Release forgets the claim on (scope, key) without keeping anything.
	Release(ctx context.Context, scope, key string) error
}

// A KeptCall is what an [Idempotency] store holds for one (scope, key).
type KeptCall struct {
	// BodyHash is the SHA-256 of the body of the call that claimed the key.
	BodyHash [sha256.Size]byte
	// Delta is that call's answer, or nil while it still runs.
	Delta *KeptDelta
}

// A KeptDelta is a call's answer as a site replays it, byte for byte: the
// HTTP status, the headers the action set (Set-Cookie included; never
// Retry-After), and the encoded delta. The media type and caching headers
// of docs/protocol.md decision 3 and WWW-Authenticate are not kept; every answer gets
// them anew.
type KeptDelta struct {
	Status int
	Header http.Header
	Body   []byte
}

// NewMemoryIdempotency returns an [Idempotency] store held in memory, for
// a single instance. It keeps at most opts.Max answers (0: 10,000) for
// [IdempotencyTTL] each; past that it forgets the answer used longest ago,
// in constant time, so memory stays bounded under a flood of new keys.
// Claims of calls still running are held apart and never forgotten for
// room: there are at most as many as calls in flight.
func NewMemoryIdempotency(opts *MemoryOptions) Idempotency {
	return newMemoryIdempotency(opts)
}

func newMemoryIdempotency(opts *MemoryOptions) *memoryIdempotency {
	o := opts.withDefaults(10_000)
	return &memoryIdempotency{
		now:     o.Now,
		running: map[idempotencyKey][sha256.Size]byte{},
		kept:    newLRU[idempotencyKey, keptEntry](o.Max),
	}
}

type memoryIdempotency struct {
	mu      sync.Mutex
	now     func() time.Time
	running map[idempotencyKey][sha256.Size]byte // claims: the body hash of each running call
	kept    *lru[idempotencyKey, keptEntry]
}

type idempotencyKey struct{ scope, key string }

type keptEntry struct {
	call    KeptCall
	expires time.Time
}

func (m *memoryIdempotency) Begin(_ context.Context, scope, key string, bodyHash [sha256.Size]byte) (*KeptCall, error) {
	id := idempotencyKey{scope, key}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	// Expired answers at the back go first; each is removed once, so the
	// cost stays constant over time.
	for e := m.kept.oldest(); e != nil && !now.Before(e.expires); e = m.kept.oldest() {
		m.kept.dropOldest()
	}
	if e := m.kept.get(id); e != nil {
		if now.Before(e.expires) {
			kc := e.call
			return &kc, nil
		}
		m.kept.remove(id)
	}
	if h, ok := m.running[id]; ok {
		return &KeptCall{BodyHash: h}, nil
	}
	m.running[id] = bodyHash
	return nil, nil
}

func (m *memoryIdempotency) Finish(_ context.Context, scope, key string, res *KeptDelta) error {
	id := idempotencyKey{scope, key}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.running[id]
	if !ok {
		return nil // not claimed here: nothing to keep
	}
	delete(m.running, id)
	m.kept.put(id, keptEntry{call: KeptCall{BodyHash: h, Delta: res}, expires: now.Add(IdempotencyTTL)})
	return nil
}

func (m *memoryIdempotency) Release(_ context.Context, scope, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.running, idempotencyKey{scope, key})
	return nil
}
