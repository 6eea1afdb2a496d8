// Package redisstore is for publishers who run several instances of one
// site behind a load balancer: it keeps the site's shared counters in
// Redis, so that the instances act as one. Its
// stores implement the interfaces of package store: a rate limiter
// ([store.RateLimiter]) whose budget every instance spends, an idempotency
// store ([store.Idempotency]) where a retry that lands on another instance
// gets the first answer, and a call still running on one instance is
// refused as running on all, an approval store ([store.Approvals])
// where a person's decision on one instance is taken by the call on any,
// and an OAuth store ([store.OAuth], [NewOAuth]) where a token issued by
// one instance is accepted, used once and revoked on all.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	site := affordances.NewSite(&affordances.SiteOptions{
//		RateLimiter: redisstore.NewRateLimiter(rdb, nil),
//		Idempotency: redisstore.NewIdempotency(rdb, nil),
//		Approvals:   redisstore.NewApprovals(rdb, nil),
//	})
//
// Each operation is one round trip, atomic in Redis (a Lua script, a SET
// with NX and GET, or one read). When Redis cannot be reached the operation returns the
// error: the site then answers the call with internal and logs why, and
// runs nothing, never a call without its limit, its idempotency or its
// approval; calls succeed again as soon as Redis answers.
package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/affordances/affordances-go/store"
	"github.com/redis/go-redis/v9"
)

// Options configures the stores. The zero value of every field is a sound
// default; nil means the zero value.
type Options struct {
	// Prefix starts every key the stores write. Empty: "affordances:".
	Prefix string

	// ClaimTTL is how long a claim of an Idempotency-Key lives when the
	// instance that claimed it never finishes (it crashed while the call
	// ran); then a retry runs the call again. It should be longer than
	// any call takes. Zero: 5 minutes.
	ClaimTTL time.Duration
}

func (o *Options) withDefaults() Options {
	var d Options
	if o != nil {
		d = *o
	}
	if d.Prefix == "" {
		d.Prefix = "affordances:"
	}
	if d.ClaimTTL == 0 {
		d.ClaimTTL = 5 * time.Minute
	}
	return d
}

// hashed names an entry by the SHA-256 of its parts, so a key's length is
// fixed whatever the parts hold.
func hashed(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// rateLimiter is the store of [NewRateLimiter].
type rateLimiter struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRateLimiter returns a limiter that keeps its counters in rdb.
//
// It is a [store.RateLimiter] in Redis: the generic cell
// rate algorithm (GCRA), one Lua script a call, with Redis's own clock so
// that instances whose clocks differ agree. Its decisions and its waits
// are those of the in-memory limiter: a burst of Limit.Burst calls, then
// one call each Per/Calls. It is safe for concurrent use.
func NewRateLimiter(rdb redis.UniversalClient, opts *Options) store.RateLimiter {
	o := opts.withDefaults()
	return &rateLimiter{rdb: rdb, prefix: o.Prefix + "limit:"}
}

// gcra keeps, under KEYS[1], the theoretical arrival time (TAT) of the
// next call, in microseconds of Redis's clock. ARGV[1] is the emission
// interval (Per/Calls) and ARGV[2] the burst, both in microseconds of
// allowance: a call fits when TAT + interval - burst <= now. It returns
// {1, 0} for a call that fits (and counts it), or {0, wait} in
// microseconds for one that does not (and counts nothing).
var gcra = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local next = tat + interval
local wait = next - burst - now
if wait > 0 then return {0, wait} end
redis.call('SET', KEYS[1], next, 'PX', math.ceil((next - now) / 1000))
return {1, 0}
`)

// Allow counts one call under key.
func (l *rateLimiter) Allow(ctx context.Context, key string, limit store.Limit) (bool, time.Duration, error) {
	interval := limit.Per.Microseconds() / int64(limit.Calls)
	burst := interval * int64(limit.Burst)
	res, err := gcra.Run(ctx, l.rdb, []string{l.prefix + hashed(key)}, interval, burst).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("redisstore: rate limit: %w", err)
	}
	if len(res) != 2 {
		return false, 0, fmt.Errorf("redisstore: rate limit: the script answered %v", res)
	}
	if res[0] == 1 {
		return true, 0, nil
	}
	return false, time.Duration(res[1]) * time.Microsecond, nil
}

// idempotencyStore is the store of [NewIdempotency].
type idempotencyStore struct {
	rdb      redis.UniversalClient
	prefix   string
	claimTTL time.Duration
}

// NewIdempotency returns a store that keeps its entries in rdb.
//
// It is a [store.Idempotency] store in Redis: one
// key per (scope, key), holding "running <hash>" while the call runs, or
// "kept <hash> <answer>" for [store.IdempotencyTTL] once it ran. A
// claim whose instance never finished expires after [Options.ClaimTTL].
// It is safe for concurrent use, by any number of instances.
func NewIdempotency(rdb redis.UniversalClient, opts *Options) store.Idempotency {
	o := opts.withDefaults()
	return &idempotencyStore{rdb: rdb, prefix: o.Prefix + "idem:", claimTTL: o.ClaimTTL}
}

func (s *idempotencyStore) key(scope, key string) string { return s.prefix + hashed(scope, key) }

// Begin claims (scope, key) in one SET NX GET, or returns what is held.
func (s *idempotencyStore) Begin(ctx context.Context, scope, key string, bodyHash [sha256.Size]byte) (*store.KeptCall, error) {
	claim := "running " + hex.EncodeToString(bodyHash[:])
	held, err := s.rdb.SetArgs(ctx, s.key(scope, key), claim, redis.SetArgs{Mode: "NX", Get: true, TTL: s.claimTTL}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil // claimed
	case err != nil:
		return nil, fmt.Errorf("redisstore: idempotency: %w", err)
	}
	kc, err := decodeEntry(held)
	if err != nil {
		return nil, fmt.Errorf("redisstore: idempotency: %w", err)
	}
	return kc, nil
}

// finish replaces a claim with the kept answer, only while the claim is
// still the one that ran: an expired claim that another call took over
// keeps the other's.
var finish = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`)

// release deletes a claim, only while it is still running.
var release = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, 8) == 'running ' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`)

// Finish keeps res for [store.IdempotencyTTL].
func (s *idempotencyStore) Finish(ctx context.Context, scope, key string, res *store.KeptDelta) error {
	k := s.key(scope, key)
	held, err := s.rdb.Get(ctx, k).Result()
	if errors.Is(err, redis.Nil) {
		return nil // the claim expired: nothing to keep
	}
	if err != nil {
		return fmt.Errorf("redisstore: idempotency: %w", err)
	}
	hash, ok := strings.CutPrefix(held, "running ")
	if !ok {
		return nil // not a claim: already kept
	}
	answer, err := json.Marshal(keptAnswer{Status: res.Status, Header: res.Header, Body: res.Body})
	if err != nil {
		return fmt.Errorf("redisstore: idempotency: %w", err)
	}
	ttl := store.IdempotencyTTL.Milliseconds()
	if err := finish.Run(ctx, s.rdb, []string{k}, held, "kept "+hash+" "+string(answer), ttl).Err(); err != nil {
		return fmt.Errorf("redisstore: idempotency: %w", err)
	}
	return nil
}

// Release forgets the claim on (scope, key).
func (s *idempotencyStore) Release(ctx context.Context, scope, key string) error {
	if err := release.Run(ctx, s.rdb, []string{s.key(scope, key)}).Err(); err != nil {
		return fmt.Errorf("redisstore: idempotency: %w", err)
	}
	return nil
}

// keptAnswer is a KeptDelta as it is stored.
type keptAnswer struct {
	Status int         `json:"status"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body"`
}

// decodeEntry reads "running <hash>" or "kept <hash> <answer>".
func decodeEntry(v string) (*store.KeptCall, error) {
	state, rest, _ := strings.Cut(v, " ")
	hexHash, answer, _ := strings.Cut(rest, " ")
	b, err := hex.DecodeString(hexHash)
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("an entry that is not ours: %.40q", v)
	}
	var kc store.KeptCall
	copy(kc.BodyHash[:], b)
	switch state {
	case "running":
		return &kc, nil
	case "kept":
		var a keptAnswer
		if err := json.Unmarshal([]byte(answer), &a); err != nil {
			return nil, fmt.Errorf("a kept answer that does not decode: %w", err)
		}
		kc.Delta = &store.KeptDelta{Status: a.Status, Header: a.Header, Body: a.Body}
		return &kc, nil
	}
	return nil, fmt.Errorf("an entry that is not ours: %.40q", v)
}
