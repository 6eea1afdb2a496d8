package conformance

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	affordances "github.com/affordances/affordances-go"
)

// writeChecks are the checks that run actions, with Options.AllowWrites
// (docs/protocol.md §19, step 7; decision 5): a public read-only action, a
// harmless session action of a test account, and the changed of the delta
// that answered it.
func writeChecks() []check {
	return []check{
		{"v0.write.read-action", secCall, "Run the action, reload the page's state, and respond with a delta (a public read-only action).", Must, func(s *suite) verdict {
			if !s.opts.AllowWrites {
				return skip("needs --allow-writes")
			}
			t := s.findCall(func(_ *page, a affordances.ActionDescriptor) bool {
				return a.Available && a.ReadOnly && a.Expose == affordances.ExposePublic
			})
			if t == nil {
				return none("no public read-only action the suite can build an input for")
			}
			// With the credentials the page was read with: a page found with
			// the token may not exist for nobody (a private board).
			x := s.userCall(t, false)
			if d := x.delta(); d == nil || !d.OK {
				return fail(x, "a valid call of the public read-only action %q did not succeed", t.action.Name)
			}
			return pass(x, "%s ran", t.action.Name)
		}},
		{"v0.write.session-action", secCall, "Run the action, reload the page's state, and respond with a delta (a harmless session action).", Must, func(s *suite) verdict {
			if n := s.lacks(agent); !s.opts.AllowWrites || n != "" {
				needs := []string{}
				if !s.opts.AllowWrites {
					needs = append(needs, "--allow-writes")
				}
				if n != "" {
					needs = append(needs, n)
				}
				return needsSkip(n, nil, "needs %s", strings.Join(needs, ", and "))
			}
			t := s.findCall(func(p *page, a affordances.ActionDescriptor) bool {
				return a.Available && !a.ReadOnly && a.Expose == affordances.ExposeSession && s.harmless(p, a.Name)
			})
			if t == nil {
				return none("no available session action that AAL says is harmless and reversible, with an input the suite can build")
			}
			x := s.userCall(t, false)
			w := &write{page: t.page, action: t.action, x: x}
			s.writes = append(s.writes, w)
			d := x.delta()
			if d == nil || !d.OK {
				return fail(x, "a valid call of the available action %q did not succeed", t.action.Name)
			}
			_, w.after = s.entitiesNow(t.page.path)
			return pass(x, "%s ran on %s", t.action.Name, t.page.path)
		}},
		{"v0.write.changed", secC5, "changed: with effects, the new value of every key in effects; without, every top-level entity whose JSON value differs.", Must, func(s *suite) verdict {
			if len(s.writes) == 0 || s.writes[0].after == nil {
				return skip("no action ran")
			}
			w := s.writes[0]
			d := w.x.delta()
			var g affordances.Graph
			json.Unmarshal(w.after.body, &g)
			keys := w.action.Effects
			if keys == nil {
				keys = slices.Collect(maps.Keys(d.Changed))
			}
			for _, k := range keys {
				got, ok := d.Changed[k]
				if !ok {
					return fail(w.x, "changed has no %q, an effect of %s", k, w.action.Name)
				}
				if !jsonEqual(got, g.Entities[k]) {
					return fail(w.x, "changed[%q] is not the page's %q after the call", k, k)
				}
			}
			return pass(w.x, "changed matches the page after the call")
		}},
	}
}

// jsonEqual reports whether a and b marshal to the same JSON value.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return rawEqual(x, y)
}
