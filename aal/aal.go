package aal

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Version is the AAL version this package reads and writes, the value of
// the "aal" field (docs/protocol.md §44 and decision 7).
const Version = "0.1"

// MediaType is the type of an inline fragment's <script> element.
const MediaType = "application/aal+json"

// ManifestPath is where a site serves its manifest (docs/protocol.md §29).
const ManifestPath = "/.well-known/agent-affordances.json"

// FragmentPrefix starts the path of every fragment; a page's fragment is
// FragmentPrefix + its path + ".json", and "/" maps to "index.json".
const FragmentPrefix = "/.well-known/agent-affordances"

// A Manifest points an agent from a site to the fragment of each route
// (docs/protocol.md decision 7).
type Manifest struct {
	AAL    string          `json:"aal"`
	Site   ManifestSite    `json:"site"`
	Routes []ManifestRoute `json:"routes"`
}

// ManifestSite names the site a manifest describes.
type ManifestSite struct {
	Name   string `json:"name"`
	Origin string `json:"origin"`
}

// A ManifestRoute maps a route pattern ("/products/[slug]") to its fragment
// path ("/.well-known/agent-affordances/products/[slug].json"); an agent
// fills the [param] segments with the concrete page's values.
type ManifestRoute struct {
	Route    string `json:"route"`
	Fragment string `json:"fragment"`
}

// A Fragment describes the affordances of one concrete page, computed from
// that page's state (docs/protocol.md §30 and decision 7).
type Fragment struct {
	AAL         string       `json:"aal"`
	Page        string       `json:"page"`
	Flow        *Flow        `json:"flow,omitempty"`
	Affordances []Affordance `json:"affordances"`
}

// A Flow places a page in a multi-step task: step Step of Of.
type Flow struct {
	ID   string `json:"id"`
	Step int    `json:"step"`
	Of   int    `json:"of"`
}

// UnmarshalJSON reads a flow whose step and of are written as any JSON
// number with a whole value (2, 2.0, 2e0), as JSON Schema's "integer" and
// so [Schema] allow; encoding/json alone reads only 2 into an int.
func (f *Flow) UnmarshalJSON(b []byte) error {
	var w struct {
		ID   string      `json:"id"`
		Step json.Number `json:"step"`
		Of   json.Number `json:"of"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	step, err := wholeNumber("step", w.Step)
	if err != nil {
		return err
	}
	of, err := wholeNumber("of", w.Of)
	if err != nil {
		return err
	}
	*f = Flow{ID: w.ID, Step: step, Of: of}
	return nil
}

func wholeNumber(name string, n json.Number) (int, error) {
	if n == "" {
		return 0, nil
	}
	if i, err := strconv.Atoi(string(n)); err == nil {
		return i, nil
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<53 {
		return 0, fmt.Errorf("aal: flow.%s is %s, not a whole number", name, n)
	}
	return int(x), nil
}

// An Affordance is one thing an agent can do on a page, with what it risks.
type Affordance struct {
	// ID is stable and unique in its fragment: ^[a-z0-9][a-z0-9._-]{0,63}$.
	ID string `json:"id"`
	// Selector finds the element in the page's HTML, 1 to 256 characters.
	Selector string `json:"selector"`
	// Action is what kind of thing it does.
	Action ActionType `json:"action"`
	// Label is what a person sees, 1 to 120 characters. It is untrusted
	// text: show it through [Visible], never as instructions.
	Label string `json:"label"`
	// Destructive says it destroys or commits something.
	Destructive bool `json:"destructive"`
	// Reversible says its effect can be undone.
	Reversible bool `json:"reversible"`
	// Trust classifies what it touches.
	Trust Trust `json:"trust"`
	// Cost is what it charges, when it charges.
	Cost *Cost `json:"cost,omitempty"`
	// Preconditions name what must hold first ("cart.non_empty"), at most 16.
	Preconditions []string `json:"preconditions,omitempty"`
	// SuccessSchema names the fields a success carries and their JSON
	// types, at most 32.
	SuccessSchema map[string]string `json:"success_schema,omitempty"`
}

// A Cost is an amount of money in a currency: ISO 4217 code, amount in
// the currency's major unit (36.00 for $36), 0 to 1e9.
type Cost struct {
	Currency string  `json:"currency"`
	Amount   float64 `json:"amount"`
}

// ActionType is the closed set of what an affordance does (docs/protocol.md decision 7).
type ActionType string

// The action types of AAL 0.1.
const (
	Navigate     ActionType = "navigate"
	Search       ActionType = "search"
	Fill         ActionType = "fill"
	Select       ActionType = "select"
	Toggle       ActionType = "toggle"
	Submit       ActionType = "submit"
	Create       ActionType = "create"
	Update       ActionType = "update"
	Delete       ActionType = "delete"
	Purchase     ActionType = "purchase"
	Download     ActionType = "download"
	Authenticate ActionType = "authenticate"
)

// ActionTypes returns every [ActionType], in the order of docs/protocol.md decision 7,
// in a new slice.
func ActionTypes() []ActionType {
	return []ActionType{Navigate, Search, Fill, Select, Toggle, Submit, Create, Update, Delete, Purchase, Download, Authenticate}
}

// Trust is the closed set of what an affordance touches (docs/protocol.md decision 7).
type Trust string

// The trust classes of AAL 0.1.
const (
	TrustSafe      Trust = "safe"      // no lasting effect
	TrustUser      Trust = "user"      // the requester's own ordinary data
	TrustPersonal  Trust = "personal"  // contact, address, credentials
	TrustFinancial Trust = "financial" // moves money or commits to pay
	TrustAdmin     Trust = "admin"     // acts on other users or the site
)

// Trusts returns every [Trust], in the order of docs/protocol.md decision 7, in a new
// slice.
func Trusts() []Trust {
	return []Trust{TrustSafe, TrustUser, TrustPersonal, TrustFinancial, TrustAdmin}
}

// Meta is what a publisher declares beside an Affordances action to publish it
// as an AAL affordance (docs/protocol.md decision 9). The zero value publishes a
// "submit" affordance of trust "user" ("safe" for read-only actions) with
// the default id, label and selector.
type Meta struct {
	// Action is the affordance's type. Empty: submit.
	Action ActionType
	// Trust is what it touches. Empty: safe for read-only actions, user
	// otherwise.
	Trust Trust
	// Label is what a person sees. Empty: the action's name in words
	// ("addToCart" is "Add to cart").
	Label string
	// Selector finds the element. Empty: [data-aal="<id>"].
	Selector    string
	Destructive bool
	Reversible  bool
	// Cost computes the cost from the page's entities, as loaded for this
	// requester; nil or a nil result: no cost.
	Cost func(entities map[string]any) *Cost
	// Preconditions name what must hold first.
	Preconditions []string
	// SuccessSchema names the fields of a success. Nil: the top-level
	// properties of the action's output schema and their types.
	SuccessSchema map[string]string
}

// ID returns the affordance id of an Affordances action's name: its kebab case,
// "addToCart" is "add-to-cart", and a run of capitals is one word,
// "placeOrderURL" is "place-order-url" (docs/protocol.md decision 9).
func ID(action string) string {
	rs := []rune(action)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			lowerBefore := i > 0 && !unicode.IsUpper(rs[i-1]) && rs[i-1] != '_'
			wordAfter := i > 0 && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if lowerBefore || wordAfter {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Selector returns the default selector of an action's affordance,
// [data-aal="add-to-cart"] for addToCart.
func Selector(action string) string { return `[data-aal="` + ID(action) + `"]` }

// FragmentPath returns the path of a page's fragment: "/" is
// /.well-known/agent-affordances/index.json, "/products/canvas-tote" is
// /.well-known/agent-affordances/products/canvas-tote.json, and a page
// ending in "/" is its index, as "/" is: "/me/posts/" is
// /.well-known/agent-affordances/me/posts/index.json. Route patterns map
// the same way. A page with a query asks for its fragment with the same
// query ("/?q=tee" is index.json?q=tee): the state may depend on it.
func FragmentPath(page string) string {
	if strings.HasSuffix(page, "/") {
		page += "index"
	}
	return FragmentPrefix + page + ".json"
}

// FragmentFor returns the fragment path of a concrete page from its
// manifest route: the [param] segments of fragment, the route's pattern
// mapped as the manifest maps it, filled with the page's values
// (docs/protocol.md decision 7). FragmentFor("/.well-known/agent-affordances/products/[slug].json",
// "/products/[slug]", "/products/canvas-tote") is
// "/.well-known/agent-affordances/products/canvas-tote.json". A catch-all
// last segment [...name] takes one or more non-empty segments of the page,
// each path-escaped and joined by "/": FragmentFor("/.well-known/agent-affordances/files/[...path].json",
// "/files/[...path]", "/files/a/b") is "/.well-known/agent-affordances/files/a/b.json".
// A page that does not have the route's shape leaves fragment as it is; a
// query on the page is not part of the path.
func FragmentFor(fragment, route, page string) string {
	page, _, _ = strings.Cut(page, "?")
	rs, ps := strings.Split(route, "/"), strings.Split(page, "/")
	last := rs[len(rs)-1]
	catchAll := len(last) > 5 && strings.HasPrefix(last, "[...") && last[len(last)-1] == ']'
	if catchAll {
		if len(ps) < len(rs) || slices.Contains(ps[len(rs)-1:], "") {
			return fragment
		}
		rest := make([]string, 0, len(ps)-len(rs)+1)
		for _, seg := range ps[len(rs)-1:] {
			rest = append(rest, url.PathEscape(seg))
		}
		fragment = strings.Replace(fragment, last, strings.Join(rest, "/"), 1)
		rs, ps = rs[:len(rs)-1], ps[:len(rs)-1]
	}
	if len(rs) != len(ps) {
		return fragment
	}
	for i, seg := range rs {
		if len(seg) > 2 && seg[0] == '[' && seg[len(seg)-1] == ']' {
			fragment = strings.Replace(fragment, seg, url.PathEscape(ps[i]), 1)
		}
	}
	return fragment
}

// InputAttribute is the attribute that tells apart the elements one
// selector matches when its action acts on one of several items (a delete
// button on each row): a JSON object of the input fields that pick the
// element's item, data-aal-input='{"task":"t-17"}' (docs/protocol.md decision 11).
const InputAttribute = "data-aal-input"

// ParseInput reads the value of a data-aal-input attribute, which must be
// a JSON object; otherwise the error says why it is not.
func ParseInput(attr string) (map[string]any, error) {
	m, err := parseInput(attr)
	if err != nil {
		return nil, fmt.Errorf("aal: %w", err)
	}
	return m, nil
}

func parseInput(attr string) (map[string]any, error) {
	var v any
	if err := json.Unmarshal([]byte(attr), &v); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %w", InputAttribute, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a JSON object: it is %s", InputAttribute, Visible(attr))
	}
	return m, nil
}

// Picks reports whether input picks the item whose data-aal-input is
// item: every field of item has the same value in input, compared as
// parsed JSON (17 is 17.0, and the order of an object's fields does not
// matter). input may carry more fields; an empty item is picked by every
// input.
func Picks(item, input map[string]any) bool {
	for k, v := range item {
		w, ok := input[k]
		if !ok {
			return false
		}
		a, errA := canonicalJSON(v)
		b, errB := canonicalJSON(w)
		if errA != nil || errB != nil || a != b {
			return false
		}
	}
	return true
}

// canonicalJSON encodes v as JSON after a round trip through JSON, so that
// equal JSON values, whatever their Go types, encode alike.
func canonicalJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return "", err
	}
	b, err = json.Marshal(x)
	return string(b), err
}

// CheckMatches checks the elements one affordance's selector matches on a
// page against docs/protocol.md decision 11. inputs holds the data-aal-input
// attribute of each matched element, in document order, nil for an
// element without one; available says whether the affordance's action is
// available on the page. It returns one sentence for each problem
// ("element 2 of 3 lacks data-aal-input"), or nil when an unavailable
// action matches nothing, an available one matches one element, or
// several elements each carry a JSON object as data-aal-input and no two
// carry the same one.
func CheckMatches(available bool, inputs []*string) []string {
	n := len(inputs)
	switch {
	case n == 0 && available:
		return []string{"no element matches while the action is available"}
	case n < 2:
		return nil
	}
	var out []string
	first := map[string]int{} // canonical input -> the element that carried it first
	for i, attr := range inputs {
		if attr == nil {
			out = append(out, fmt.Sprintf("element %d of %d lacks %s", i+1, n, InputAttribute))
			continue
		}
		m, err := parseInput(*attr)
		if err != nil {
			out = append(out, fmt.Sprintf("element %d of %d: %v", i+1, n, err))
			continue
		}
		c, _ := canonicalJSON(m) // parsed JSON always encodes
		if j, ok := first[c]; ok {
			out = append(out, fmt.Sprintf("elements %d and %d carry the same input %s", j+1, i+1, Visible(c)))
			continue
		}
		first[c] = i
	}
	return out
}
