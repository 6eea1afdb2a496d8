package store

import (
	"context"
	"math"
	"sync"
	"time"
)

// A Limit is a rate limit: Calls calls per Per, with bursts of up to Burst.
// A site gives a [RateLimiter] only limits whose fields are all positive.
type Limit struct {
	Calls int
	Per   time.Duration
	Burst int
}

// A RateLimiter decides whether one more call under key fits its limit
// (docs/protocol.md §19, step 3). Implementations must be safe for concurrent use.
//
// The budget of a key is a token bucket, as [NewMemoryRateLimiter] keeps
// it: a burst of up to Limit.Burst calls, then one call each
// Limit.Per/Limit.Calls. A refused call is not counted; keys are counted
// apart. A key is opaque: the site chooses it, and means each key to be
// counted under one Limit.
type RateLimiter interface {
	// Allow counts one call under key. When the call is over the limit it
	// returns ok false and how long until a call would fit.
	Allow(ctx context.Context, key string, limit Limit) (ok bool, retryAfter time.Duration, err error)
}

// NewMemoryRateLimiter returns a token-bucket [RateLimiter] held in memory,
// for a single instance. It tracks at most opts.Max keys (0: 100,000); past
// that it forgets the key used longest ago, in constant time, so memory
// and the cost of a call stay bounded under a flood of new clients. A
// forgotten key starts again with a full bucket.
func NewMemoryRateLimiter(opts *MemoryOptions) RateLimiter {
	o := opts.withDefaults(100_000)
	return &memoryLimiter{now: o.Now, buckets: newLRU[string, bucket](o.Max)}
}

// memoryLimiter keeps a bucket a key.
type memoryLimiter struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets *lru[string, bucket]
}

// A bucket is a key's budget: tokens calls left as of at (Unix
// nanoseconds), at most the limit's Burst.
type bucket struct {
	tokens float64
	at     int64
}

func (m *memoryLimiter) Allow(_ context.Context, key string, l Limit) (bool, time.Duration, error) {
	now := m.now().UnixNano()
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.buckets.get(key)
	if b == nil {
		b = m.buckets.put(key, bucket{tokens: float64(l.Burst), at: now})
	} else if elapsed := now - b.at; elapsed > 0 {
		// Refill for the time since: Calls each Per, up to Burst. A clock
		// that went back adds nothing.
		b.tokens = min(float64(l.Burst), b.tokens+float64(elapsed)*float64(l.Calls)/float64(l.Per))
		b.at = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, nil
	}
	// How long until one call fits; the refused call is not counted.
	wait := math.Ceil((1 - b.tokens) * float64(l.Per) / float64(l.Calls))
	return false, time.Duration(wait), nil
}
