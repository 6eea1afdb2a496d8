package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/affordances/affordances-go/store"
	"github.com/redis/go-redis/v9"
)

// oauthStore is the store of [NewOAuth].
type oauthStore struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewOAuth returns a store that keeps what a site's OAuth authorization
// server keeps in rdb, so that every instance of the site sees the same
// tokens and grants. [Options.ClaimTTL] is not used.
//
// It is a [store.OAuth] store in Redis: each token is a hash under its
// kind and signature, expiring with the token (PEXPIREAT), so that
// Redis's clock decides when it is gone; each grant is a hash, with a
// sorted set of its tokens beside it, so that what is done to a grant's
// tokens needs no SCAN, and the person's grants are a sorted set by the
// time they were made. Each step that must be atomic is one Lua script,
// one round trip. A script reaches keys through others, so in a Redis
// Cluster all of them must be in one slot: give [Options.Prefix] a hash
// tag, such as "{affordances}:". It is safe for concurrent use, by any
// number of instances.
func NewOAuth(rdb redis.UniversalClient, opts *Options) store.OAuth {
	o := opts.withDefaults()
	return &oauthStore{rdb: rdb, prefix: o.Prefix + "oauth:"}
}

func (s *oauthStore) tokenKey(kind store.OAuthKind, signature string) string {
	return s.prefix + "token:" + hashed(string(kind), signature)
}
func (s *oauthStore) grantKey(id string) string       { return s.prefix + "grant:" + hashed(id) }
func (s *oauthStore) grantTokensKey(id string) string { return s.prefix + "grant-tokens:" + hashed(id) }
func (s *oauthStore) subjectKey(subject string) string {
	return s.prefix + "subject:" + hashed(subject)
}
func (s *oauthStore) pairKey(subject, client string) string {
	return s.prefix + "pair:" + hashed(subject, client)
}
func (s *oauthStore) clientKey(id string) string { return s.prefix + "client:" + hashed(id) }

// A token's hash holds these fields; a grant's those of grantFields and
// the names of its keys: "tokens" (the sorted set of its tokens' keys, by
// expiry), "pair" (the key of (subject, client), naming the grant) and
// "subjects" (the sorted set of the person's grants, by creation).
var (
	tokenFields = []string{"kind", "signature", "grant", "active", "expires", "request"}
	grantFields = []string{"id", "subject", "client", "client_name", "trust", "currency", "ceiling", "spent", "created", "last_used"}
)

// forgetGrant is the Lua function that deletes the grant under the key
// grant, with id, its tokens (those in the set tokens still of the grant)
// and the keys naming it.
const forgetGrant = `
local function forget(grant, tokens, id)
  for _, k in ipairs(redis.call('ZRANGE', tokens, 0, -1)) do
    if redis.call('HGET', k, 'grant') == id then redis.call('DEL', k) end
  end
  redis.call('DEL', tokens)
  local f = redis.call('HMGET', grant, 'pair', 'subjects')
  if f[2] then redis.call('ZREM', f[2], grant) end
  if f[1] and redis.call('GET', f[1]) == grant then redis.call('DEL', f[1]) end
  redis.call('DEL', grant)
end
`

// createToken keeps the token of ARGV (the fields of tokenFields) under
// KEYS[1] until it expires, and adds it to KEYS[2], its grant's tokens,
// from which it drops those expired.
var createToken = redis.NewScript(`
redis.call('HSET', KEYS[1], 'kind', ARGV[1], 'signature', ARGV[2], 'grant', ARGV[3],
  'active', ARGV[4], 'expires', ARGV[5], 'request', ARGV[6])
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if tonumber(ARGV[5]) > now then
  redis.call('ZADD', KEYS[2], ARGV[5], KEYS[1])
  local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', KEYS[2], last[2])
end
return 1
`)

// deactivate marks the token under KEYS[1] inactive, answering 1, or 0
// when it was inactive already, or is gone.
var deactivate = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'active') == '1' then
  redis.call('HSET', KEYS[1], 'active', '0')
  return 1
end
return 0
`)

// grantTokens marks inactive (ARGV[3] "deactivate") or deletes ("delete")
// each token in KEYS[1], a grant's tokens, of kind ARGV[1] and of the
// grant ARGV[2].
var grantTokens = redis.NewScript(`
for _, k in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local f = redis.call('HMGET', k, 'kind', 'grant')
  if f[1] == ARGV[1] and f[2] == ARGV[2] then
    if ARGV[3] == 'delete' then
      redis.call('DEL', k)
      redis.call('ZREM', KEYS[1], k)
    else
      redis.call('HSET', k, 'active', '0')
    end
  end
end
return 1
`)

// createGrant keeps the grant of ARGV (the fields of grantFields) under
// KEYS[2], in place of the one KEYS[1] (the key of its subject and client)
// names, which it forgets with its tokens; KEYS[3] is the person's grants,
// KEYS[4] the new grant's tokens.
var createGrant = redis.NewScript(forgetGrant + `
local old = redis.call('GET', KEYS[1])
if old then
  local f = redis.call('HMGET', old, 'id', 'tokens')
  if f[1] and f[2] then forget(old, f[2], f[1]) else redis.call('DEL', old) end
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return redis.error_reply('the grant id is held for another person or client')
end
redis.call('HSET', KEYS[2], 'id', ARGV[1], 'subject', ARGV[2], 'client', ARGV[3], 'client_name', ARGV[4],
  'trust', ARGV[5], 'currency', ARGV[6], 'ceiling', ARGV[7], 'spent', ARGV[8], 'created', ARGV[9],
  'last_used', ARGV[10], 'tokens', KEYS[4], 'pair', KEYS[1], 'subjects', KEYS[3])
redis.call('SET', KEYS[1], KEYS[2])
redis.call('ZADD', KEYS[3], ARGV[9], KEYS[2])
return 1
`)

// revokeGrant forgets the grant ARGV[1] under KEYS[1] and its tokens,
// KEYS[2].
var revokeGrant = redis.NewScript(forgetGrant + `
forget(KEYS[1], KEYS[2], ARGV[1])
return 1
`)

// spendGrant adds ARGV[2] to what the grant under KEYS[1] spent, if it is
// in its currency, ARGV[1], and stays within its ceiling, answering 1; or
// 0, changing nothing. What it gives back stops at 0. '%.17g' keeps every
// bit of the double.
var spendGrant = redis.NewScript(`
local g = redis.call('HMGET', KEYS[1], 'currency', 'ceiling', 'spent')
if not g[1] or g[1] == '' or g[1] ~= ARGV[1] then return 0 end
local spent = tonumber(g[3]) + tonumber(ARGV[2])
if not (spent <= tonumber(g[2])) then return 0 end
if spent < 0 then spent = 0 end
redis.call('HSET', KEYS[1], 'spent', string.format('%.17g', spent))
return 1
`)

// usedGrant sets when the grant under KEYS[1] was last used to ARGV[1],
// if that is later.
var usedGrant = redis.NewScript(`
local u = redis.call('HGET', KEYS[1], 'last_used')
if u and tonumber(u) < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'last_used', ARGV[1])
end
return 1
`)

// grantsOf answers the fields of grantFields of each grant in KEYS[1], a
// person's grants, the newest first.
var grantsOf = redis.NewScript(`
local out = {}
for _, g in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, -1)) do
  local f = redis.call('HMGET', g, 'id', 'subject', 'client', 'client_name', 'trust', 'currency',
    'ceiling', 'spent', 'created', 'last_used')
  if f[1] then table.insert(out, f) end
end
return out
`)

func (s *oauthStore) CreateToken(ctx context.Context, t *store.OAuthToken) error {
	active := "0"
	if t.Active {
		active = "1"
	}
	err := createToken.Run(ctx, s.rdb, []string{s.tokenKey(t.Kind, t.Signature), s.grantTokensKey(t.Grant)},
		string(t.Kind), t.Signature, t.Grant, active, t.Expires.UnixMilli(), string(t.Request)).Err()
	if err != nil {
		return fmt.Errorf("redisstore: oauth: %w", err)
	}
	return nil
}

func (s *oauthStore) Token(ctx context.Context, kind store.OAuthKind, signature string) (*store.OAuthToken, error) {
	res, err := s.rdb.HMGet(ctx, s.tokenKey(kind, signature), tokenFields...).Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: oauth: %w", err)
	}
	f, err := fields(res, tokenFields)
	if err != nil || f == nil {
		return nil, err
	}
	ms, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("redisstore: oauth: a token that is not ours: expires %q", f[4])
	}
	t := &store.OAuthToken{Kind: store.OAuthKind(f[0]), Signature: f[1], Grant: f[2], Active: f[3] == "1", Expires: time.UnixMilli(ms)}
	if f[5] != "" {
		t.Request = []byte(f[5])
	}
	return t, nil
}

func (s *oauthStore) DeleteToken(ctx context.Context, kind store.OAuthKind, signature string) error {
	if err := s.rdb.Del(ctx, s.tokenKey(kind, signature)).Err(); err != nil {
		return fmt.Errorf("redisstore: oauth: %w", err)
	}
	return nil
}

func (s *oauthStore) Deactivate(ctx context.Context, kind store.OAuthKind, signature string) error {
	n, err := deactivate.Run(ctx, s.rdb, []string{s.tokenKey(kind, signature)}).Int()
	if err != nil {
		return fmt.Errorf("redisstore: oauth: %w", err)
	}
	if n != 1 {
		return store.ErrInactive
	}
	return nil
}

func (s *oauthStore) DeactivateGrant(ctx context.Context, kind store.OAuthKind, grant string) error {
	return s.run(ctx, grantTokens, []string{s.grantTokensKey(grant)}, string(kind), grant, "deactivate")
}

func (s *oauthStore) DeleteGrantTokens(ctx context.Context, kind store.OAuthKind, grant string) error {
	return s.run(ctx, grantTokens, []string{s.grantTokensKey(grant)}, string(kind), grant, "delete")
}

func (s *oauthStore) CreateGrant(ctx context.Context, g *store.OAuthGrant) error {
	trust, err := json.Marshal(nonNil(g.Trust))
	if err != nil {
		return fmt.Errorf("redisstore: oauth: %w", err)
	}
	return s.run(ctx, createGrant,
		[]string{s.pairKey(g.Subject, g.Client), s.grantKey(g.ID), s.subjectKey(g.Subject), s.grantTokensKey(g.ID)},
		g.ID, g.Subject, g.Client, g.ClientName, string(trust), g.Currency, formatFloat(g.Ceiling), formatFloat(g.Spent),
		g.Created.UnixMilli(), g.LastUsed.UnixMilli())
}

func (s *oauthStore) Grant(ctx context.Context, id string) (*store.OAuthGrant, error) {
	res, err := s.rdb.HMGet(ctx, s.grantKey(id), grantFields...).Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: oauth: %w", err)
	}
	return decodeGrant(res)
}

func (s *oauthStore) Grants(ctx context.Context, subject string) ([]*store.OAuthGrant, error) {
	res, err := grantsOf.Run(ctx, s.rdb, []string{s.subjectKey(subject)}).Slice()
	if err != nil {
		return nil, fmt.Errorf("redisstore: oauth: %w", err)
	}
	var out []*store.OAuthGrant
	for _, r := range res {
		f, ok := r.([]any)
		if !ok {
			return nil, fmt.Errorf("redisstore: oauth: the script answered %T for a grant", r)
		}
		g, err := decodeGrant(f)
		if err != nil {
			return nil, err
		}
		if g != nil {
			out = append(out, g)
		}
	}
	return out, nil
}

func (s *oauthStore) Spend(ctx context.Context, id, currency string, amount float64) error {
	if math.IsNaN(amount) || math.IsInf(amount, 0) {
		return store.ErrOverCeiling
	}
	n, err := spendGrant.Run(ctx, s.rdb, []string{s.grantKey(id)}, currency, formatFloat(amount)).Int()
	if err != nil {
		return fmt.Errorf("redisstore: oauth: %w", err)
	}
	if n != 1 {
		return store.ErrOverCeiling
	}
	return nil
}

func (s *oauthStore) Used(ctx context.Context, id string, t time.Time) error {
	return s.run(ctx, usedGrant, []string{s.grantKey(id)}, t.UnixMilli())
}

func (s *oauthStore) RevokeGrant(ctx context.Context, id string) error {
	return s.run(ctx, revokeGrant, []string{s.grantKey(id), s.grantTokensKey(id)}, id)
}

func (s *oauthStore) CreateClient(ctx context.Context, c *store.OAuthClient) error {
	uris, err := json.Marshal(nonNil(c.RedirectURIs))
	if err != nil {
		return fmt.Errorf("redisstore: oauth: %w", err)
	}
	err = s.rdb.HSet(ctx, s.clientKey(c.ID), "id", c.ID, "name", c.Name, "redirect_uris", string(uris), "created", c.Created.UnixMilli()).Err()
	if err != nil {
		return fmt.Errorf("redisstore: oauth: %w", err)
	}
	return nil
}

func (s *oauthStore) Client(ctx context.Context, id string) (*store.OAuthClient, error) {
	names := []string{"id", "name", "redirect_uris", "created"}
	res, err := s.rdb.HMGet(ctx, s.clientKey(id), names...).Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: oauth: %w", err)
	}
	f, err := fields(res, names)
	if err != nil || f == nil {
		return nil, err
	}
	c := &store.OAuthClient{ID: f[0], Name: f[1]}
	ms, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("redisstore: oauth: a client that is not ours: created %q", f[3])
	}
	c.Created = time.UnixMilli(ms)
	if err := json.Unmarshal([]byte(f[2]), &c.RedirectURIs); err != nil {
		return nil, fmt.Errorf("redisstore: oauth: the redirect URIs of client %s: %w", c.ID, err)
	}
	return c, nil
}

// run runs script, for a step whose answer is not read.
func (s *oauthStore) run(ctx context.Context, script *redis.Script, keys []string, args ...any) error {
	if err := script.Run(ctx, s.rdb, keys, args...).Err(); err != nil {
		return fmt.Errorf("redisstore: oauth: %w", err)
	}
	return nil
}

// fields reads an HMGET's answer for names: nil when the hash is gone
// (its first field is nil), an error when another field is.
func fields(res []any, names []string) ([]string, error) {
	if len(res) != len(names) {
		return nil, fmt.Errorf("redisstore: oauth: got %d fields, want %d", len(res), len(names))
	}
	if res[0] == nil {
		return nil, nil
	}
	f := make([]string, len(res))
	for i, v := range res {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("redisstore: oauth: an entry that is not ours: field %s is %T", names[i], v)
		}
		f[i] = s
	}
	return f, nil
}

// decodeGrant reads the fields of grantFields, in order: nil for none.
func decodeGrant(res []any) (*store.OAuthGrant, error) {
	f, err := fields(res, grantFields)
	if err != nil || f == nil {
		return nil, err
	}
	g := &store.OAuthGrant{ID: f[0], Subject: f[1], Client: f[2], ClientName: f[3], Currency: f[5]}
	if err := json.Unmarshal([]byte(f[4]), &g.Trust); err != nil {
		return nil, fmt.Errorf("redisstore: oauth: the trust of grant %s: %w", g.ID, err)
	}
	ceiling, err1 := strconv.ParseFloat(f[6], 64)
	spent, err2 := strconv.ParseFloat(f[7], 64)
	created, err3 := strconv.ParseInt(f[8], 10, 64)
	lastUsed, err4 := strconv.ParseInt(f[9], 10, 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil, fmt.Errorf("redisstore: oauth: a grant that is not ours: %w", err)
	}
	g.Ceiling, g.Spent = ceiling, spent
	g.Created, g.LastUsed = time.UnixMilli(created), time.UnixMilli(lastUsed)
	return g, nil
}

// formatFloat writes f as the shortest string that reads back as f.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// nonNil returns list, or an empty list for nil, so that it is kept as
// the JSON [] rather than null.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
