package affordances

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/affordances/affordances-go/store"
)

// IdempotencyHeader keys a call whose first delta is replayed to retries with
// the same body, for [store.IdempotencyTTL] (docs/protocol.md decision 10).
const IdempotencyHeader = "Idempotency-Key"

// IdempotentReplayedHeader marks the replay of a kept answer.
const IdempotentReplayedHeader = "Idempotent-Replayed"

// The refusals of docs/protocol.md decision 10.
var (
	errBadIdempotencyKey = libError(InvalidInput, phrase("The Idempotency-Key header must be sent once, as 1 to 255 visible ASCII characters."))
	errKeyReused         = libError(InvalidInput, phrase("This Idempotency-Key was used for another call.")).withStatus(http.StatusUnprocessableEntity)
	errStillRunning      = func() *Error {
		e := libError(Unavailable, phrase("A call with this Idempotency-Key is still running; retry."))
		e.RetryAfter = time.Second
		return e
	}()
)

// A claim is a call's hold on its Idempotency-Key while steps 3 to 7 run
// (docs/protocol.md decision 10). It ends one of two ways: kept with the answer of an
// action that ran, or released, so that a retry runs, when a step refused
// the call first. A nil claim (no key) does nothing.
type claim struct {
	s          *Site
	r          *http.Request // the call's, whose requester's language the kept answer speaks
	who        Principal
	scope, key string
}

// claim takes the call's Idempotency-Key for its caller and page
// ([idempotencyScope]), or answers instead: a retry of the same body gets
// the first answer, byte for byte, with the headers the action set but not
// Retry-After; another body under the key, or the key of a call still
// running, is refused. A call without a key (a form's _key that is none),
// or of a [Action.Secret] action, whose answer is never kept, claims
// nothing.
func (s *Site) claim(ctx context.Context, c *call, req *Request) (*claim, *response) {
	if c.key == "" || c.action.Secret || !validIdempotencyKey(c.key) {
		return nil, nil // an agent's bad key was refused before; a form's is none
	}
	scope := idempotencyScope(req.HTTP, req.Principal)
	hash := sha256.Sum256(c.body)
	held, err := s.idem.Begin(ctx, scope, c.key, hash)
	switch {
	case err != nil:
		// Fail closed: without the store, running the call could run it
		// twice.
		return nil, s.failure(fmt.Errorf("affordances: idempotency store: %w", err), "call")
	case held == nil:
		return &claim{s: s, r: req.HTTP, who: req.Principal, scope: scope, key: c.key}, nil
	case held.BodyHash != hash:
		return nil, s.failure(errKeyReused, "call")
	case held.Delta == nil:
		return nil, s.failure(errStillRunning, "call")
	}
	k := held.Delta
	h := k.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(IdempotentReplayedHeader, "true")
	if k.Status == http.StatusTooManyRequests {
		// The wait of the first answer is gone; every 429 carries one.
		h.Set("Retry-After", "1")
	}
	return nil, &response{status: k.Status, header: h, body: k.Body}
}

// end ends the claim, deferred once it is taken: a call that reached
// step 7 ([response.keep]) is kept, *res being what a retry will get; any
// other (a refusal before, a hang-up, a panic) is released, so that a
// retry runs the call. The call's context may be gone (a client that hung up is the case
// the key exists for), so the store is written without it.
func (cl *claim) end(ctx context.Context, res **response) {
	if cl == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if *res == nil || !(*res).keep {
		if err := cl.s.idem.Release(ctx, cl.scope, cl.key); err != nil {
			cl.s.logger.Error("affordances: idempotency store: release", "err", err)
		}
		return
	}
	if err := cl.s.idem.Finish(ctx, cl.scope, cl.key, cl.s.keep(cl.r, cl.who, *res)); err != nil {
		// The action ran: answer with its delta all the same. The claim
		// stays until the store expires it, so a retry is refused as
		// still running, never run again.
		cl.s.logger.Error("affordances: idempotency store: finish", "err", err)
	}
}

// idempotencyScope names who calls which page, for [store.Idempotency]:
// the caller as the rate limit counts them ([appendCaller]), then the
// page's path.
func idempotencyScope(r *http.Request, p Principal) string {
	var room [128]byte // written in one string
	return string(append(append(appendCaller(room[:0], r, p), ' '), r.URL.Path...))
}

// keep encodes res as the answer a retry will get, in who's language
// ([Site.encode]): its status, body and headers without Retry-After. The
// body stays on res, which the call then writes as it is.
func (s *Site) keep(r *http.Request, who Principal, res *response) *store.KeptDelta {
	buf := buffers.Get().(*[]byte)
	*buf = s.encode((*buf)[:0], r, who, res)
	res.body = slices.Clone(*buf) // kept beyond this request
	putBuffer(buf)
	k := &store.KeptDelta{Status: res.status, Header: res.header.Clone(), Body: res.body}
	k.Header.Del("Retry-After")
	return k
}
