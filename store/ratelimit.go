package store

import (
	"container/list"
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// A Limit is a rate limit: Calls calls per Per, with bursts of up to Burst.
// A site gives a [RateLimiter] only limits whose fields are all positive.
type Limit struct {
	Calls int
	Per   time.Duration
	Burst int
}

// A RateLimiter decides whether one more call under key fits its limit (seed
// 000, step 3). Implementations must be safe for concurrent use.
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
	return &memoryLimiter{max: o.Max, now: o.Now, buckets: map[string]*list.Element{}, lru: list.New()}
}

type memoryLimiter struct {
	mu      sync.Mutex
	max     int
	now     func() time.Time
	buckets map[string]*list.Element // of *bucket, in lru
	lru     *list.List               // most recently used first
}

type bucket struct {
	key string
	lim *rate.Limiter
}

func (m *memoryLimiter) Allow(_ context.Context, key string, l Limit) (bool, time.Duration, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	el := m.buckets[key]
	if el == nil {
		if m.lru.Len() >= m.max {
			oldest := m.lru.Back()
			m.lru.Remove(oldest)
			delete(m.buckets, oldest.Value.(*bucket).key)
		}
		el = m.lru.PushFront(&bucket{key: key, lim: rate.NewLimiter(rate.Every(l.Per/time.Duration(l.Calls)), l.Burst)})
		m.buckets[key] = el
	} else {
		m.lru.MoveToFront(el)
	}
	lim := el.Value.(*bucket).lim
	if lim.AllowN(now, 1) {
		return true, 0, nil
	}
	res := lim.ReserveN(now, 1) // for how long to wait
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d, nil
	}
	return true, 0, nil
}
