package affordances

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"

	"github.com/affordances/affordances-go/internal/wirejson"
)

// A call is one call on its way through the seven steps of seed 000
// ("Call"), from either front door: an agent's JSON body ([Site.serveCall])
// or a person's HTML form ([Site.serveForm]). Both resolve the action
// (step 1) before they build it; [Site.answer] runs the rest.
type call struct {
	route   *Route
	params  []param
	action  *action
	confirm bool
	// origin is step 2's origin rule: docs/protocol.md decision 4 for agents, the
	// browser's for forms.
	origin func(*Site, *http.Request) error
	// input is the input step 4 validates, as an agent's call carries it;
	// a person's form sets decode instead, which returns it, or the
	// issues of an input that could not be decoded (a form's "two" for an
	// integer).
	input  json.RawMessage
	decode func() (json.RawMessage, []issue)
	// key is the Idempotency-Key, "" for none, and body what its kept
	// answer is bound to.
	key  string
	body []byte
	// form says the call is a person's form on the site's page, and
	// consent is the digest of the state its confirmation page showed
	// ([FormConsentField]).
	form    bool
	consent string
	// next is the app's handler the site wraps, which [Post] runs.
	next http.Handler
	// ans is where step 7 writes its response: step 2 makes it with the
	// call's Request, in one allocation.
	ans *answer
}

// A response is a call's answer, fresh or replayed: the status, the
// headers (those the action set, Retry-After), and the delta or, for a
// kept answer, its encoding.
type response struct {
	status int
	header http.Header // nil when there are none
	delta  *Delta      // nil for a replay
	body   []byte      // the encoded delta, once encoded
	// consent is, on a confirm_required, the digest of the state its
	// summary describes, for a person's confirmation page.
	consent string
	// req is the call's Request once step 2 authenticated it, with the
	// page's state as last loaded: for a person's form, the page shown
	// again, without authenticating or loading once more.
	req *Request
	// changed is the delta's changed, when the call ran an action: it is
	// encoded from where the values are, not a map of them.
	changed changeSet
}

// who is the requester of the call res answers, once step 2 knew them;
// anonymous before.
func (res *response) who() Principal {
	if res.req == nil {
		return Principal{}
	}
	return res.req.Principal
}

// A changeSet is a delta's changed (docs/protocol.md decision 5) as a call finds it:
// the keys, sorted and each once, and the entities they are read from (a
// key absent there is gone: null).
type changeSet struct {
	keys []string
	in   map[string]any
}

// serveCall is the agents' front door: it reads and decodes the JSON body,
// resolves the action (step 1), and writes what [Site.answer] answers.
// The body is read into a pooled buffer, put back once the answer is
// written: nothing of the call outlives it but copies (the decoded input's
// strings, the input an approval keeps).
func (s *Site) serveCall(w http.ResponseWriter, r *http.Request, next http.Handler) {
	buf := buffers.Get().(*[]byte)
	s.writeResponse(w, r, s.agentCall(w, r, next, buf))
	putBuffer(buf)
}

// agentCall answers the call r carries, its body read into *buf.
func (s *Site) agentCall(w http.ResponseWriter, r *http.Request, next http.Handler, buf *[]byte) *response {
	// A bad Idempotency-Key is refused before anything else is read or
	// runs (docs/protocol.md decision 10).
	keys := r.Header[IdempotencyHeader]
	if keys != nil && (len(keys) != 1 || !validIdempotencyKey(keys[0])) {
		return s.failure(errBadIdempotencyKey, "call")
	}
	limit, in := s.opts.MaxBodyBytes, io.Reader(r.Body)
	if r.ContentLength < 0 || r.ContentLength > limit {
		// A body that may be too large: refused, the server closes the
		// connection rather than read the rest.
		in = http.MaxBytesReader(w, r.Body, limit)
	}
	body, err := wirejson.ReadBody(*buf, in, min(r.ContentLength, limit), limit)
	*buf = body
	if err != nil {
		return s.failure(s.bodyError(err), "call")
	}
	c, cerr := decodeCall(body)
	if cerr != nil {
		return s.failure(cerr, "call")
	}
	rt, params, a, err := s.resolve(r, next, c.Action)
	if err != nil {
		return s.failure(err, "call")
	}
	cl := &call{route: rt, params: params, action: a, confirm: c.Confirm, origin: (*Site).checkOrigin, body: body, next: next, input: c.Input}
	if keys != nil {
		cl.key = keys[0]
	}
	return s.answer(r.Context(), r, cl)
}

// bodyError is the refusal of a body that could not be read: too large
// (413), or cut short.
func (s *Site) bodyError(err error) *Error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok || errors.Is(err, wirejson.ErrTooLarge) {
		return tooLarge(phrase("The call is larger than %d bytes.", s.opts.MaxBodyBytes))
	}
	return libError(InvalidInput, phrase("The call's body could not be read."))
}

// resolve is step 1: the route of r's page, next's pattern permitting
// ([Site.route]), and its exposed action name.
func (s *Site) resolve(r *http.Request, next http.Handler, name string) (*Route, []param, *action, error) {
	rt, params := s.route(r, next, r.URL.EscapedPath())
	if rt == nil {
		return nil, nil, nil, ErrNotMine
	}
	a := rt.byName[name]
	if a == nil || a.Expose == "" {
		return nil, nil, nil, libError(NotFound, phrase("This page has no action %q.", name))
	}
	return rt, params, a, nil
}

// answer runs a resolved call through steps 2 to 7 of seed 000 ("Call"),
// in order, and stops at the first that fails (docs/protocol.md decision 5). Each
// step is one call, its mechanics in the file of its concern. The answer
// carries the call's Request from step 2 on.
func (s *Site) answer(ctx context.Context, r *http.Request, c *call) (res *response) {
	a := c.action

	// Step 2: the origin rule, who asks, and expose against them (auth.go).
	req, err := s.admit(r, c)
	defer func() {
		if res.req == nil {
			res.req = req
		}
	}()
	if err != nil {
		return s.failure(err, "call")
	}

	// An Idempotency-Key (docs/protocol.md decision 10): steps 3 to 7 run once per
	// caller, page and key; a retry gets the first answer (idempotency.go).
	claim, replay := s.claim(ctx, c, req)
	if replay != nil {
		return replay
	}
	defer claim.release(ctx) // unless kept below

	// Step 3: the rate limit (ratelimit.go).
	if err := s.rateLimit(ctx, req, a); err != nil {
		return s.failure(err, "call")
	}

	// Step 4: the input, validated against the action's schema and
	// decoded into its Go type (input.go).
	input, err := s.validate(c, req)
	if err != nil {
		return s.failure(err, "call")
	}

	// The page as the requester sees it before the action (state.go), and
	// its actions as its graph lists them (actions.go).
	if err := s.loadState(ctx, req); err != nil {
		return s.failure(err, "call")
	}
	var room [8]listed // the listing of most pages, on the stack
	before := req.route.appendListing(room[:0], ctx, req)

	// Step 5: the guard (actions.go).
	if err := guarded(before, a); err != nil {
		return s.failure(err, "call")
	}

	// Step 6: a confirm action needs confirm: true, and a human-verified
	// one the person's approval of what they were shown (approval.go).
	if a.Expose == ExposeConfirm {
		if refusal := s.confirmed(ctx, c, req, input, false); refusal != nil {
			return refusal
		}
	}

	// What the call costs, taken from what an assistant's grant may
	// still spend, and given back if it does not run (grant.go).
	undo, err := s.spend(ctx, req, a)
	if err != nil {
		return s.failure(err, "call")
	}

	// Step 7: run the action, load the page again, answer with the delta.
	// An action that found, where it writes, that what the person
	// confirmed changed has undone what it wrote: they are asked again
	// about the page as it is now, and nothing ran.
	res, ran, changed := s.runAction(ctx, c, req, before)
	if undo != nil && !ran {
		undo(context.WithoutCancel(ctx))
	}
	if changed {
		if err := s.loadState(ctx, req); err != nil {
			return s.failure(err, "call")
		}
		again := *c
		again.confirm = false
		return s.confirmed(ctx, &again, req, input, true)
	}
	claim.keep(ctx, res) // for a retry (idempotency.go)
	return res
}

// runAction is step 7: it runs the action, loads the page again as the
// requester is now, and answers with the delta (docs/protocol.md decision 5); ran
// says the action ran, whatever the answer (a reload that failed after
// it is still a call that ran). When the action refused to run because
// what the person confirmed changed ([Request.Consented]), it answers
// nothing and consentChanged is true.
func (s *Site) runAction(ctx context.Context, c *call, req *Request, before []listed) (res *response, ran, consentChanged bool) {
	a := c.action
	// Without effects the delta compares entities; encode them now, as the
	// action may change values the loader shared with it.
	var beforeEntities map[string][]byte
	var err error
	if a.Effects == nil && !a.ReadOnly {
		if beforeEntities, err = encodeEach(req.State.Entities); err != nil {
			return s.failure(err, "state of "+req.route.pattern), false, false
		}
	}
	fail := func(err error, where string) *response {
		res := s.failure(err, where)
		if req.header != nil {
			if res.header == nil {
				res.header = http.Header{}
			}
			addHeader(res.header, req.header)
		}
		return res
	}
	out, err := s.run(ctx, a, req)
	if errors.Is(err, errConsentChanged) {
		return nil, false, true
	}
	if err != nil {
		return fail(err, "action "+a.Name), false, false
	}
	if req.consent != "" && !req.consentChecked {
		a.consentUnchecked.Do(func() {
			s.logger.Error("affordances: the action declares Consent and ran on a person's confirmation without calling Request.Consented: the state was checked before it ran, not where it writes",
				"route", req.route.pattern, "action", a.Name, "fix", "call r.Consented with the page's entities as read in the transaction that writes")
		})
	}
	if req.principal != nil {
		req.Principal = *req.principal
	}
	res = c.ans.set(http.StatusOK, req.header, Delta{OK: true, Output: out, Redirect: s.full(req.redirect), Message: req.message})
	if a.ReadOnly && req.principal == nil {
		// It changed nothing, so the page is as it was: no reload, and
		// nothing changed to say.
		return res, true, false
	}
	if err := s.loadState(ctx, req); err != nil {
		if CodeOf(err) != NotFound {
			return fail(err, "reload"), true, false
		}
		// The action removed the page itself (a deleted item): its
		// entities and actions are gone.
		req.State = &State{}
	}
	var room [8]listed
	after := req.route.appendListing(room[:0], ctx, req)
	if res.changed, err = changed(a.effects, beforeEntities, req.State.Entities); err != nil {
		return fail(err, "delta of "+a.Name), true, false
	}
	if !req.route.effectsSeen.Load() {
		for _, k := range a.Effects {
			if _, seen := req.route.entities.Load(k); seen {
				continue
			}
			if _, told := a.unknownEffects.LoadOrStore(k, true); !told {
				s.logger.Error("affordances: Effects names an entity no state of the route has had yet: a mistake, unless it appears later", "route", req.route.pattern,
					"action", a.Name, "effect", k, "fix", "name in Effects only keys of the route's State.Entities")
			}
		}
	}
	res.delta.ActionsAdded, res.delta.ActionsRemoved = actionChanges(before, after)
	return res, true, false
}

// An answer is a response and its delta, in one allocation.
type answer struct {
	res   response
	delta Delta
}

// answered returns the response of status with header and the delta d.
func answered(status int, header http.Header, d Delta) *response {
	return new(answer).set(status, header, d)
}

// set writes into an the response of status, with header and the delta
// d, and returns that response.
func (an *answer) set(status int, header http.Header, d Delta) *response {
	*an = answer{response{status: status, header: header}, d}
	an.res.delta = &an.delta
	return &an.res
}

// decodeCall reads a call's body: the JSON and the bounds [wirejson.ScanCall]
// checks (docs/protocol.md decision 2), a non-empty string "action", any "input", and
// a boolean "confirm" when present. Unknown fields are ignored
// (docs/protocol.md decision 5). The error is an invalid_input [*Error], for
// [errors.As].
func decodeCall(body []byte) (Call, error) {
	var c Call
	m, refused := wirejson.ScanCall(body)
	if refused != nil {
		return c, libError(InvalidInput, text{refused.Format, refused.Args}) // wirejson's refusal: a key of the catalogue
	}
	c.Action = string(m.Action)
	if c.Action == "" {
		return c, libError(InvalidInput, phrase("The call names no action.")).withIssues([]issue{{"/action", phrase("must be a non-empty string")}})
	}
	if v := m.Confirm; v != nil {
		switch string(v) {
		case "true":
			c.Confirm = true
		case "false":
		default:
			return c, libError(InvalidInput, phrase("confirm must be true or false.")).withIssues([]issue{{"/confirm", phrase("must be a boolean")}})
		}
	}
	c.Input = m.Input // of body: what keeps it beyond the call keeps a copy
	return c, nil
}

// run runs the action; a panic becomes an internal error and the server
// keeps serving.
func (s *Site) run(ctx context.Context, a *action, req *Request) (out any, err error) {
	defer s.recoverTo(&err, "action ", a.Name)
	out, err = a.run(ctx, req)
	if err != nil {
		return nil, err
	}
	if v := reflect.ValueOf(out); !v.IsValid() || (v.Kind() == reflect.Struct && v.NumField() == 0) {
		return nil, nil
	}
	return out, nil
}

// changed computes the delta's changed (docs/protocol.md decision 5), read from
// after: with effects (sorted, each once), the new value of each effect key
// (null when gone); without, every entity whose JSON differs from before,
// gone ones as null.
func changed(effects []string, before map[string][]byte, after map[string]any) (changeSet, error) {
	if effects != nil {
		return changeSet{effects, after}, nil
	}
	var keys []string
	for k, v := range after {
		now, err := json.Marshal(v)
		if err != nil {
			return changeSet{}, fmt.Errorf("affordances: entity %q: %w", k, err)
		}
		if old, ok := before[k]; !ok || !bytes.Equal(old, now) {
			keys = append(keys, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return changeSet{keys, after}, nil
}

// encodeEach encodes each entity on its own.
func encodeEach(entities map[string]any) (map[string][]byte, error) {
	out := make(map[string][]byte, len(entities))
	for k, v := range entities {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("affordances: entity %q: %w", k, err)
		}
		out[k] = b
	}
	return out, nil
}

// actionChanges returns the actions listed now that were not, or whose
// availability flipped, and the names no longer listed (docs/protocol.md decision 5).
// Both listings are in the route's order of declaration, so one walk
// through each pairs them.
func actionChanges(before, after []listed) (added []ActionDescriptor, removed []string) {
	k := 0 // before[:k] are paired or gone
	for _, l := range after {
		i := slices.IndexFunc(before[k:], func(b listed) bool { return b.a == l.a })
		if i < 0 {
			added = append(added, l.descriptor())
			continue
		}
		for _, gone := range before[k : k+i] {
			removed = append(removed, gone.a.Name)
		}
		if before[k+i].available != l.available {
			added = append(added, l.descriptor())
		}
		k += i + 1
	}
	for _, gone := range before[k:] {
		removed = append(removed, gone.a.Name)
	}
	return added, removed
}
