// Package perf is the bench shop of make bench (internal/benchshop)
// written without the library, as a Go developer would who did not use
// it: by hand on net/http and encoding/json ([Hand]), the same with the
// action descriptors encoded once at start-up ([Tuned]), and in huma v2
// ([Huma]). Each runs the shop's own code (its Authenticate, its page's
// State loader, the work of its actions) and answers the benchmarks'
// requests with the library's bytes; its benchmarks measure the library
// against each (docs/performance.md).
//
// What they do of the protocol: a graph of the page for a request that
// accepts the media type, else the shop's HTML page; a call's
// authentication, the origin rule for a cookie call, the action's
// exposure and guard, its input decoded and bounded, and its delta (the
// effects' new values, the output, the actions whose availability
// flipped, the message); a rate limit per requester and Idempotency-Key
// replays (see calls). What they skip, which the library does: ETags and
// conditional requests, holding a call's Idempotency-Key while it runs,
// the body's bounds beyond its size (depth, duplicate keys, unknown members of
// the call or input), lengths counted in characters (the hand-written
// versions count bytes), the site index, OPTIONS and other methods, error
// bodies in the protocol's vocabulary beyond a code and a message (huma's
// are its own), and any logging.
package perf

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/benchshop"
)

// mediaType is the protocol's media type.
const mediaType = "application/vnd.affordances+json"

// An action is one of the page's actions as the site describes it, its
// schemas written out.
type action struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Input       json.RawMessage `json:"input"`
	Output      json.RawMessage `json:"output"`
	Expose      string          `json:"expose"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
	GuardText   string          `json:"guard,omitempty"`
	Effects     []string        `json:"effects,omitzero"`
	// guard says whether the action can run on the page's state, and if
	// not why; nil: always.
	guard func(context.Context, *affordances.Request) (bool, string)
}

// A descriptor is an action as one requester sees it in a graph.
type descriptor struct {
	*action
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// actions are the page's actions, in the order of the graph.
var actions = []*action{
	{
		Name: "search", Description: "Search products by name", Expose: "public", ReadOnly: true,
		Input:  json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":1,"maxLength":100},"category":{"type":"string","enum":["clothes","bags","home"]}},"required":["q"],"additionalProperties":false}`),
		Output: json.RawMessage(`{"type":"object","properties":{"results":{"type":["null","array"],"items":{"type":"object","properties":{"sku":{"type":"string"},"name":{"type":"string"},"price":{"type":"integer","description":"in cents"},"inStock":{"type":"boolean"}},"required":["sku","name","price","inStock"],"additionalProperties":false}}},"required":["results"],"additionalProperties":false}`),
	},
	{
		Name: "addToCart", Description: "Put a product in your cart, or set how many", Expose: "session", Effects: []string{"cart"},
		Input:  json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string","description":"the product's sku","minLength":1,"maxLength":40},"quantity":{"type":"integer","minimum":1,"maximum":99},"note":{"type":"string","description":"for the person who packs it","maxLength":200}},"required":["sku","quantity"],"additionalProperties":false}`),
		Output: json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string"},"quantity":{"type":"integer"}},"required":["sku","quantity"],"additionalProperties":false}`),
	},
	{
		Name: "removeFromCart", Description: "Take a product out of your cart", Expose: "session", Effects: []string{"cart"},
		GuardText: "the cart has items", guard: benchshop.HasLines,
		Input:  json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string","minLength":1,"maxLength":40}},"required":["sku"],"additionalProperties":false}`),
		Output: json.RawMessage(`{"type":"object","additionalProperties":false}`),
	},
	{
		Name: "emptyCart", Description: "Take everything out of your cart", Expose: "session", Effects: []string{"cart"},
		GuardText: "the cart has items", guard: benchshop.HasLines,
		Input:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Output: json.RawMessage(`{"type":"object","additionalProperties":false}`),
	},
	{
		Name: "signOut", Description: "End your session", Expose: "session", Effects: []string{},
		Input:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Output: json.RawMessage(`{"type":"object","additionalProperties":false}`),
	},
}

// signIn is the reason a session action is unavailable to an anonymous
// requester.
const signIn = "Sign in to do this."

// available says whether req's requester can call a on req's state, and
// if not why.
func (a *action) available(ctx context.Context, req *affordances.Request) (bool, string) {
	if a.Expose == "session" && req.Principal.Anonymous() {
		return false, signIn
	}
	if a.guard != nil {
		if ok, why := a.guard(ctx, req); !ok {
			return false, why
		}
	}
	return true, ""
}

// A graph is the page as one requester sees it.
type graph struct {
	V        string                `json:"v"`
	Page     string                `json:"page"`
	Route    string                `json:"route"`
	Entities map[string]any        `json:"entities"`
	Actions  []descriptor          `json:"actions"`
	Nav      []affordances.NavLink `json:"nav"`
}

// A delta is the answer to a call.
type delta struct {
	OK           bool           `json:"ok"`
	Changed      map[string]any `json:"changed,omitempty"`
	Output       any            `json:"output,omitempty"`
	ActionsAdded []descriptor   `json:"actionsAdded,omitempty"`
	Message      string         `json:"message,omitempty"`
	Error        *callError     `json:"error,omitempty"`
}

// A callError is why a call did nothing, with its HTTP status.
type callError struct {
	status  int
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *callError) Error() string { return e.Message }

// A call is the body of a POST.
type call struct {
	Action string          `json:"action"`
	Input  json.RawMessage `json:"input,omitempty"`
}

// site is the shop's page without the library: the graph and the call,
// each implementation encoding and decoding them its own way.
type site struct {
	shop *benchshop.Shop
}

// load runs the shop's Authenticate and State loader for r.
func (s *site) load(r *http.Request) (*affordances.Request, error) {
	p, err := s.shop.Authenticate(r)
	if err != nil {
		return nil, &callError{http.StatusUnauthorized, "unauthenticated", "The credentials are not valid."}
	}
	req := &affordances.Request{HTTP: r, Principal: p, Page: "/"}
	if req.State, err = s.shop.State(r.Context(), req); err != nil {
		return nil, err
	}
	return req, nil
}

// graph returns the page for req, loaded.
func (s *site) graph(req *affordances.Request) *graph {
	g := &graph{V: "0", Page: "/", Route: "/", Entities: req.State.Entities, Nav: req.State.Nav, Actions: make([]descriptor, len(actions))}
	for i, a := range actions {
		ok, why := a.available(req.HTTP.Context(), req)
		g.Actions[i] = descriptor{action: a, Available: ok, Reason: why}
	}
	return g
}

// originRule refuses a cookie call (a Cookie header and no Authorization)
// from another origin than the site's.
func originRule(r *http.Request) error {
	if r.Header.Get("Authorization") == "" && r.Header.Get("Cookie") != "" && r.Header.Get("Origin") != benchshop.Origin {
		return &callError{http.StatusForbidden, "unauthorized", "A cookie call needs this site's Origin header."}
	}
	return nil
}

// find returns the action name, if req's requester may call it now.
func find(req *affordances.Request, name string) (*action, error) {
	for _, a := range actions {
		if a.Name != name {
			continue
		}
		if ok, why := a.available(req.HTTP.Context(), req); !ok {
			if why == signIn {
				return nil, &callError{http.StatusUnauthorized, "unauthenticated", why}
			}
			return nil, &callError{http.StatusConflict, "guard_failed", why}
		}
		return a, nil
	}
	return nil, &callError{http.StatusNotFound, "unknown_action", "No action " + name + " on this page."}
}

// invalid is the refusal of an input out of its schema.
func invalid(msg string) error {
	return &callError{http.StatusBadRequest, "invalid_input", msg}
}

// checkAdd applies addToCart's bounds (lengths in bytes).
func checkAdd(in benchshop.AddInput) error {
	if len(in.SKU) < 1 || len(in.SKU) > 40 || in.Quantity < 1 || in.Quantity > 99 || len(in.Note) > 200 {
		return invalid("sku: 1 to 40 long; quantity: 1 to 99; note: at most 200 long.")
	}
	return nil
}

// checkSearch applies search's bounds (lengths in bytes).
func checkSearch(in benchshop.SearchInput) error {
	switch {
	case len(in.Q) < 1 || len(in.Q) > 100:
		return invalid("q: 1 to 100 long.")
	case in.Category != "" && in.Category != "clothes" && in.Category != "bags" && in.Category != "home":
		return invalid("category: clothes, bags or home.")
	}
	return nil
}

// checkRemove applies removeFromCart's bounds (lengths in bytes).
func checkRemove(in benchshop.RemoveInput) error {
	if len(in.SKU) < 1 || len(in.SKU) > 40 {
		return invalid("sku: 1 to 40 long.")
	}
	return nil
}

// run runs a on req with its input, decoded (and bounded) by decode, and
// returns the delta: the effects' new values from the state loaded again,
// the output, the actions whose availability flipped, the message.
func (s *site) run(req *affordances.Request, a *action, decode func(v any) error) (*delta, error) {
	d := &delta{OK: true}
	id := req.Principal.ID
	before := make([]bool, len(actions))
	for i, b := range actions {
		before[i], _ = b.available(req.HTTP.Context(), req)
	}
	switch a.Name {
	case "search":
		var in benchshop.SearchInput
		if err := decode(&in); err != nil {
			return nil, err
		}
		d.Output = benchshop.Find(in.Q)
		return d, nil // read-only: nothing changed
	case "addToCart":
		var in benchshop.AddInput
		if err := decode(&in); err != nil {
			return nil, err
		}
		d.Output, d.Message = s.shop.Add(id, in)
	case "removeFromCart":
		var in benchshop.RemoveInput
		if err := decode(&in); err != nil {
			return nil, err
		}
		s.shop.Remove(id, in.SKU)
	case "emptyCart":
		s.shop.Empty(id)
	case "signOut":
		req.Principal = affordances.Principal{}
	}
	after, err := s.shop.State(req.HTTP.Context(), req)
	if err != nil {
		return nil, err
	}
	req.State = after
	d.Changed = make(map[string]any, len(a.Effects))
	for _, k := range a.Effects {
		d.Changed[k] = after.Entities[k]
	}
	for i, b := range actions {
		if ok, why := b.available(req.HTTP.Context(), req); ok != before[i] {
			d.ActionsAdded = append(d.ActionsAdded, descriptor{action: b, Available: ok, Reason: why})
		}
	}
	return d, nil
}

// header sets the headers of an answer in the media type.
func header(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", mediaType)
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
}

// wantsGraph says whether r asks for the graph rather than the HTML page.
func wantsGraph(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), mediaType)
}
