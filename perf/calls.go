package perf

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// calls wraps a baseline's handler with what the library does for every
// call and a hand-written site would add as net/http middleware: a rate
// limit per requester (the Authorization header, else the sid cookie,
// else the client's address), and the replay of a call with an
// Idempotency-Key already answered for the same requester (the same
// body: the kept answer, with Idempotent-Replayed; another body: 422).
// Kept answers last a day, at most keptMax of them, as the library's
// memory store keeps them. Unlike the library's, a call is not held while
// it runs: two concurrent calls with the same key both run.
func calls(next http.Handler) http.Handler {
	c := &callState{limiters: map[string]*rate.Limiter{}, kept: map[string]*keptAnswer{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		who := requester(r)
		if !c.limiter(who).Allow() {
			w.Header().Set("Retry-After", "1")
			fail(w, &callError{http.StatusTooManyRequests, "rate_limited", "Too many calls: try again later."})
			return
		}
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			fail(w, invalid("The body is too large."))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		scope, sum := who+"\n"+key, sha256.Sum256(body)
		if k := c.answer(scope); k != nil {
			if k.sum != sum {
				fail(w, &callError{http.StatusUnprocessableEntity, "idempotency_conflict", "This Idempotency-Key was used for another call."})
				return
			}
			header(w)
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(k.status)
			w.Write(k.body)
			return
		}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		c.keep(scope, &keptAnswer{sum: sum, status: rec.status, body: rec.body, expires: time.Now().Add(24 * time.Hour)})
	})
}

// callLimit is the baselines' rate limit: as the bench shop's, every call
// fits.
var callLimit = rate.Limit(1 << 30)

// callState is the rate limiters and kept answers of [calls].
type callState struct {
	mu       sync.Mutex
	limiters map[string]*rate.Limiter
	kept     map[string]*keptAnswer
	swept    time.Time
}

// A keptAnswer is the answer to a call with an Idempotency-Key.
type keptAnswer struct {
	sum     [sha256.Size]byte
	status  int
	body    []byte
	expires time.Time
}

// requester names who calls, for the rate limit and the kept answers.
func requester(r *http.Request) string {
	if a := r.Header.Get("Authorization"); a != "" {
		return "a:" + a
	}
	if c, err := r.Cookie("sid"); err == nil {
		return "s:" + c.Value
	}
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	return "h:" + host
}

func (c *callState) limiter(who string) *rate.Limiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.limiters[who]
	if l == nil {
		l = rate.NewLimiter(callLimit, 1<<30)
		c.limiters[who] = l
	}
	return l
}

// answer returns the answer kept under scope, if it has not expired.
func (c *callState) answer(scope string) *keptAnswer {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k := c.kept[scope]; k != nil && time.Now().Before(k.expires) {
		return k
	}
	return nil
}

// keptMax bounds the kept answers, as the library's memory store bounds
// its own (store.NewMemoryIdempotency): a bench's run of calls, each with a
// new key, would otherwise grow the heap a baseline's collector scans.
const keptMax = 10_000

// keep keeps k under scope, forgetting another answer, any one, when
// keptMax are kept, and once a minute forgets the expired answers.
func (c *callState) keep(scope string, k *keptAnswer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.kept[scope]; !ok && len(c.kept) >= keptMax {
		for s := range c.kept {
			delete(c.kept, s)
			break
		}
	}
	c.kept[scope] = k
	if now := time.Now(); now.Sub(c.swept) > time.Minute {
		c.swept = now
		for s, k := range c.kept {
			if now.After(k.expires) {
				delete(c.kept, s)
			}
		}
	}
}

// A recorder passes an answer on and keeps a copy of its status and body.
type recorder struct {
	http.ResponseWriter
	status int
	body   []byte
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body = append(r.body, b...)
	return r.ResponseWriter.Write(b)
}
