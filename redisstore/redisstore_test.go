package redisstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/internal/servicetest"
	"github.com/affordances/affordances-go/redisstore"
	"github.com/affordances/affordances-go/store"
	"github.com/redis/go-redis/v9"
)

func client(t *testing.T, r *servicetest.Redis) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// The Redis stores keep the contracts the in-memory ones keep
// (affordancestest), against a real redis-server.
func TestRateLimiterContract(t *testing.T) {
	r := servicetest.StartRedis(t)
	n := 0
	affordancestest.TestRateLimiter(t, func(t *testing.T) store.RateLimiter {
		n++
		return redisstore.NewRateLimiter(client(t, r), &redisstore.Options{Prefix: "t" + string(rune('a'+n)) + ":"})
	})
}

func TestIdempotencyStoreContract(t *testing.T) {
	r := servicetest.StartRedis(t)
	n := 0
	affordancestest.TestIdempotencyStore(t, func(t *testing.T) store.Idempotency {
		n++
		return redisstore.NewIdempotency(client(t, r), &redisstore.Options{Prefix: "t" + string(rune('a'+n)) + ":"})
	})
}

// instances returns two sites sharing one Redis, as two instances of one
// site behind a load balancer, and how often the action ran on either.
func instances(t *testing.T, rdb *redis.Client, limit affordances.Limit) ([2]http.Handler, *atomic.Int32) {
	var runs atomic.Int32
	var hs [2]http.Handler
	for i := range hs {
		site := affordances.NewSite(&affordances.SiteOptions{
			Limit:       limit,
			RateLimiter: redisstore.NewRateLimiter(rdb, nil),
			Idempotency: redisstore.NewIdempotency(rdb, nil),
		})
		affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "start", Description: "Start a job", Expose: affordances.ExposePublic},
			func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
				runs.Add(1)
				return struct{}{}, nil
			})
		hs[i] = site.Handler(nil)
	}
	return hs, &runs
}

func call(h http.Handler, key string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "http://site.test/", strings.NewReader(`{"action":"start"}`))
	r.Header.Set("Content-Type", affordances.MediaType)
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// TestAcrossInstances: the same Idempotency-Key sent to both instances
// runs once and replays the first answer; both spend one rate-limit
// budget.
func TestAcrossInstances(t *testing.T) {
	rdb := client(t, servicetest.StartRedis(t))
	hs, runs := instances(t, rdb, affordances.Limit{Calls: 1, Per: time.Hour, Burst: 10})
	first, second := call(hs[0], "job-1"), call(hs[1], "job-1")
	if runs.Load() != 1 || first.Code != 200 || second.Code != 200 || first.Body.String() != second.Body.String() || second.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("the same key on both instances: ran %d times, answers %d %s and %d %s", runs.Load(), first.Code, first.Body, second.Code, second.Body)
	}
	allowed := 0
	for i := range 30 {
		if call(hs[i%2], "").Code == 200 {
			allowed++
		}
	}
	if want := 10 - 1; allowed != want { // the burst, less the call above
		t.Errorf("30 calls over both instances: %d allowed, want %d: one budget", allowed, want)
	}
}

// TestKeysOutliveARestart: a call retried with its Idempotency-Key after
// Redis restarted, on the other instance, is answered from the kept
// answer and runs once, with Redis run with persistence, as the README's
// several instances run it (docs/protocol.md decision 10: the keys outlive a
// restart).
func TestKeysOutliveARestart(t *testing.T) {
	r := servicetest.StartDurableRedis(t)
	hs, runs := instances(t, client(t, r), affordances.Limit{Calls: 100, Per: time.Minute, Burst: 100})
	first := call(hs[0], "job-1")
	if first.Code != 200 {
		t.Fatalf("the first call: got %d %s, want 200", first.Code, first.Body)
	}
	r.Restart()
	retry := call(hs[1], "job-1")
	if retry.Code != 200 || retry.Header().Get(affordances.IdempotentReplayedHeader) != "true" || retry.Body.String() != first.Body.String() {
		t.Errorf("the retry after Redis restarted: got %d %s with %s %q, want the first answer replayed, %s true",
			retry.Code, retry.Body, affordances.IdempotentReplayedHeader, retry.Header().Get(affordances.IdempotentReplayedHeader), affordances.IdempotentReplayedHeader)
	}
	if got := runs.Load(); got != 1 {
		t.Errorf("runs: got %d, want 1", got)
	}
}

// TestRedisDown: with Redis gone a call fails closed (internal, nothing
// runs), and works again once Redis is back.
func TestRedisDown(t *testing.T) {
	r := servicetest.StartRedis(t)
	rdb := client(t, r)
	hs, runs := instances(t, rdb, affordances.Limit{Calls: 100, Per: time.Minute, Burst: 100})
	if rec := call(hs[0], "k1"); rec.Code != 200 {
		t.Fatalf("with Redis: %d %s", rec.Code, rec.Body)
	}
	r.Stop()
	for _, key := range []string{"", "k2"} {
		if rec := call(hs[0], key); rec.Code != 500 || !strings.Contains(rec.Body.String(), `"code":"internal"`) {
			t.Errorf("Redis down, key %q: got %d %s, want 500 internal", key, rec.Code, rec.Body)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("runs with Redis down: got %d, want none after the first", runs.Load()-1)
	}
	r.Restart()
	deadline := time.Now().Add(5 * time.Second)
	for call(hs[1], "k3").Code != 200 {
		if time.Now().After(deadline) {
			t.Fatal("calls do not recover once Redis is back")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
