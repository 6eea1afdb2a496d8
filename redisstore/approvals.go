package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/affordances/affordances-go/store"
	"github.com/redis/go-redis/v9"
)

// approvalStore is the store of [NewApprovals].
type approvalStore struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewApprovals returns a store that keeps its approvals in rdb.
// [Options.ClaimTTL] is not used.
//
// It is a [store.Approvals] store in Redis: each
// approval is a hash under its call's key, with a key from its id to that
// one beside it, both expiring with the approval (PEXPIREAT), so that
// Redis's clock decides when it is gone. Each operation is one Lua script,
// one round trip, atomic. A script reaches the approval through the id's
// key, so in a Redis Cluster both keys must be in one slot: give
// [Options.Prefix] a hash tag, such as "{affordances}:". It is safe for
// concurrent use, by any number of instances.
func NewApprovals(rdb redis.UniversalClient, opts *Options) store.Approvals {
	o := opts.withDefaults()
	return &approvalStore{rdb: rdb, prefix: o.Prefix + "approval:"}
}

func (s *approvalStore) callKey(call string) string { return s.prefix + "call:" + hashed(call) }
func (s *approvalStore) idKey(id string) string     { return s.prefix + "id:" + hashed(id) }

// The scripts answer an approval as its fields in this order (HMGET), or
// false (nil) for none. The hash also holds "index", the name of the id's
// key, so that Take can delete it.
var approvalFields = []string{"id", "call", "principal", "page", "action", "input", "summary", "state", "expires", "consent", "cost"}

// firstAdded is the index in approvalFields of the first field an
// approval kept by an earlier version may lack.
const firstAdded = 9

const hmget = `'id', 'call', 'principal', 'page', 'action', 'input', 'summary', 'state', 'expires', 'consent', 'cost'`

// requestApproval answers the approval held under KEYS[1] (the call's
// key); with none it keeps the one in ARGV (the fields in order) and makes
// KEYS[2] (its id's key) point to it, both expiring at ARGV[9].
var requestApproval = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HMGET', KEYS[1], ` + hmget + `)
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return redis.error_reply('the approval id is held for another call')
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'call', ARGV[2], 'principal', ARGV[3], 'page', ARGV[4],
  'action', ARGV[5], 'input', ARGV[6], 'summary', ARGV[7], 'state', ARGV[8], 'expires', ARGV[9],
  'consent', ARGV[10], 'cost', ARGV[11], 'index', KEYS[2])
redis.call('SET', KEYS[2], KEYS[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[9])
redis.call('PEXPIREAT', KEYS[2], ARGV[9])
return ARGV
`)

// getApproval answers the approval KEYS[1] (an id's key) points to, when
// its id is still ARGV[1].
var getApproval = redis.NewScript(`
local k = redis.call('GET', KEYS[1])
if not k then return false end
local a = redis.call('HMGET', k, ` + hmget + `)
if a[1] ~= ARGV[1] then return false end
return a
`)

// decideApproval sets the state of the pending approval KEYS[1] (an id's
// key) points to, when its id is still ARGV[1], to ARGV[2], and its expiry
// and its id key's to ARGV[3].
var decideApproval = redis.NewScript(`
local k = redis.call('GET', KEYS[1])
if not k then return false end
local a = redis.call('HMGET', k, 'id', 'state')
if a[1] ~= ARGV[1] or a[2] ~= 'pending' then return false end
redis.call('HSET', k, 'state', ARGV[2], 'expires', ARGV[3])
redis.call('PEXPIREAT', k, ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return redis.call('HMGET', k, ` + hmget + `)
`)

// takeApproval answers the approval under KEYS[1] (a call's key), deleting
// it and its id's key when it is decided.
var takeApproval = redis.NewScript(`
local a = redis.call('HMGET', KEYS[1], ` + hmget + `)
if not a[1] then return false end
if a[8] ~= 'pending' then
  local index = redis.call('HGET', KEYS[1], 'index')
  if index then redis.call('DEL', index) end
  redis.call('DEL', KEYS[1])
end
return a
`)

// Request keeps a under its call unless one is held, in one script.
func (s *approvalStore) Request(ctx context.Context, a *store.Approval) (*store.Approval, error) {
	return s.run(ctx, "request", requestApproval, []string{s.callKey(a.Call), s.idKey(a.ID)},
		a.ID, a.Call, a.Principal, a.Page, a.Action, string(a.Input), a.Summary, string(a.State), a.Expires.UnixMilli(), a.Consent, a.Cost)
}

// Get returns the live approval with the given id, or nil, nil.
func (s *approvalStore) Get(ctx context.Context, id string) (*store.Approval, error) {
	return s.run(ctx, "get", getApproval, []string{s.idKey(id)}, id)
}

// Decide records the decision on the pending approval id, in one script.
func (s *approvalStore) Decide(ctx context.Context, id string, approve bool) (*store.Approval, error) {
	state := store.ApprovalDenied
	if approve {
		state = store.ApprovalApproved
	}
	expires := time.Now().Add(store.ApprovalTTL).UnixMilli()
	a, err := s.run(ctx, "decide", decideApproval, []string{s.idKey(id)}, id, string(state), expires)
	if err == nil && a == nil {
		return nil, store.ErrApprovalClosed
	}
	return a, err
}

// Take returns the approval held for call, removing a decided one, in one
// script.
func (s *approvalStore) Take(ctx context.Context, call string) (*store.Approval, error) {
	return s.run(ctx, "take", takeApproval, []string{s.callKey(call)})
}

// run runs script and reads the approval it answers, nil for none.
func (s *approvalStore) run(ctx context.Context, op string, script *redis.Script, keys []string, args ...any) (*store.Approval, error) {
	res, err := script.Run(ctx, s.rdb, keys, args...).Slice()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: approval %s: %w", op, err)
	}
	a, err := decodeApproval(res)
	if err != nil {
		return nil, fmt.Errorf("redisstore: approval %s: %w", op, err)
	}
	return a, nil
}

// decodeApproval reads the fields of approvalFields, in order.
func decodeApproval(res []any) (*store.Approval, error) {
	if len(res) != len(approvalFields) {
		return nil, fmt.Errorf("the script answered %d fields, want %d", len(res), len(approvalFields))
	}
	var f [11]string
	for i, v := range res {
		s, ok := v.(string)
		if v == nil && i >= firstAdded {
			continue // kept by a version without the field
		}
		if !ok {
			return nil, fmt.Errorf("an approval that is not ours: field %s is %T", approvalFields[i], v)
		}
		f[i] = s
	}
	ms, err := strconv.ParseInt(f[8], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("an approval that is not ours: expires %q", f[8])
	}
	a := &store.Approval{
		ID: f[0], Call: f[1], Principal: f[2], Page: f[3], Action: f[4], Summary: f[6],
		State: store.ApprovalState(f[7]), Expires: time.UnixMilli(ms), Consent: f[9], Cost: f[10],
	}
	if f[5] != "" {
		a.Input = []byte(f[5])
	}
	return a, nil
}
