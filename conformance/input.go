package conformance

import (
	"encoding/json"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// A target is an action on a concrete page.
type target struct {
	page   *page
	action affordances.ActionDescriptor
}

// find returns the first action of the discovered pages that ok accepts.
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

// minimalInput builds the smallest input the schema accepts, taking the
// value of a required string from the page's entities as a person's agent
// would: a key of that name that holds one, else the id of an item the
// page shows under that name or its plural (task: tasks[0].id). An input
// made up ("a") names no item, which a site rightly answers not_found. ok is
// false when the suite cannot build one.
func minimalInput(schema json.RawMessage, entities map[string]any) (any, bool) {
	var m map[string]any
	if len(schema) == 0 {
		return map[string]any{}, true
	}
	if json.Unmarshal(schema, &m) != nil {
		return nil, false
	}
	return minimalValue(m, "", entities)
}

func minimalValue(m map[string]any, name string, entities map[string]any) (any, bool) {
	if c, ok := m["const"]; ok {
		return c, true
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	t, _ := m["type"].(string)
	if ts, ok := m["type"].([]any); ok && len(ts) > 0 {
		t, _ = ts[0].(string)
	}
	switch t {
	case "object", "":
		if t == "" && m["properties"] == nil {
			return map[string]any{}, true
		}
		props, _ := m["properties"].(map[string]any)
		out := map[string]any{}
		req, _ := m["required"].([]any)
		for _, r := range req {
			k, _ := r.(string)
			ps, ok := props[k].(map[string]any)
			if !ok {
				return nil, false
			}
			v, ok := minimalValue(ps, k, entities)
			if !ok {
				return nil, false
			}
			out[k] = v
		}
		return out, true
	case "string":
		if v, ok := lookupString(entities, name); ok {
			return v, true
		}
		if v, ok := itemID(entities, name); ok {
			return v, true
		}
		if m["pattern"] != nil || m["format"] != nil {
			return nil, false
		}
		n := 1
		if f, ok := m["minLength"].(float64); ok && int(f) > n {
			n = int(f)
		}
		return strings.Repeat("a", n), true
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
		return n, true
	case "boolean":
		return false, true
	case "array":
		if f, ok := m["minItems"].(float64); ok && f > 0 {
			return nil, false
		}
		return []any{}, true
	}
	return nil, false
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
