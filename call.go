package affordances

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
)

// serveCall runs a call through the seven steps of seed 000 ("Call"), each
// stopping at the first failure, and writes the delta.
func (s *Site) serveCall(w http.ResponseWriter, r *http.Request) {
	delta, header, kept := s.call(r.Context(), w, r)
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if kept != nil {
		if kept.Status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", "Bearer") // as writeError does
		}
		s.writeBody(w, r, kept.Status, kept.Body)
		return
	}
	if delta.Error != nil {
		s.writeError(w, r, delta.Error)
		return
	}
	s.writeDocument(w, r, http.StatusOK, delta)
}

// call runs the seven steps. It returns either the delta and the headers
// to answer with or, for a call with an Idempotency-Key that ran or was
// run before, the kept answer (whose status and body are the answer, and
// the headers to send with it).
func (s *Site) call(ctx context.Context, w http.ResponseWriter, r *http.Request) (*Delta, http.Header, *KeptDelta) {
	fail := func(err error) (*Delta, http.Header, *KeptDelta) {
		return &Delta{Error: s.public(err, "call")}, nil, nil
	}

	// A bad Idempotency-Key is refused before anything else is read or
	// runs (CLARIFICATIONS 10).
	keys := r.Header[IdempotencyHeader]
	if keys != nil && (len(keys) != 1 || !validIdempotencyKey(keys[0])) {
		return fail(errBadIdempotencyKey)
	}

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail(tooLarge(fmt.Sprintf("The call is larger than %d bytes.", s.opts.MaxBodyBytes)))
		}
		return fail(NewError(InvalidInput, "The call's body could not be read."))
	}
	c, cerr := DecodeCall(body)
	if cerr != nil {
		return fail(cerr)
	}

	// Step 1: resolve the action by name on the page's route.
	rt, params := s.lookup(r.URL.Path)
	if rt == nil {
		return fail(NewError(NotFound, "This page has no Affordances graph."))
	}
	a := rt.byName[c.Action]
	if a == nil || a.Expose == "" {
		return fail(NewError(NotFound, fmt.Sprintf("This page has no action %q.", c.Action)))
	}

	// Step 2: the origin rule, then expose against the caller.
	if err := s.CheckOrigin(r); err != nil {
		return fail(err)
	}
	p, err := s.authenticate(r)
	if err != nil {
		return fail(err)
	}
	req := &Request{HTTP: r, Principal: p, Page: r.URL.Path, route: rt, params: params}
	if a.Expose != ExposePublic && p.Anonymous() {
		return fail(NewError(Unauthorized, s.opts.SignInReason))
	}
	if !a.listedFor(req) {
		if p.Anonymous() {
			return fail(NewError(Unauthorized, s.opts.SignInReason))
		}
		return fail(forbidden("You may not do this."))
	}

	if keys != nil {
		return s.callOnce(ctx, keys[0], body, c, a, req)
	}
	delta, header, _ := s.proceed(ctx, c, a, req)
	return delta, header, nil
}

// proceed runs steps 3 to 7 of a call that passed steps 1 and 2, and says
// whether it reached step 7: whether the action ran.
func (s *Site) proceed(ctx context.Context, c Call, a *action, req *Request) (_ *Delta, _ http.Header, ran bool) {
	fail := func(err error) (*Delta, http.Header, bool) { return &Delta{Error: s.public(err, "call")}, nil, false }
	r, rt, p := req.HTTP, req.route, req.Principal

	// Step 3: the rate limit.
	if err := s.rateLimit(ctx, r, rt, a, p); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == RateLimited {
			return &Delta{Error: e}, http.Header{"Retry-After": {strconv.Itoa(e.retryAfter)}}, false
		}
		return fail(err)
	}

	// Step 4: validate the input.
	input := c.Input
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	if issues, err := a.input.Validate(input); err != nil || len(issues) > 0 {
		e := NewError(InvalidInput, "The input does not match the schema.")
		for _, is := range issues[:min(len(issues), maxIssues)] {
			e.Issues = append(e.Issues, Issue{Path: is.Path, Message: is.Message})
		}
		if len(issues) > maxIssues {
			e.Message = fmt.Sprintf("The input does not match the schema: %d problems, the first %d listed.", len(issues), maxIssues)
		}
		return fail(e)
	}
	var err error
	if req.input, err = a.decode(input); err != nil {
		// The schema let through what the Go type cannot hold (a number
		// too large for an int): say so without naming Go types.
		return fail(NewError(InvalidInput, "The input does not fit the action."))
	}

	// The page as the requester sees it before the action.
	if err := s.loadState(ctx, req); err != nil {
		return fail(err)
	}
	before := rt.listing(ctx, req)

	// Step 5: the guard. An action no longer listed once the state is
	// loaded (Visible changed its mind) is refused, never run unguarded.
	i := slices.IndexFunc(before, func(l listed) bool { return l.a == a })
	switch {
	case i < 0:
		return fail(forbidden("You may not do this."))
	case !before[i].available:
		return fail(NewError(Unavailable, before[i].reason))
	}

	// Step 6: confirm actions need confirm: true; nothing runs without it.
	if a.Expose == ExposeConfirm && !c.Confirm {
		summary, err := a.summarize(ctx, s, req)
		if err != nil {
			return fail(err)
		}
		return fail(NewError(ConfirmRequired, summary))
	}

	// Step 7: run, reload, answer with the delta.
	// Without effects the delta compares entities; encode them now, as the
	// action may change values the loader shared with it.
	var beforeEntities map[string][]byte
	if a.Effects == nil {
		if beforeEntities, err = encodeEach(req.State.Entities); err != nil {
			return fail(err)
		}
	}
	out, err := s.run(ctx, a, req)
	if err != nil {
		return &Delta{Error: s.public(err, "action "+a.Name)}, req.header, true
	}
	if req.principal != nil {
		req.Principal = *req.principal
	}
	delta := &Delta{OK: true, Output: out, Redirect: req.redirect, Message: req.message}
	if err := s.loadState(ctx, req); err != nil {
		if CodeOf(err) != NotFound {
			return &Delta{Error: s.public(err, "reload")}, req.header, true
		}
		// The action removed the page itself (a deleted item): its
		// entities and actions are gone.
		req.State = &State{}
	}
	after := rt.listing(ctx, req)
	if delta.Changed, err = changed(a.Effects, beforeEntities, req.State.Entities); err != nil {
		return &Delta{Error: s.public(err, "delta of "+a.Name)}, req.header, true
	}
	delta.ActionsAdded, delta.ActionsRemoved = actionChanges(before, after)
	return delta, req.header, true
}

// The refusals of CLARIFICATIONS 10.
var (
	errBadIdempotencyKey = NewError(InvalidInput, "The Idempotency-Key header must be sent once, as 1 to 255 visible ASCII characters.")
	errKeyReused         = NewError(InvalidInput, "This Idempotency-Key was used for another call.")
	errStillRunning      = NewError(Unavailable, "A call with this Idempotency-Key is still running; retry.")
)

// callOnce runs steps 3 to 7 of a call with an Idempotency-Key at most once
// for its caller, page and key, and answers a retry with the same body with
// the first answer, byte for byte (CLARIFICATIONS 10).
//
// It sits between step 2 and step 3. Not earlier: the key is scoped by the
// principal, known only once step 2 has authenticated the caller, and the
// origin rule and expose must hold for a replay as for any call, so a
// cross-site cookie call or a caller who lost access gets nothing kept
// (CLARIFICATIONS 4). Not later: a replay is the answer to a call that
// already ran and was already counted by the rate limit, once, when it
// passed step 2 (CLARIFICATIONS 5); counting it again would refuse a
// client retrying a lost answer with rate_limited where CLARIFICATIONS 10
// promises the first delta. The refusals answered here (a key reused for
// another body, a key still running) run nothing and are not counted
// either.
//
// Only answers of calls that reached step 7 are kept: the action ran, well
// or not (a domain failure, an internal error), and running it again is
// what the key exists to prevent. A refusal of steps 3 to 6 ran nothing
// and may not hold later (the rate limit frees, the guard turns true, the
// client adds confirm: true), so its claim is released and a retry with
// the same key is judged afresh.
//
// The kept answer carries the headers the action set, Set-Cookie included:
// a retry exists because the first answer was lost, and a sign-in whose
// cookie is lost with it would leave the client signed out of a session
// the server made. The replay goes only to the same principal (or, for an
// anonymous caller, the same client network) on the same page with the
// same key and body, so it hands the cookie to no one the first answer was
// not meant for, as long as keys are unguessable. Retry-After is not kept:
// a wait that held then does not hold at replay time.
func (s *Site) callOnce(ctx context.Context, key string, body []byte, c Call, a *action, req *Request) (*Delta, http.Header, *KeptDelta) {
	scope := idempotencyScope(req.HTTP, req.Principal)
	hash := sha256.Sum256(body)
	held, err := s.idem.Begin(ctx, scope, key, hash)
	if err != nil {
		// Fail closed: without the store, running the call could run it
		// twice.
		return &Delta{Error: s.public(fmt.Errorf("affordances: idempotency store: %w", err), "call")}, nil, nil
	}
	switch {
	case held == nil: // claimed: run it below
	case held.BodyHash != hash:
		return &Delta{Error: errKeyReused}, nil, nil
	case held.Delta == nil:
		return &Delta{Error: errStillRunning}, http.Header{"Retry-After": {"1"}}, nil
	default:
		return nil, held.Delta.Header, held.Delta
	}

	// The claim must end even if the call is cut short: a client that
	// hangs up is the case the key exists for, and a panic must not leave
	// the key running for ever.
	bg := context.WithoutCancel(ctx)
	finished := false
	defer func() {
		if !finished {
			if err := s.idem.Release(bg, scope, key); err != nil {
				s.logger.Error("affordances: idempotency store: release", "err", err)
			}
		}
	}()
	delta, header, ran := s.proceed(ctx, c, a, req)
	if !ran {
		return delta, header, nil
	}
	kept := s.keep(delta, header)
	finished = true
	if err := s.idem.Finish(bg, scope, key, kept); err != nil {
		// The action ran: answer with its delta all the same. The claim
		// stays until the store expires it, so a retry is refused as
		// still running, never run again.
		s.logger.Error("affordances: idempotency store: finish", "err", err)
	}
	return nil, header, kept
}

// idempotencyScope names who calls which page, for [IdempotencyStore]:
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

// keep encodes a delta as the answer a retry will get: the status and
// body writeError or writeDocument would write, and header without
// Retry-After.
func (s *Site) keep(delta *Delta, header http.Header) *KeptDelta {
	k := &KeptDelta{Status: http.StatusOK, Header: make(http.Header, len(header))}
	for name, vs := range header {
		if http.CanonicalHeaderKey(name) != "Retry-After" {
			k.Header[name] = slices.Clone(vs)
		}
	}
	if delta.Error != nil {
		k.Status = delta.Error.HTTPStatus()
	}
	body, err := json.Marshal(delta)
	if err != nil {
		s.logger.Error("affordances: encoding a document", "err", err)
		k.Status = http.StatusInternalServerError
		body, _ = json.Marshal(Delta{Error: internalError})
	}
	k.Body = body
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

// DecodeCall reads a call's body: a JSON object, nested at most 64 deep,
// with at most 10,000 values and no number longer than 64 characters or
// beyond a 64-bit float, a non-empty string "action", any "input", and a
// boolean "confirm" when present. Unknown fields are ignored
// (CLARIFICATIONS 5). The error is an invalid_input [*Error].
func DecodeCall(body []byte) (Call, *Error) {
	var c Call
	if err := scan(body); err != nil {
		return c, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return c, NewError(InvalidInput, "The body is not a Call: a JSON object with an \"action\".")
	}
	if err := json.Unmarshal(raw["action"], &c.Action); err != nil || c.Action == "" {
		return c, &Error{Code: InvalidInput, Message: "The call names no action.", Issues: []Issue{{Path: "/action", Message: "must be a non-empty string"}}}
	}
	if v, ok := raw["confirm"]; ok {
		if err := json.Unmarshal(v, &c.Confirm); err != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return c, &Error{Code: InvalidInput, Message: "confirm must be true or false.", Issues: []Issue{{Path: "/confirm", Message: "must be a boolean"}}}
		}
	}
	c.Input = raw["input"]
	return c, nil
}

// scan walks the body's tokens once and refuses it, before anything decodes
// or validates it, when it is not JSON or breaks a bound.
func scan(body []byte) *Error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	depth, values := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return NewError(InvalidInput, "The body is not a Call: a JSON object with an \"action\".")
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				if depth++; depth > maxDepth {
					return NewError(InvalidInput, fmt.Sprintf("The call is nested deeper than %d levels.", maxDepth))
				}
				values++
			} else {
				depth--
			}
			continue
		case json.Number:
			if _, err := strconv.ParseFloat(string(t), 64); len(t) > maxNumberLen || err != nil {
				return NewError(InvalidInput, fmt.Sprintf("The call holds a number that does not fit a 64-bit float in %d characters.", maxNumberLen))
			}
		}
		if values++; values > maxValues {
			return NewError(InvalidInput, fmt.Sprintf("The call holds more than %d values.", maxValues))
		}
	}
	return nil
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
	ok, wait, err := s.limiter.Allow(ctx, key, limit)
	if err != nil {
		return fmt.Errorf("affordances: rate limiter: %w", err)
	}
	if !ok {
		secs := max(int(math.Ceil(wait.Seconds())), 1)
		return &Error{Code: RateLimited, Message: fmt.Sprintf("Too many calls. Try again in %d seconds.", secs), retryAfter: secs}
	}
	return nil
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
	defer s.recoverTo(&err, "summary of "+a.Name)
	summary, err = a.Summary(ctx, req)
	if err != nil {
		return "", s.public(err, "summary of "+a.Name)
	}
	return summary, nil
}

// run runs the action; a panic becomes an internal error and the server
// keeps serving.
func (s *Site) run(ctx context.Context, a *action, req *Request) (out any, err error) {
	defer s.recoverTo(&err, "action "+a.Name)
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
func actionChanges(before, after []listed) (added []ActionDescriptor, removed []string) {
	was := make(map[*action]bool, len(before))
	for _, l := range before {
		was[l.a] = l.available
	}
	now := make(map[*action]bool, len(after))
	for _, l := range after {
		now[l.a] = true
		if avail, ok := was[l.a]; !ok || avail != l.available {
			added = append(added, l.descriptor())
		}
	}
	for _, l := range before {
		if !now[l.a] {
			removed = append(removed, l.a.Name)
		}
	}
	return added, removed
}
