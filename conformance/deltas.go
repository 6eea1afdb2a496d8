package conformance

import (
	"slices"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/wirecheck"
	"github.com/affordances/affordances-go/schemas"
)

// deltaChecks are the checks of the deltas the run was answered with
// (docs/protocol.md §22 and §23, decision 2): the HTTP status of each error
// code, and the shape of each delta.
func deltaChecks() []check {
	return []check{
		{"v0.status.not-found", secC2, "not_found: 404.", Must, statusOf(affordances.NotFound, 404)},
		{"v0.status.unauthorized", secC2, "unauthorized: 401 (no session, bad bearer token) or 403 (a cookie call without a matching Origin).", Must, statusOf(affordances.Unauthorized, 401, 403)},
		{"v0.status.invalid-input", secC2, "invalid_input: 400, or 413 for a body larger than the limit.", Must, statusOf(affordances.InvalidInput, 400, 413)},
		{"v0.status.unavailable", secC2, "unavailable: 409.", Must, statusOf(affordances.Unavailable, 409)},
		{"v0.status.confirm-required", secC2, "confirm_required: 428.", Must, statusOf(affordances.ConfirmRequired, 428)},
		{"v0.status.internal", secC2, "internal: 500.", Must, statusOf(affordances.Internal, 500)},
		{"v0.status.origin-403", secC2, "unauthorized (403): a cookie call without a matching Origin.", Must, func(s *suite) verdict {
			n := 0
			for _, o := range []string{"", "null", "https://conformance.invalid"} {
				r, ok := s.probes["origin "+o]
				if !ok || r.x == nil || r.x.code() != affordances.Unauthorized {
					continue
				}
				n++
				if r.x.status != 403 {
					return fail(r.x, "a cookie call refused for its Origin got status %d, want 403", r.x.status)
				}
			}
			if n == 0 {
				return none("no cookie call was refused unauthorized for its Origin")
			}
			return pass(nil, "403")
		}},
		{"v0.shape.delta", secC2, "Every error body is a Delta: { ok: false, error: { code, message, issues? } }, media type application/vnd.affordances+json.", Must, func(s *suite) verdict {
			all := slices.Clone(s.deltas)
			if nf := s.notFound()[0]; nf.isDocument() {
				all = append(all, nf) // whether it must be one is v0.negotiation.not-found
			}
			if len(all) == 0 {
				return none("no call was answered")
			}
			for _, x := range all {
				if !x.isDocument() {
					return fail(x, "the answer to a call is not an Affordances document")
				}
				if err := wirecheck.Validate(schemas.Delta, x.body); err != nil {
					return fail(x, "%v", err)
				}
				d := x.delta()
				if d.Error != nil && d.OK {
					return fail(x, "an error delta with ok true")
				}
				if x.status >= 400 && d.Error == nil {
					return fail(x, "status %d with no error in the delta", x.status)
				}
			}
			return pass(nil, "%d deltas valid", len(all))
		}},
	}
}

// statusOf checks the status of every delta with code, seen so far.
func statusOf(code affordances.Code, want ...int) func(*suite) verdict {
	return func(s *suite) verdict {
		var seen *exchange
		for _, x := range s.deltas {
			if x.code() != code {
				continue
			}
			seen = x
			if !slices.Contains(want, x.status) {
				return fail(x, "a %s delta came with status %d, want %v", code, x.status, want)
			}
		}
		for _, p := range s.notFound() {
			if code == affordances.NotFound && p.status != 404 {
				return fail(p, "a not_found delta came with status %d, want 404", p.status)
			}
		}
		if seen == nil && code == affordances.NotFound && len(s.notFound()) > 0 {
			// Whether it must be a delta is v0.negotiation.not-found's to say.
			return pass(s.notFound()[0], "a page no site has answered 404")
		}
		if seen == nil {
			return skip("no %s delta was seen", code)
		}
		return pass(seen, "every %s delta had status %v", code, want)
	}
}

// rateLimitChecks is the check of rate_limited (docs/protocol.md §20,
// decision 2). It runs last, as it spends this client's quota on one route.
func rateLimitChecks() []check {
	return []check{
		{"v0.status.rate-limited", secC2, "rate_limited: 429, Retry-After header in whole seconds.", Must, rateLimited},
	}
}

// maxRateProbes bounds the calls rateLimited sends to reach a limit.
const maxRateProbes = 120

// rateLimited checks every rate_limited delta seen, and when none was,
// provokes one: anonymous calls with input the schema refuses, which run
// nothing but count (docs/protocol.md §19: step 3 comes before step 4;
// decision 5), until the site answers rate_limited or maxRateProbes calls
// went through.
func rateLimited(s *suite) verdict {
	if v := statusOf(affordances.RateLimited, 429)(s); v.outcome != Skip {
		return v
	}
	t, in := s.originTarget()
	if t == nil || t.action.Expose != affordances.ExposePublic {
		return none("no public action whose input the suite can make invalid")
	}
	s.provoking = true
	defer func() { s.provoking = false }()
	for range maxRateProbes {
		x := s.call(t.page.path, nobody, nil, map[string]any{"action": t.action.Name, "input": in})
		switch x.code() {
		case affordances.InvalidInput:
			continue
		case affordances.RateLimited:
			if x.status != 429 {
				return fail(x, "a rate_limited delta came with status %d, want 429", x.status)
			}
			if ra := x.header.Get("Retry-After"); !wholeSeconds(ra) {
				return fail(x, "rate_limited with Retry-After %q, want whole seconds", ra)
			}
			return pass(x, "rate_limited after refused calls, 429 with Retry-After %s", x.header.Get("Retry-After"))
		default:
			return fail(x, "an anonymous call with invalid input to %s got code %q, want invalid_input until rate_limited", t.action.Name, x.code())
		}
	}
	return skip("no limit reached within %d calls", maxRateProbes)
}
