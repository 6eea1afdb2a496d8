package affordances

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/wirejson"
)

// A call is one call on its way through the seven steps of a call
// (docs/protocol.md §19), from either front door: an agent's JSON body
// ([Site.serveCall]) or a person's HTML form ([Site.serveForm]). Both
// resolve the action (step 1) before they build it; [Site.answer] runs the
// rest, each step below it in this file in the order it runs.
type call struct {
	route   *Route
	params  []param
	action  *action
	confirm bool
	// input is the input step 4 validates, as an agent's call carries it.
	input json.RawMessage
	// form says the call is a person's form on the site's page, values
	// are its fields, which step 4 decodes into the input, and consent
	// is the digest of the state its confirmation page showed
	// ([FormConsentField]).
	form    bool
	values  url.Values
	consent string
	// key is the Idempotency-Key, "" for none (a form's _key that is no
	// key is none: [Site.claim] ignores it), and body what its kept
	// answer is bound to.
	key  string
	body []byte
	// next is the app's handler the site wraps, which [Post] runs.
	next http.Handler
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
	// changed is the delta's changed, when the call ran an action: it is
	// encoded from where the values are, not a map of them.
	changed changeSet
	// keep says the answer is step 7's, the action's success or its
	// refusal: what a retry with the call's Idempotency-Key gets.
	keep bool
}

// who is the requester of a call's Request: anonymous while step 2 has
// found no one (a nil Request).
func (req *Request) who() Principal {
	if req == nil {
		return Principal{}
	}
	return req.Principal
}

// A changeSet is a delta's changed (docs/protocol.md decision 5) as a call
// finds it: the keys, sorted and each once, and the entities they are
// read from (a key absent there is gone: null).
type changeSet struct {
	keys []string
	in   map[string]any
}

// serveCall is the agents' front door: it reads and decodes the JSON body,
// resolves the action (step 1), and writes what [Site.answer] answers, in
// the language of whoever step 2 found. The body is read into a pooled
// buffer, put back once the answer is written: nothing of the call
// outlives it but copies (the decoded input's strings, the input an
// approval keeps).
func (s *Site) serveCall(w http.ResponseWriter, r *http.Request, next http.Handler) {
	buf := buffers.Get().(*[]byte)
	res, req := s.agentCall(w, r, next, buf)
	s.writeResponse(w, r, req.who(), res)
	putBuffer(buf)
}

// agentCall answers the call r carries, its body read into *buf, and
// returns the call's Request once step 2 made one.
func (s *Site) agentCall(w http.ResponseWriter, r *http.Request, next http.Handler, buf *[]byte) (*response, *Request) {
	// A bad Idempotency-Key is refused before anything else is read or
	// runs (docs/protocol.md decision 10).
	keys := r.Header[IdempotencyHeader]
	if keys != nil && (len(keys) != 1 || !validIdempotencyKey(keys[0])) {
		return s.failure(errBadIdempotencyKey, "call"), nil
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
		return s.failure(s.bodyError(err), "call"), nil
	}
	c, cerr := decodeCall(body)
	if cerr != nil {
		return s.failure(cerr, "call"), nil
	}
	rt, params, a, err := s.resolve(r, next, c.Action)
	if err != nil {
		return s.failure(err, "call"), nil
	}
	cl := &call{route: rt, params: params, action: a, confirm: c.Confirm, body: body, next: next, input: c.Input}
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

// maxIdempotencyKey bounds an Idempotency-Key's length, in bytes.
const maxIdempotencyKey = 255

// validIdempotencyKey reports whether k is 1 to 255 visible ASCII
// characters.
func validIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > maxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// decodeCall reads a call's body: the JSON and the bounds [wirejson.ScanCall]
// checks (docs/protocol.md decision 2), a non-empty string "action", any
// "input", and a boolean "confirm" when present. Unknown fields are
// ignored (docs/protocol.md decision 5). The error is an invalid_input
// [*Error], for [errors.As].
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

// answer runs a resolved call through steps 2 to 7, in order, and stops at
// the first that fails (docs/protocol.md decision 5). It returns the
// answer and the call's Request, nil when step 2 found no one: the
// language the answer is said in, and for a person's form the page as the
// call last loaded it.
func (s *Site) answer(ctx context.Context, r *http.Request, c *call) (res *response, req *Request) {
	a := c.action

	// Step 2: the origin rule of the call's front door, who asks, and
	// expose against them.
	req, err := s.admit(r, c)
	if err != nil {
		return s.failure(err, "call"), req
	}

	// An Idempotency-Key (docs/protocol.md decision 10): steps 3 to 7 run
	// once per caller, page and key; a retry gets the first answer
	// (idempotency.go).
	claim, replay := s.claim(ctx, c, req)
	if replay != nil {
		return replay, req
	}
	defer claim.end(ctx, &res)

	// Step 3: the rate limit.
	if err := s.rateLimit(ctx, req, a); err != nil {
		return s.failure(err, "call"), req
	}

	// Step 4: the input, validated against the action's schema and
	// decoded into its Go type.
	input, err := s.validate(c, req)
	if err != nil {
		return s.failure(err, "call"), req
	}

	// The page as the requester sees it before the action: its state and
	// its actions as its graph lists them (state.go).
	var room [8]listed // the listing of most pages, on the stack
	before, err := s.see(ctx, req, room[:0], false)
	if err != nil {
		return s.failure(err, "call"), req
	}

	// Step 5: the guard.
	if err := guarded(before, a); err != nil {
		return s.failure(err, "call"), req
	}

	// Step 6: a confirm action needs confirm: true, and a human-verified
	// one the person's approval of what they were shown (approval.go).
	if a.Expose == ExposeConfirm {
		if refusal := s.confirmed(ctx, c, req, input, false); refusal != nil {
			return refusal, req
		}
	}

	// What the call costs, taken from what an assistant's grant may
	// still spend, and given back if it does not run.
	undo, err := s.spend(ctx, req, a)
	if err != nil {
		return s.failure(err, "call"), req
	}

	// Step 7: run the action, see the page again, answer with the delta.
	// An action that found, where it writes, that what the person
	// confirmed changed has undone what it wrote: they are asked again
	// about the page as it is now, and nothing ran.
	res, ran, changed := s.runAction(ctx, c, req, before)
	if undo != nil && !ran {
		undo(context.WithoutCancel(ctx))
	}
	if changed {
		if err := s.loadState(ctx, req); err != nil {
			return s.failure(err, "call"), req
		}
		again := *c
		again.confirm = false
		return s.confirmed(ctx, &again, req, input, true), req
	}
	res.keep = true // for a retry (claim.end)
	return res, req
}

// admit is step 2: the origin rule of the call's front door (the
// browser's for a form, docs/protocol.md decision 13; else decision 4),
// who asks ([Site.authenticate]), the action's expose against them
// (docs/protocol.md decision 1), and the trust classes of their grant, if
// any (docs/protocol.md decision 14). The Request it returns, from when
// the caller is known, is the call's for the steps that follow; nil if no
// one was authenticated.
func (s *Site) admit(r *http.Request, c *call) (*Request, error) {
	origin := s.checkOrigin
	if c.form {
		origin = s.checkFormOrigin
	}
	if err := origin(r); err != nil {
		return nil, err
	}
	p, err := s.authenticate(r)
	if err != nil {
		return nil, err
	}
	req := &Request{HTTP: r, Principal: p, Page: r.URL.Path, route: c.route, params: c.params, next: c.next}
	a := c.action
	if a.Expose != ExposePublic && p.Anonymous() {
		return req, s.signIn()
	}
	if !a.listedFor(req) {
		if p.Anonymous() {
			return req, s.signIn()
		}
		return req, forbidden(phrase("You may not do this."))
	}
	if g := p.Grant; g != nil && !g.Allows(a.trust()) {
		return req, insufficientScope(a.trust())
	}
	return req, nil
}

// rateLimit is step 3: the call counted per caller ([appendCaller]) and
// route; an action with its own Limit is counted apart.
func (s *Site) rateLimit(ctx context.Context, req *Request, a *action) error {
	var room [128]byte // the key, written in one string
	key := append(appendCaller(room[:0], req.HTTP, req.Principal), ' ')
	key, limit := append(key, req.route.pattern...), s.opts.Limit
	if a.Limit != nil {
		key, limit = append(append(key, ' '), a.Name...), *a.Limit
	}
	return s.allow(ctx, string(key), limit)
}

// maxIssues bounds the issues one refused input reports.
const maxIssues = 20

// validate is step 4: the input, a form's decoded from its fields,
// validated against the action's input schema, then decoded into the
// action's Go type for [Request]. Each issue says where and why
// (docs/protocol.md decision 5); the input that passes is returned as
// sent, the empty one as {}.
func (s *Site) validate(c *call, req *Request) (json.RawMessage, error) {
	a := c.action
	input, issues := c.input, []issue(nil)
	if c.form {
		input, issues = a.form.decode(c.values)
	}
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	if len(issues) == 0 {
		// One pass, for the input's validity and its value together.
		if v, ok := a.decodeValid(input); ok {
			req.input = v
			return input, nil
		}
	}
	found, err := a.input.Validate(input)
	if err != nil {
		return nil, libError(InvalidInput, phrase("The input is not JSON."))
	}
	for _, is := range found {
		// A value that could not be decoded is missing from input: its own
		// issue says why, once.
		if !slices.ContainsFunc(issues, func(d issue) bool { return d.path == is.Path }) {
			issues = append(issues, issue{is.Path, text{is.Person.Format, is.Person.Args}}) // a key of the catalogue
		}
	}
	if len(issues) > 0 {
		e := libError(InvalidInput, phrase("The input does not match the schema."))
		if len(issues) > maxIssues {
			e = libError(InvalidInput, phrase("The input does not match the schema: %d problems, the first %d listed.", len(issues), maxIssues))
		}
		e.schema = true
		return nil, e.withIssues(issues[:min(len(issues), maxIssues)])
	}
	if req.input, err = a.decode(input); err != nil {
		// The schema let through what the Go type cannot hold (a number
		// too large for an int): say so without naming Go types.
		return nil, libError(InvalidInput, phrase("The input does not fit the action."))
	}
	return input, nil
}

// guarded is step 5: the action as the page's listing before it shows it,
// available or refused with its reason. An action no longer listed once
// the state is loaded (Visible changed its mind) is refused, never run
// unguarded; one whose guard panicked is the site's failure.
func guarded(before []listed, a *action) error {
	i := slices.IndexFunc(before, func(l listed) bool { return l.a == a })
	switch {
	case i < 0:
		return forbidden(phrase("You may not do this."))
	case before[i].broken:
		return internalError
	case !before[i].available:
		return NewError(Unavailable, before[i].reason)
	}
	return nil
}

// spend takes what a call of a costs from its caller's grant, before it
// runs (docs/protocol.md decision 14); undo gives it back. Nil, nil for a
// caller without a grant or a call that costs nothing.
func (s *Site) spend(ctx context.Context, req *Request, a *action) (undo func(context.Context), err error) {
	g := req.Principal.Grant
	if g == nil {
		return nil, nil
	}
	aff, err := a.affordance(req.State.Entities)
	if err != nil {
		return nil, err
	}
	if aff.Cost == nil || !(aff.Cost.Amount > 0) {
		return nil, nil
	}
	if g.Spend == nil {
		return nil, insufficientScope(aal.TrustFinancial)
	}
	undo, err = g.Spend(ctx, *aff.Cost)
	if errors.Is(err, ErrOverCeiling) {
		return nil, insufficientScope(aal.TrustFinancial)
	}
	if err != nil {
		return nil, fmt.Errorf("affordances: the grant of %s: %w", g.Client, err)
	}
	return undo, nil
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
	res = answered(http.StatusOK, req.header, Delta{OK: true, Output: out, Redirect: s.full(req.redirect), Message: req.message})
	if a.ReadOnly && req.principal == nil {
		// It changed nothing, so the page is as it was: no reload, and
		// nothing changed to say.
		return res, true, false
	}
	var room [8]listed
	after, err := s.see(ctx, req, room[:0], true) // the action may have removed the page
	if err != nil {
		return fail(err, "reload"), true, false
	}
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
	an := &answer{response{status: status, header: header}, d}
	an.res.delta = &an.delta
	return &an.res
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
