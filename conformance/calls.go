package conformance

import (
	"encoding/json"
	"net/http"
	"strings"

	affordances "github.com/affordances/affordances-go"
)

// callChecks are the checks of the calls the first steps refuse
// (docs/protocol.md §19, steps 1 and 2; decisions 1, 2, 4 and 5): a body
// that is not a call or is too large, an action the route does not have,
// and a caller who may not call the action, before its input is looked at.
func callChecks() []check {
	return []check{
		{"v0.call.not-json", secC2, "invalid_input: body is not JSON, not a Call object.", Must, func(s *suite) verdict {
			p := s.first()
			if p == nil {
				return none("no page with a graph")
			}
			return wantCode(s.call(p.path, nobody, nil, []byte("{not json")), "", affordances.InvalidInput, "a body that is not JSON")
		}},
		{"v0.call.too-large", secC2, "invalid_input (413): body larger than the limit (default 1 MiB).", Must, func(s *suite) verdict {
			p := s.first()
			if p == nil {
				return none("no page with a graph")
			}
			body := []byte(`{"action":"x","input":"` + strings.Repeat("a", 1<<20+1024) + `"}`)
			x := s.call(p.path, nobody, nil, body)
			if x.code() != affordances.InvalidInput {
				return fail(x, "a body over 1 MiB got code %q, want invalid_input", x.code())
			}
			if x.status != 413 {
				return fail(x, "a body over 1 MiB got status %d, want 413", x.status)
			}
			return pass(x, "413 invalid_input")
		}},
		{"v0.call.not-found", secCall, "Resolve the action by name on the page's route. Failure: not_found.", Must, func(s *suite) verdict {
			p := s.first()
			if p == nil {
				return none("no page with a graph")
			}
			return wantCode(s.call(p.path, nobody, nil, map[string]any{"action": "conformanceNoSuchAction"}), "", affordances.NotFound, "an action the route does not have")
		}},
		{"v0.call.unauthorized", secC1, "session: an authenticated requester; a call that falls short gets unauthorized.", Must, func(s *suite) verdict {
			x, why := s.probe("anonymous", func() (*exchange, string) { return s.anonymousCall(nil, false) })
			return wantCode(x, why, affordances.Unauthorized, "an anonymous call of a session action")
		}},
		{"v0.call.www-authenticate", secC2, "unauthorized (401): the action needs a session and the call has none, or a bad bearer token; send WWW-Authenticate: Bearer.", Must, func(s *suite) verdict {
			x, why := s.probe("anonymous", func() (*exchange, string) { return s.anonymousCall(nil, false) })
			if x == nil {
				return none("%s", why)
			}
			if x.status == 401 && !strings.HasPrefix(strings.ToLower(x.header.Get("WWW-Authenticate")), "bearer") {
				return fail(x, "a 401 without WWW-Authenticate: Bearer")
			}
			return pass(x, "WWW-Authenticate: %s", x.header.Get("WWW-Authenticate"))
		}},
		{"v0.call.bad-token", secC4, "A bad token is unauthorized (401).", Must, func(s *suite) verdict {
			t := s.sessionTarget()
			if t == nil {
				return none("no session action the suite can build an input for")
			}
			x := s.call(t.page.path, nobody, http.Header{"Authorization": {"Bearer conformance-not-a-token"}}, map[string]any{"action": t.action.Name, "input": t.input})
			x.inputFrom = t.from
			return wantCode(x, "", affordances.Unauthorized, "a call with a bad bearer token")
		}},
		{"v0.call.unknown-fields", secC5, "Unknown fields in a Call are ignored.", Must, func(s *suite) verdict {
			x, why := s.anonymousCall(map[string]any{"conformanceUnknown": true}, false)
			return wantCode(x, why, affordances.Unauthorized, "an anonymous call of a session action with an unknown field")
		}},
		{"v0.order.unauthorized-before-input", secCall, "Check the CSRF rule and expose against the caller (step 2) before validating input (step 4).", Must, func(s *suite) verdict {
			x, why := s.anonymousCall(nil, true)
			return wantCode(x, why, affordances.Unauthorized, "an anonymous call of a session action with invalid input")
		}},
	}
}

// guardChecks are the checks of the steps that follow (docs/protocol.md
// §19, steps 4 and 5): the input is validated before the guard runs, an
// invalid input is answered with its issues, an unavailable action with
// its reason, and none of the calls refused so far changed a page.
func guardChecks() []check {
	return []check{
		{"v0.order.input-before-guard", secSecurity, "Input is validated before the guard runs, and the guard runs before the action.", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			t := s.find(func(_ *page, a affordances.ActionDescriptor) bool {
				_, ok := invalidInput(a.Input)
				return ok && !a.Available && authed(a)
			})
			if t == nil {
				return none("no unavailable session action with an input the suite can make invalid")
			}
			t.input, _ = invalidInput(t.action.Input)
			return wantCode(s.userCall(t, false), "", affordances.InvalidInput, "invalid input to an unavailable action")
		}},
		{"v0.call.issues", secC2, "invalid_input: issues is a list of { path: JSON Pointer, message: text }.", Must, func(s *suite) verdict {
			n := 0
			for _, x := range s.deltas {
				var call struct {
					Input json.RawMessage `json:"input"`
				}
				if x.code() != affordances.InvalidInput || len(x.reqBody) > 1<<20 || json.Unmarshal(x.reqBody, &call) != nil || call.Input == nil {
					continue // issues are for input that fails the schema
				}
				var d struct {
					Error struct {
						Issues []struct {
							Path    *string `json:"path"`
							Message string  `json:"message"`
						} `json:"issues"`
					} `json:"error"`
				}
				json.Unmarshal(x.body, &d)
				n++
				if len(d.Error.Issues) == 0 {
					return fail(x, "an invalid_input delta without issues")
				}
				for _, is := range d.Error.Issues {
					if is.Path == nil || (*is.Path != "" && !strings.HasPrefix(*is.Path, "/")) || is.Message == "" {
						return fail(x, "an issue without a JSON Pointer path or a message")
					}
				}
			}
			if n == 0 {
				return none("no call was answered invalid_input for its input")
			}
			return pass(nil, "%d invalid_input deltas, each with issues", n)
		}},
		{"v0.call.unavailable", secCall, "Evaluate the guard. Failure: unavailable, with the guard's reason as message.", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			t := s.unavailableTarget(affordances.ExposeSession)
			if t == nil {
				return none("no unavailable session action the suite can build an input for")
			}
			x := s.userCall(t, false)
			if v := wantCode(x, "", affordances.Unavailable, "a valid call of an unavailable action"); v.outcome != Pass {
				return v
			}
			if d := x.delta(); d.Error.Message == "" {
				return fail(x, "unavailable without a message")
			}
			return pass(x, "unavailable")
		}},
		{"v0.order.guard-before-confirm", secCall, "Evaluate the guard (step 5) before confirm_required (step 6).", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			t := s.unavailableTarget(affordances.ExposeConfirm)
			if t == nil {
				return none("no unavailable confirm action the suite can build an input for")
			}
			return wantCode(s.userCall(t, false), "", affordances.Unavailable, "a confirm action whose guard is false, without confirm")
		}},
		{"v0.readonly.state-unchanged", secCall, "A call that fails stops at the first failure: nothing runs, and the pages do not change.", Must, func(s *suite) verdict {
			if len(s.order) == 0 {
				return none("no page with a graph was found")
			}
			var readChanges []string
			for _, p := range s.each() {
				now, x := s.entitiesNow(p.path)
				b, _ := json.Marshal(p.graph.Entities)
				if now == string(b) {
					continue
				}
				// Before blaming the calls: does reading the page change
				// it (an entry marked read when it is viewed)? Then the
				// suite's own GETs did it, and it cannot tell.
				if again, _ := s.entitiesNow(p.path); again != now {
					readChanges = append(readChanges, p.path)
					continue
				}
				return fail(x, "the entities of %s changed after calls that must all have been refused", p.path)
			}
			if len(readChanges) > 0 {
				return skip("reading %s changes it (a GET with side effects, such as marking what it shows as read): the suite cannot tell what refused calls did there; its requests say who they are in their User-Agent (%s)",
					strings.Join(readChanges, ", "), s.opts.UserAgent)
			}
			return pass(nil, "%d pages unchanged", len(s.order))
		}},
	}
}

// unavailableTarget is an unavailable action of the given expose with a
// valid input, so only its guard can refuse it.
func (s *suite) unavailableTarget(expose affordances.Expose) *target {
	return s.findCall(func(_ *page, a affordances.ActionDescriptor) bool {
		return !a.Available && a.Expose == expose
	})
}
