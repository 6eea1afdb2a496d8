package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// A target is an action on a concrete page, and the input the suite sends
// it.
type target struct {
	page   *page
	action affordances.ActionDescriptor
	input  any
	from   string // where the input came from, for the evidence
}

// find returns the first action of the discovered pages that ok accepts,
// without an input.
func (s *suite) find(ok func(*page, affordances.ActionDescriptor) bool) *target {
	for _, p := range s.each() {
		for _, a := range p.graph.Actions {
			if ok(p, a) {
				return &target{page: p, action: a}
			}
		}
	}
	return nil
}

// findCall returns the first action of the discovered pages that ok
// accepts and whose input the suite can build, with that input.
func (s *suite) findCall(ok func(*page, affordances.ActionDescriptor) bool) *target {
	for _, p := range s.each() {
		for _, a := range p.graph.Actions {
			if !ok(p, a) {
				continue
			}
			if in, from, built := s.inputFor(p, p.graph, a); built {
				return &target{page: p, action: a, input: in, from: from}
			}
		}
	}
	return nil
}

// invalidInput returns an input the action's schema must refuse: a string
// where it wants an object.
func invalidInput(schema json.RawMessage) (any, bool) {
	var m map[string]any
	if json.Unmarshal(schema, &m) != nil {
		return nil, false
	}
	if t, _ := m["type"].(string); t == "object" {
		return "conformance: not an object", true
	}
	return nil, false
}

// inputFor builds an input of action a, listed in the graph g of page p,
// that its schema accepts, from what the page offers an agent, as a
// person's agent would: the whole of the schema's first example, or, for
// each field, the first of
//
//  1. the field's schema examples;
//  2. the data-aal-input of an element of the page the action's
//     affordance selects (docs/protocol.md decision 11), the fields that
//     pick an item;
//  3. the field's const, enum or default;
//  4. a value of the page's entities or nav whose key matches the field's
//     name (a key post, postId, posts[0].id; a link /posts/p-42);
//  5. the least value the schema allows, made up, which names no item (a
//     site rightly answers not_found).
//
// from says where each value came from. ok is false when the suite cannot
// build one.
func (s *suite) inputFor(p *page, g *affordances.Graph, a affordances.ActionDescriptor) (in any, from string, ok bool) {
	if len(a.Input) == 0 {
		return map[string]any{}, "", true
	}
	var m map[string]any
	if json.Unmarshal(a.Input, &m) != nil {
		return nil, "", false
	}
	if ex, ok := firstExample(m); ok {
		return ex, "the input schema's examples", true
	}
	b := &inputBuilder{entities: g.Entities, nav: g.Nav}
	if props, _ := m["properties"].(map[string]any); len(props) > 0 {
		b.element, b.elementFrom = s.elementInput(p, a, props)
	}
	v, ok := b.value(m, "", "")
	return v, strings.Join(b.from, "; "), ok
}

// elementInput returns the data-aal-input of the first element of the
// page's HTML that the action's affordance selects (its fragment's
// selector, else [aal.Selector]) whose fields are all properties of the
// input, and says where it was; nil when there is none.
func (s *suite) elementInput(p *page, a affordances.ActionDescriptor, props map[string]any) (map[string]any, string) {
	sel := aal.Selector(a.Name)
	if s.fragmentOf(p); p.fragment != nil {
		for _, f := range p.fragment.Affordances {
			if f.ID == aal.ID(a.Name) {
				sel = f.Selector
			}
		}
	}
	x := s.html(p)
	if x.err != nil || x.status != 200 {
		return nil, ""
	}
	doc, err := parseHTML(x.body)
	if err != nil {
		return nil, ""
	}
	inputs, _ := doc.Inputs(sel)
	for _, raw := range inputs {
		var in map[string]any
		if raw == nil || json.Unmarshal([]byte(*raw), &in) != nil || len(in) == 0 {
			continue
		}
		if !slices.ContainsFunc(slices.Collect(maps.Keys(in)), func(k string) bool { return props[k] == nil }) {
			return in, fmt.Sprintf("data-aal-input on %s (%s)", p.path, aal.Visible(sel))
		}
	}
	return nil, ""
}

// An inputBuilder builds one input, and says where each value came from.
type inputBuilder struct {
	entities    map[string]any
	nav         []affordances.NavLink
	element     map[string]any // an element's data-aal-input, for the top level
	elementFrom string
	from        []string // "post from the nav link /posts/p-42"
}

// value builds a value of schema m for the field at path (dotted, "" at
// the top) named name.
func (b *inputBuilder) value(m map[string]any, path, name string) (any, bool) {
	said := func(v any, where string) (any, bool) {
		b.from = append(b.from, path+" from "+where)
		return v, true
	}
	if path != "" {
		if ex, ok := firstExample(m); ok {
			return said(ex, "the input schema's examples")
		}
		if v, ok := b.element[path]; ok && !strings.Contains(path, ".") {
			return said(v, b.elementFrom)
		}
		if c, ok := m["const"]; ok {
			return said(c, "the input schema's const")
		}
		if e, ok := m["enum"].([]any); ok && len(e) > 0 {
			return said(e[0], "the input schema's enum")
		}
		if d, ok := m["default"]; ok {
			return said(d, "the input schema's default")
		}
	}
	t, _ := m["type"].(string)
	if ts, ok := m["type"].([]any); ok && len(ts) > 0 {
		t, _ = ts[0].(string)
	}
	madeUp := func(v any) (any, bool) {
		b.from = append(b.from, path+" made up from its schema (the page offers none)")
		return v, true
	}
	switch t {
	case "object", "":
		if t == "" && m["properties"] == nil {
			return map[string]any{}, true
		}
		props, _ := m["properties"].(map[string]any)
		out := map[string]any{}
		req, _ := m["required"].([]any)
		fields := []string{}
		for _, r := range req {
			k, _ := r.(string)
			fields = append(fields, k)
		}
		if path == "" {
			// The fields that pick the element's item, required or not.
			for _, k := range slices.Sorted(maps.Keys(b.element)) {
				if !slices.Contains(fields, k) {
					fields = append(fields, k)
				}
			}
		}
		for _, k := range fields {
			ps, ok := props[k].(map[string]any)
			if !ok {
				return nil, false
			}
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			v, ok := b.value(ps, sub, k)
			if !ok {
				return nil, false
			}
			out[k] = v
		}
		return out, true
	case "string":
		if v, ok := lookupString(b.entities, name); ok {
			return said(v, "the page's entity "+name)
		}
		if v, ok := itemID(b.entities, name); ok {
			return said(v, "the id of an item the page's entities show")
		}
		if v, to, ok := navValue(b.nav, name); ok {
			return said(v, "the nav link "+to)
		}
		if m["pattern"] != nil || m["format"] != nil {
			return nil, false
		}
		n := 1
		if f, ok := m["minLength"].(float64); ok && int(f) > n {
			n = int(f)
		}
		return madeUp(strings.Repeat("a", n))
	case "integer", "number":
		n := 1.0
		if f, ok := m["minimum"].(float64); ok {
			n = f
		}
		if f, ok := m["exclusiveMinimum"].(float64); ok {
			n = f + 1
		}
		if f, ok := m["maximum"].(float64); ok && n > f {
			return nil, false
		}
		return madeUp(n)
	case "boolean":
		return madeUp(false)
	case "array":
		if f, ok := m["minItems"].(float64); ok && f > 0 {
			return nil, false
		}
		return madeUp([]any{})
	}
	return nil, false
}

// firstExample returns the first of a schema's examples.
func firstExample(m map[string]any) (any, bool) {
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
		return ex[0], true
	}
	return nil, false
}

// navValue finds in the nav a value for a field named name: the segment
// of a link's path after one named name or its plural (/posts/p-42 for
// post), or a query parameter name (?post=p-42). It returns the value and
// the link.
func navValue(nav []affordances.NavLink, name string) (string, string, bool) {
	if name == "" {
		return "", "", false
	}
	for _, n := range nav {
		u, err := url.Parse(n.To)
		if err != nil {
			continue
		}
		segs := strings.Split(strings.Trim(u.Path, "/"), "/")
		for i := 0; i+1 < len(segs); i++ {
			if strings.EqualFold(segs[i], name) || strings.EqualFold(segs[i], name+"s") || strings.EqualFold(segs[i], name+"es") {
				if v, err := url.PathUnescape(segs[i+1]); err == nil && v != "" {
					return v, n.To, true
				}
			}
		}
		if v := u.Query().Get(name); v != "" {
			return v, n.To, true
		}
	}
	return "", "", false
}

// lookupString finds the first string under a key named name (any case)
// in v, depth first.
func lookupString(v any, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && strings.EqualFold(k, name) && s != "" {
				return s, true
			}
		}
		for _, e := range x {
			if s, ok := lookupString(e, name); ok {
				return s, true
			}
		}
	case []any:
		for _, e := range x {
			if s, ok := lookupString(e, name); ok {
				return s, true
			}
		}
	}
	return "", false
}

// itemID finds, in v depth first, the id of an item that an input field
// named name picks: a string under nameId or name_id, or the id (slug,
// key) of the object, or of the first item of the list, under name or its
// plural ("task", "tasks"; a list of strings gives its first).
func itemID(v any, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && s != "" && (strings.EqualFold(k, name+"Id") || strings.EqualFold(k, name+"_id")) {
				return s, true
			}
			if strings.EqualFold(k, name) || strings.EqualFold(k, name+"s") || strings.EqualFold(k, name+"es") {
				if s, ok := idOf(e); ok {
					return s, true
				}
			}
		}
		for _, e := range x {
			if s, ok := itemID(e, name); ok {
				return s, true
			}
		}
	case []any:
		for _, e := range x {
			if s, ok := itemID(e, name); ok {
				return s, true
			}
		}
	}
	return "", false
}

// idOf returns the id, slug or key of an item, or of a list's first item.
func idOf(v any) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"id", "slug", "key"} {
			if s, ok := x[k].(string); ok && s != "" {
				return s, true
			}
		}
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && s != "" {
				return s, true
			}
			if s, ok := idOf(e); ok {
				return s, true
			}
		}
	}
	return "", false
}

// harmless reports whether the page's AAL fragment says the action is
// reversible, not destructive, and touches only the requester's own
// ordinary data (trust safe or user). Without a fragment it is not.
func (s *suite) harmless(p *page, name string) bool {
	s.fragmentOf(p)
	if p.fragment == nil {
		return false
	}
	for _, a := range p.fragment.Affordances {
		if a.ID == aal.ID(name) {
			return a.Reversible && !a.Destructive && (a.Trust == aal.TrustSafe || a.Trust == aal.TrustUser) &&
				a.Action != aal.Purchase && a.Action != aal.Delete && (a.Cost == nil || a.Cost.Amount == 0)
		}
	}
	return false
}

func authed(a affordances.ActionDescriptor) bool {
	return a.Expose == affordances.ExposeSession || a.Expose == affordances.ExposeConfirm
}
