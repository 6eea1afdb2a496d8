package affordances

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// A Limit is a rate limit: Calls calls per Per, with bursts of up to Burst.
type Limit struct {
	Calls int
	Per   time.Duration
	Burst int
}

// DefaultLimit returns the limit of a site that sets none: 60 calls a
// minute, burst 20 (CLARIFICATIONS 5).
func DefaultLimit() Limit { return Limit{Calls: 60, Per: time.Minute, Burst: 20} }

// valid reports whether Calls, Per and Burst are all positive.
func (l Limit) valid() bool { return l.Calls > 0 && l.Per > 0 && l.Burst > 0 }

func (l Limit) mustValid(where string) {
	if !l.valid() {
		panic(fmt.Sprintf("affordances: %s: Calls, Per and Burst must all be positive, got %+v", where, l))
	}
}

// Limit counts one call under key against l, with the site's
// [RateLimiter]: a limit an action keeps by a key of its own choosing,
// beside the site's limit per requester, such as a sign-in's guesses at
// one account from every address and session together
// ("signIn:"+email). The key names what is counted, under one Limit: the
// same key counts one budget wherever it is used, and no key can count
// against the site's own limits per requester. Over the limit it returns
// the [RateLimited] [*Error] the site's own limit answers: status 429,
// Retry-After in whole seconds, "Too many calls. Try again in N
// seconds."; the action returns it before doing anything. Call it in the
// action, where what it counts happens: a guard or a state loader runs
// for every view of the page too. The refusal is the action's answer,
// kept for a retry with the same Idempotency-Key as any other. A failure
// of the limiter, or a Limit whose fields are not all positive, is an
// error the requester sees as internal.
func (r *Request) Limit(ctx context.Context, key string, l Limit) error {
	if r.route == nil {
		return errors.New("affordances: Request.Limit: a request the site did not make")
	}
	if !l.valid() {
		return fmt.Errorf("affordances: Request.Limit: Calls, Per and Burst must all be positive, got %+v", l)
	}
	return r.route.site.allow(ctx, "k:"+key, l)
}

// allow counts one call under key against limit: nil when it fits, the
// rate_limited error when it does not. The site's own keys start "p:" or
// "a:" (the requester), those of [Request.Limit] "k:".
func (s *Site) allow(ctx context.Context, key string, limit Limit) error {
	ok, wait, err := s.limiter.Allow(ctx, key, limit)
	if err != nil {
		return fmt.Errorf("affordances: rate limiter: %w", err)
	}
	if !ok {
		secs := retrySeconds(wait)
		return &Error{Code: RateLimited, Message: "Too many calls. Try again in " + seconds(secs) + ".", RetryAfter: time.Duration(secs) * time.Second}
	}
	return nil
}

// A RateLimiter decides whether one more call under key fits its limit (seed
// 000, step 3). Implementations must be safe for concurrent use.
type RateLimiter interface {
	// Allow counts one call under key. When the call is over the limit it
	// returns ok false and how long until a call would fit.
	Allow(ctx context.Context, key string, limit Limit) (ok bool, retryAfter time.Duration, err error)
}

// NewMemoryRateLimiter returns a token-bucket [RateLimiter] held in memory,
// for a single instance. It tracks at most maxKeys keys (0: 100,000); past
// that it forgets the key used longest ago, in constant time, so memory
// and the cost of a call stay bounded under a flood of new clients. A
// forgotten key starts again with a full bucket.
func NewMemoryRateLimiter(maxKeys int) RateLimiter {
	if maxKeys <= 0 {
		maxKeys = 100_000
	}
	return &memoryLimiter{max: maxKeys, buckets: map[string]*list.Element{}, lru: list.New()}
}

type memoryLimiter struct {
	mu      sync.Mutex
	max     int
	buckets map[string]*list.Element // of *bucket, in lru
	lru     *list.List               // most recently used first
}

type bucket struct {
	key string
	lim *rate.Limiter
}

func (m *memoryLimiter) Allow(_ context.Context, key string, l Limit) (bool, time.Duration, error) {
	now := time.Now()
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
