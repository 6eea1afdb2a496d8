package affordances

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/affordances/affordances-go/store"
)

// A call is one call on its way through the seven steps of seed 000
// ("Call"), from either front door: an agent's JSON body ([Site.serveCall])
// or a person's HTML form ([Site.serveForm]). Both resolve the action
// (step 1) before they build it; the pipeline runs the rest.
type call struct {
	route   *Route
	params  []param
	action  *action
	confirm bool
	// origin is step 2's origin rule: CLARIFICATIONS 4 for agents, the
	// browser's for forms.
	origin func(*http.Request) error
	// input returns the input step 4 validates, or the issues of an input
	// that could not be decoded (a form's "two" for an integer).
	input func() (json.RawMessage, []Issue)
	// key is the Idempotency-Key, "" for none, and body what its kept
	// answer is bound to.
	key  string
	body []byte
	// form says the call is a person's form on the site's page, and
	// consent is the digest of the state its confirmation page showed
	// ([FormConsentField]).
	form    bool
	consent string
}

// A response is the pipeline's answer, fresh or replayed: the status, the
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
}

// serveCall is the agents' front door: it reads and decodes the JSON body,
// resolves the action (step 1), and writes what the pipeline answers.
func (s *Site) serveCall(w http.ResponseWriter, r *http.Request) {
	s.writeResponse(w, r, s.agentCall(w, r))
}

func (s *Site) agentCall(w http.ResponseWriter, r *http.Request) *response {
	// A bad Idempotency-Key is refused before anything else is read or
	// runs (CLARIFICATIONS 10).
	keys := r.Header[IdempotencyHeader]
	if keys != nil && (len(keys) != 1 || !validIdempotencyKey(keys[0])) {
		return s.failure(errBadIdempotencyKey, "call")
	}
	body, err := readBody(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes), min(r.ContentLength, s.opts.MaxBodyBytes))
	if err != nil {
		return s.failure(s.bodyError(err), "call")
	}
	c, cerr := DecodeCall(body)
	if cerr != nil {
		return s.failure(cerr, "call")
	}
	rt, params, a, err := s.resolve(r.URL.EscapedPath(), c.Action)
	if err != nil {
		return s.failure(err, "call")
	}
	cl := &call{route: rt, params: params, action: a, confirm: c.Confirm, origin: s.CheckOrigin, body: body,
		input: func() (json.RawMessage, []Issue) { return c.Input, nil }}
	if keys != nil {
		cl.key = keys[0]
	}
	return s.pipeline(r.Context(), r, cl)
}

// bodyError is the refusal of a body that could not be read: too large
// (413), or cut short.
func (s *Site) bodyError(err error) *Error {
	if tooBig, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return tooLarge(fmt.Sprintf("The call is larger than %d bytes.", tooBig.Limit))
	}
	return NewError(InvalidInput, "The call's body could not be read.")
}

// resolve is step 1: the route of the escaped path and its exposed action
// name.
func (s *Site) resolve(escaped, name string) (*Route, []param, *action, error) {
	rt, params := s.lookup(escaped)
	if rt == nil {
		return nil, nil, nil, errNoGraph
	}
	a := rt.byName[name]
	if a == nil || a.Expose == "" {
		return nil, nil, nil, NewError(NotFound, fmt.Sprintf("This page has no action %q.", name))
	}
	return rt, params, a, nil
}

// pipeline runs steps 2 to 7 of a resolved call and answers it.
func (s *Site) pipeline(ctx context.Context, r *http.Request, c *call) *response {
	res, req := s.steps(ctx, r, c)
	if res.req == nil {
		res.req = req
	}
	return res
}

// steps runs steps 2 to 7 of a resolved call, and returns its answer and,
// from step 2 on, its Request.
func (s *Site) steps(ctx context.Context, r *http.Request, c *call) (*response, *Request) {
	// Step 2: the origin rule, then expose against the caller.
	if err := c.origin(r); err != nil {
		return s.failure(err, "call"), nil
	}
	p, err := s.authenticate(r)
	if err != nil {
		return s.failure(err, "call"), nil
	}
	req := &Request{HTTP: r, Principal: p, Page: r.URL.Path, route: c.route, params: c.params}
	a := c.action
	if a.Expose != ExposePublic && p.Anonymous() {
		return s.failure(NewError(Unauthorized, s.opts.SignInReason), "call"), req
	}
	if !a.listedFor(req) {
		if p.Anonymous() {
			return s.failure(NewError(Unauthorized, s.opts.SignInReason), "call"), req
		}
		return s.failure(Forbidden("You may not do this."), "call"), req
	}
	if c.key != "" && !a.Secret {
		return s.once(ctx, c, req), req
	}
	res, _ := s.proceed(ctx, c, req)
	return res, req
}

// proceed runs steps 3 to 7 of a call that passed steps 1 and 2, and says
// whether it reached step 7: whether the action ran.
func (s *Site) proceed(ctx context.Context, c *call, req *Request) (_ *response, ran bool) {
	a, rt := c.action, req.route

	// Step 3: the rate limit.
	if err := s.rateLimit(ctx, req.HTTP, rt, a, req.Principal); err != nil {
		return s.failure(err, "call"), false
	}

	// Step 4: validate the input.
	input, issues := c.input()
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	found, err := a.input.Validate(input)
	if err != nil {
		return s.failure(NewError(InvalidInput, "The input is not JSON."), "call"), false
	}
	for _, is := range found {
		// A value that could not be decoded is missing from input: its own
		// issue says why, once.
		if !slices.ContainsFunc(issues, func(d Issue) bool { return d.Path == is.Path }) {
			issues = append(issues, Issue{Path: is.Path, Message: is.Message})
		}
	}
	if len(issues) > 0 {
		e := &Error{Code: InvalidInput, Message: "The input does not match the schema.", schema: true}
		e.Issues = issues[:min(len(issues), maxIssues)]
		if len(issues) > maxIssues {
			e.Message = fmt.Sprintf("The input does not match the schema: %d problems, the first %d listed.", len(issues), maxIssues)
		}
		return s.failure(e, "call"), false
	}
	if req.input, err = a.decode(input); err != nil {
		// The schema let through what the Go type cannot hold (a number
		// too large for an int): say so without naming Go types.
		return s.failure(NewError(InvalidInput, "The input does not fit the action."), "call"), false
	}

	// The page as the requester sees it before the action.
	if err := s.loadState(ctx, req); err != nil {
		return s.failure(err, "call"), false
	}
	var room [8]listed // the listing of most pages, on the stack
	before := rt.appendListing(room[:0], ctx, req)

	// Step 5: the guard. An action no longer listed once the state is
	// loaded (Visible changed its mind) is refused, never run unguarded.
	i := slices.IndexFunc(before, func(l listed) bool { return l.a == a })
	switch {
	case i < 0:
		return s.failure(Forbidden("You may not do this."), "call"), false
	case before[i].broken:
		return s.failure(internalError, "call"), false
	case !before[i].available:
		return s.failure(NewError(Unavailable, before[i].reason), "call"), false
	}

	// Step 6: confirm actions need confirm: true, and a human-verified one
	// the person's approval; nothing runs without them.
	if a.Expose == ExposeConfirm {
		if res := s.confirmed(ctx, c, req, input, false); res != nil {
			return res, false
		}
	}

	// Step 7: run, reload, answer with the delta. An action that found,
	// where it writes, that what the person confirmed changed has undone
	// what it wrote: the person is asked again about the page as it is.
	res, changed := s.runAction(ctx, a, req, before)
	if changed {
		if err := s.loadState(ctx, req); err != nil {
			return s.failure(err, "call"), false
		}
		again := *c
		again.confirm = false
		return s.confirmed(ctx, &again, req, input, true), false
	}
	return res, true
}

// confirmed is step 6 of a confirm action: nil when the call may run, or
// the refusal. A human-verified action (CLARIFICATIONS 10) runs on
// confirm: true only with an approval the person gave on the site's
// approval page for this very call, taken once; or when the call is the
// person's own form on the site's page, confirmed by its button, from
// their browser session. Either covers the state the person was shown
// ([Action.Consent]) as well as the input: the call runs only while it is
// the same, and the action may check it again where it writes
// ([Request.Consented]). changed says that what was confirmed changed
// before the action could run: the person is told so.
func (s *Site) confirmed(ctx context.Context, c *call, req *Request, input json.RawMessage, changed bool) *response {
	a := c.action
	consent, err := consentDigest(a.Consent, req.State.Entities)
	if err != nil {
		return s.failure(err, "consent of "+a.Name)
	}
	verify := a.Verify || s.opts.VerifyConfirm
	if c.confirm {
		switch {
		case c.form && (!verify || byPerson(req)):
			if c.consent == consent {
				req.consent, req.consentKeys = consent, a.Consent
				return nil
			}
			changed = true // the confirmation page showed other values
		case !verify:
			return nil // an agent's confirm: true: no page showed it anything to hold it to
		}
	}
	summary, err := a.summarize(ctx, s, req)
	if err != nil {
		return s.failure(err, "summary of "+a.Name)
	}
	message := summary
	if changed {
		message = errConsentChanged.Message + " Now: " + summary
	}
	if !verify || c.form {
		res := s.failure(NewError(ConfirmRequired, message), "call")
		res.consent = consent
		return res
	}
	key := approvalKey(req, a.Name, input, summary, consent)
	if c.confirm {
		taken, err := s.appr.Take(ctx, key)
		switch {
		case err != nil: // fail closed: never run without the store
			return s.failure(fmt.Errorf("affordances: approvals store: %w", err), "call")
		case taken != nil && taken.State == store.ApprovalApproved:
			req.consent, req.consentKeys = consent, a.Consent
			return nil
		case taken != nil && taken.State == store.ApprovalDenied:
			return s.failure(Forbidden("The person denied this call on the approval page. Nothing ran."), "call")
		}
	}
	// A decided approval is answered as it stands: a client asks without
	// confirm first, then confirms what the person approved, or reads the
	// denial. A denial stands until the approval expires.
	ap, err := s.appr.Request(ctx, &store.Approval{ID: store.NewApprovalID(), Call: key, Principal: req.Principal.ID, Page: req.Page,
		Action: a.Name, Input: input, Summary: summary, State: store.ApprovalPending, Expires: time.Now().Add(store.ApprovalTTL)})
	if err != nil {
		return s.failure(fmt.Errorf("affordances: approvals store: %w", err), "call")
	}
	res := s.failure(NewError(ConfirmRequired, message+" A person must approve it at the approval page before confirm: true runs it."), "call")
	res.delta.Approval = &PendingApproval{URL: ApprovalsPath + ap.ID, Expires: ap.Expires.UTC().Truncate(time.Second)}
	return res
}

// byPerson reports whether req comes from a person's browser session: a
// cookie, and the browser's own headers of a same-site post (which
// [Site.checkFormOrigin] has checked), not a client that sent neither.
func byPerson(req *Request) bool {
	r := req.HTTP
	return req.Principal.Method == AuthCookie && (r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") == "same-origin")
}

// approvalKey names one call for [store.Approvals]: its caller, page, action
// and input, the input in canonical form (object keys sorted, no spaces),
// so the same input approves the same call however it is written; the
// summary the person read, and the digest of the state it describes
// ([Action.Consent]), so that a call whose page changed since (another
// cart, another recipient) is not the call they approved.
func approvalKey(req *Request, action string, input json.RawMessage, summary, consent string) string {
	h := sha256.New()
	for _, part := range []string{req.Principal.ID, req.Page, action, string(canonicalJSON(input)), summary, consent} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// runAction is step 7: it runs the action, loads the page again as the
// requester is now, and answers with the delta (CLARIFICATIONS 5). When
// the action refused to run because what the person confirmed changed
// ([Request.Consented]), it answers nothing and changed is true.
func (s *Site) runAction(ctx context.Context, a *action, req *Request, before []listed) (res *response, consentChanged bool) {
	// Without effects the delta compares entities; encode them now, as the
	// action may change values the loader shared with it.
	var beforeEntities map[string][]byte
	var err error
	if a.Effects == nil && !a.ReadOnly {
		if beforeEntities, err = encodeEach(req.State.Entities); err != nil {
			return s.failure(err, "state of "+req.route.pattern), false
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
		return nil, true
	}
	if err != nil {
		return fail(err, "action "+a.Name), false
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
	delta := &Delta{OK: true, Output: out, Redirect: req.redirect, Message: req.message}
	header := req.header // nil when the action set none
	if a.ReadOnly && req.principal == nil {
		// It changed nothing, so the page is as it was: no reload, and
		// nothing changed to say.
		return &response{status: http.StatusOK, header: header, delta: delta}, false
	}
	if err := s.loadState(ctx, req); err != nil {
		if CodeOf(err) != NotFound {
			return fail(err, "reload"), false
		}
		// The action removed the page itself (a deleted item): its
		// entities and actions are gone.
		req.State = &State{}
	}
	var room [8]listed
	after := req.route.appendListing(room[:0], ctx, req)
	if delta.Changed, err = changed(a.Effects, beforeEntities, req.State.Entities); err != nil {
		return fail(err, "delta of "+a.Name), false
	}
	for _, k := range a.Effects {
		if _, seen := req.route.entities.Load(k); seen {
			continue
		}
		if _, told := a.unknownEffects.LoadOrStore(k, true); !told {
			s.logger.Error("affordances: Effects names an entity no state of the route has had yet: a mistake, unless it appears later", "route", req.route.pattern,
				"action", a.Name, "effect", k, "fix", "name in Effects only keys of the route's State.Entities")
		}
	}
	delta.ActionsAdded, delta.ActionsRemoved = actionChanges(before, after)
	return &response{status: http.StatusOK, header: header, delta: delta}, false
}

// The refusals of CLARIFICATIONS 10.
var (
	errBadIdempotencyKey = NewError(InvalidInput, "The Idempotency-Key header must be sent once, as 1 to 255 visible ASCII characters.")
	errKeyReused         = &Error{Code: InvalidInput, Message: "This Idempotency-Key was used for another call.", status: http.StatusUnprocessableEntity}
	errStillRunning      = &Error{Code: Unavailable, Message: "A call with this Idempotency-Key is still running; retry.", RetryAfter: time.Second}
)

// IdempotentReplayedHeader marks the replay of a kept answer
// (CLARIFICATIONS 10).
const IdempotentReplayedHeader = "Idempotent-Replayed"

// once runs steps 3 to 7 of a call with an Idempotency-Key at most once per
// caller and page ([idempotencyScope]) and key, and answers a retry of the
// same body with the first answer, byte for byte, with the headers the
// action set but not Retry-After (CLARIFICATIONS 10). Only answers of calls
// whose action ran are kept; a refusal of steps 3 to 6 releases the key.
func (s *Site) once(ctx context.Context, c *call, req *Request) *response {
	scope := idempotencyScope(req.HTTP, req.Principal)
	hash := sha256.Sum256(c.body)
	held, err := s.idem.Begin(ctx, scope, c.key, hash)
	if err != nil {
		// Fail closed: without the store, running the call could run it
		// twice.
		return s.failure(fmt.Errorf("affordances: idempotency store: %w", err), "call")
	}
	switch {
	case held == nil: // claimed: run it below
	case held.BodyHash != hash:
		return s.failure(errKeyReused, "call")
	case held.Delta == nil:
		return s.failure(errStillRunning, "call")
	default:
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
		return &response{status: k.Status, header: h, body: k.Body}
	}

	// The claim must end even if the call is cut short: a client that
	// hangs up is the case the key exists for, and a panic must not leave
	// the key running for ever.
	bg := context.WithoutCancel(ctx)
	finished := false
	defer func() {
		if !finished {
			if err := s.idem.Release(bg, scope, c.key); err != nil {
				s.logger.Error("affordances: idempotency store: release", "err", err)
			}
		}
	}()
	res, ran := s.proceed(ctx, c, req)
	if !ran {
		return res
	}
	kept := s.keep(res)
	finished = true
	if err := s.idem.Finish(bg, scope, c.key, kept); err != nil {
		// The action ran: answer with its delta all the same. The claim
		// stays until the store expires it, so a retry is refused as
		// still running, never run again.
		s.logger.Error("affordances: idempotency store: finish", "err", err)
	}
	return res
}

// idempotencyScope names who calls which page, for [store.Idempotency]:
// the principal's ID, or for an anonymous caller its client network as the
// rate limit counts it, then the page's path. The quoting keeps distinct
// callers and pages apart whatever their IDs hold.
func idempotencyScope(r *http.Request, p Principal) string {
	who := "p:" + strconv.Quote(p.ID)
	if p.Anonymous() {
		who = "a:" + strconv.Quote(clientNetwork(r.RemoteAddr))
	}
	return who + " " + r.URL.Path
}

// keep encodes res as the answer a retry will get: its status, body and
// headers without Retry-After.
func (s *Site) keep(res *response) *store.KeptDelta {
	buf := buffers.Get().(*[]byte)
	*buf = s.encode((*buf)[:0], res)
	res.body = slices.Clone(*buf) // kept beyond this request
	buffers.Put(buf)
	k := &store.KeptDelta{Status: res.status, Header: res.header.Clone(), Body: res.body}
	k.Header.Del("Retry-After")
	return k
}

// Bounds on a call's body beyond its size (CLARIFICATIONS 2): validating
// costs time in the number of values and in the size of numbers, so both
// are bounded before any schema runs.
const (
	maxDepth     = 64     // nesting of arrays and objects
	maxValues    = 10_000 // values of any kind
	maxNumberLen = 64     // characters of one number
	maxIssues    = 20     // issues reported for one input
)

// DecodeCall reads a call's body: a JSON object in valid UTF-8, no name twice in one object, nested at most 64 deep,
// with at most 10,000 values and no number longer than 64 characters or
// beyond a 64-bit float, a non-empty string "action", any "input", and a
// boolean "confirm" when present. Unknown fields are ignored
// (CLARIFICATIONS 5). The error is an invalid_input [*Error], for
// [errors.As].
func DecodeCall(body []byte) (Call, error) {
	var c Call
	if !utf8.Valid(body) {
		// encoding/json would read each bad byte as U+FFFD: another input
		// than the one sent.
		return c, NewError(InvalidInput, "The call is not valid UTF-8 (RFC 8259, section 8.1).")
	}
	// One pass checks the JSON and the bounds before anything decodes or
	// validates it, and finds the members a Call reads.
	var s callScan
	if err := s.scan(body); err != nil {
		return c, err
	}
	if s.tops != 1 || !s.object {
		return c, notCall()
	}
	if a := s.action; len(a) > 0 && a[0] == '"' {
		name, _ := (&callScan{b: a}).str() // scanned already
		c.Action = string(name)
	}
	if c.Action == "" {
		return c, &Error{Code: InvalidInput, Message: "The call names no action.", Issues: []Issue{{Path: "/action", Message: "must be a non-empty string"}}}
	}
	if v := s.confirm; v != nil {
		switch string(v) {
		case "true":
			c.Confirm = true
		case "false":
		default:
			return c, &Error{Code: InvalidInput, Message: "confirm must be true or false.", Issues: []Issue{{Path: "/confirm", Message: "must be a boolean"}}}
		}
	}
	if s.input != nil {
		c.Input = slices.Clone(s.input)
	}
	return c, nil
}

// rateLimit counts the call (seed 000, step 3): per principal, or client
// address for anonymous calls, and route; an action with its own Limit is
// counted apart.
func (s *Site) rateLimit(ctx context.Context, r *http.Request, rt *Route, a *action, p Principal) error {
	who := "p:" + p.ID
	if p.Anonymous() {
		who = "a:" + clientNetwork(r.RemoteAddr)
	}
	key, limit := who+" "+rt.pattern, s.opts.Limit
	if a.Limit != nil {
		key, limit = key+" "+a.Name, *a.Limit
	}
	return s.allow(ctx, key, limit)
}

// seconds says n seconds in words: "1 second", "30 seconds".
func seconds(n int) string {
	if n == 1 {
		return "1 second"
	}
	return strconv.Itoa(n) + " seconds"
}

// clientNetwork returns who an anonymous caller is for the rate limit: its
// IPv4 address, or the /64 of its IPv6 address (one host's usual share, so
// a host cannot mint fresh quota from its own prefix).
func clientNetwork(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if addr = addr.Unmap(); addr.Is6() {
		prefix, _ := addr.Prefix(64)
		return prefix.String()
	}
	return addr.String()
}

// summarize runs the action's Summary.
func (a *action) summarize(ctx context.Context, s *Site, req *Request) (summary string, err error) {
	defer s.recoverTo(&err, "summary of ", a.Name)
	summary, err = a.Summary.fn(ctx, req, req.input)
	if err != nil {
		return "", s.public(err, "summary of "+a.Name)
	}
	return summary, nil
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

// changed computes the delta's changed (CLARIFICATIONS 5): with effects,
// the new value of each effect key (nil when gone); without, every entity
// whose JSON differs from before, gone ones as nil.
func changed(effects []string, before map[string][]byte, after map[string]any) (map[string]any, error) {
	out := map[string]any{}
	if effects != nil {
		for _, k := range effects {
			out[k] = after[k]
		}
		return out, nil
	}
	for k, v := range after {
		now, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("affordances: entity %q: %w", k, err)
		}
		if old, ok := before[k]; !ok || !bytes.Equal(old, now) {
			out[k] = v
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out[k] = nil
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
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
// availability flipped, and the names no longer listed (CLARIFICATIONS 5).
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
