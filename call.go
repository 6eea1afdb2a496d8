package affordances

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"reflect"
	"strconv"
)

// serveCall runs a call through the seven steps of seed 000 ("Call"), each
// stopping at the first failure, and writes the delta.
func (s *Site) serveCall(w http.ResponseWriter, r *http.Request) {
	delta, header := s.call(r.Context(), w, r)
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if delta.Error != nil {
		s.writeError(w, r, delta.Error)
		return
	}
	s.writeDocument(w, r, http.StatusOK, delta)
}

func (s *Site) call(ctx context.Context, w http.ResponseWriter, r *http.Request) (*Delta, http.Header) {
	fail := func(err error) (*Delta, http.Header) { return &Delta{Error: s.public(err, "call")}, nil }

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

	// Step 3: the rate limit.
	if err := s.rateLimit(ctx, r, rt, a, p); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == RateLimited {
			return &Delta{Error: e}, http.Header{"Retry-After": {strconv.Itoa(e.retryAfter)}}
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

	// Step 5: the guard.
	for _, l := range before {
		if l.a == a && !l.available {
			return fail(NewError(Unavailable, l.reason))
		}
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
		return &Delta{Error: s.public(err, "action "+a.Name)}, req.header
	}
	if req.principal != nil {
		req.Principal = *req.principal
	}
	delta := &Delta{OK: true, Output: out, Redirect: req.redirect, Message: req.message}
	if err := s.loadState(ctx, req); err != nil {
		if CodeOf(err) != NotFound {
			return &Delta{Error: s.public(err, "reload")}, req.header
		}
		// The action removed the page itself (a deleted item): its
		// entities and actions are gone.
		req.State = &State{}
	}
	after := rt.listing(ctx, req)
	if delta.Changed, err = changed(a.Effects, beforeEntities, req.State.Entities); err != nil {
		return &Delta{Error: s.public(err, "delta of "+a.Name)}, req.header
	}
	delta.ActionsAdded, delta.ActionsRemoved = actionChanges(before, after)
	return delta, req.header
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
