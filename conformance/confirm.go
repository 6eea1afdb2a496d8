package conformance

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/wirecheck"
)

// confirmChecks are the checks of confirm actions (docs/protocol.md §19,
// step 6, and §21): the input is validated before confirm is required, and
// confirm_required runs nothing and says what would happen; on a site that
// asks the person to approve (decision 10), the approval page, which the
// caller's token cannot approve.
func confirmChecks() []check {
	return []check{
		{"v0.order.input-before-confirm", secCall, "Validate input (step 4) before confirm_required (step 6).", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			// An available confirm action, so that the guard cannot answer
			// first; else an unavailable one, whose guard comes after the
			// input too.
			t := s.freshConfirm(true)
			if t == nil {
				t = s.freshConfirm(false)
			}
			if t == nil {
				return none("no confirm action whose input the suite can make invalid")
			}
			in, ok := invalidInput(t.action.Input)
			if !ok {
				return skip("the input of %s cannot be made invalid", t.action.Name)
			}
			t.input, t.from = in, ""
			return wantCode(s.userCall(t, false), "", affordances.InvalidInput, "invalid input to a confirm action, without confirm")
		}},
		{"v0.call.confirm-required", secCall, "For confirm actions without confirm: true: confirm_required, with a summary of what will happen as message. Nothing runs.", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			t := s.freshConfirm(true)
			if t == nil {
				return none("no confirm action is available to this requester")
			}
			before, _ := json.Marshal(t.page.graph.Entities)
			x := s.userCall(t, false)
			after, ax := s.entitiesNow(t.page.path)
			if d := x.delta(); d == nil || d.Error == nil || d.Error.Code != affordances.ConfirmRequired {
				return fail(x, "a confirm action called without confirm: true got code %q, want confirm_required", x.code())
			}
			if x.delta().Error.Message == "" {
				return fail(x, "confirm_required without a summary as message")
			}
			if after != string(before) {
				return fail(ax, "the page changed after confirm_required: something ran")
			}
			return pass(x, "confirm_required, nothing ran")
		}},
		{"v0.ext.human-verified", secC10, "Human-verified confirmation: a confirm_required delta's approval is a page of the site under /.well-known/affordances/approvals/ with a future expiry; the caller reads its status; the person opens the page in their own browser session; confirm: true before the person approved is refused and runs nothing; the caller's token cannot approve.", Must, func(s *suite) verdict {
			if s.opts.Token == "" {
				// A cookie session is the person's, who may approve.
				return needsSkip("--token", nil, "needs --token: the rule is that an agent's token cannot approve")
			}
			t := s.freshConfirm(true)
			if t == nil {
				return none("no confirm action is available to this requester")
			}
			x := s.userCall(t, false)
			d := x.delta()
			if d == nil || d.Approval == nil {
				return skip("the site does not ask for human-verified confirmation")
			}
			ap := d.Approval
			if !wirecheck.ApprovalPage(ap.URL) {
				return fail(x, "the approval URL %q is not a page under %s", ap.URL, affordances.ApprovalsPath)
			}
			if until := time.Until(ap.Expires); until <= 0 || until > 24*time.Hour {
				return fail(x, "the approval expires at %s, want within the next 24 hours", ap.Expires.Format(time.RFC3339))
			}
			state := func() (string, *exchange) {
				sx := s.get(ap.URL, affordances.MediaType, agent)
				var st affordances.ApprovalStatus
				if sx.status != 200 || json.Unmarshal(sx.body, &st) != nil {
					return "", sx
				}
				return string(st.State), sx
			}
			if st, sx := state(); st != string(affordances.ApprovalPending) {
				return fail(sx, "the approval's status as the caller: got %d %q, want 200 and state pending", sx.status, st)
			}
			if len(s.opts.Cookies) > 0 {
				// The person reads it signed in; they do not approve it here.
				if hx := s.get(ap.URL, browserAccept, person); hx.err != nil || hx.status != http.StatusOK {
					return fail(hx, "the approval page in the person's session (--cookie-jar): %s; is it the session of the token's account?", hx.answered(s.base))
				}
			}
			before, _ := s.entitiesNow(t.page.path)
			cx := s.userCall(t, true)
			if cd := cx.delta(); cd == nil || cd.Error == nil || cd.Error.Code != affordances.ConfirmRequired {
				return fail(cx, "confirm: true before the person approved got code %q, want confirm_required", cx.code())
			}
			h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {affordances.MediaType}, "Origin": {s.base}}
			px := s.do(http.MethodPost, ap.URL, agent, h, []byte("decision=approve"))
			// A redirect (to sign in, or back to the page) is judged by the
			// state it leaves, below.
			if px.err == nil && px.status < 300 {
				return fail(px, "the caller's own token approved the call (status %d)", px.status)
			}
			if after, ax := s.entitiesNow(t.page.path); after != before {
				return fail(ax, "the page changed: something ran without the person's approval")
			}
			if st, sx := state(); st != string(affordances.ApprovalPending) {
				return fail(sx, "after the token's attempt to approve, the state is %q, want pending", st)
			}
			return pass(cx, "approval page pending; confirm: true refused; the token cannot approve")
		}},
	}
}

// freshConfirm reads again the pages with a confirm action (the writes may
// have changed them) and returns the first confirm action whose available
// is as asked, with a valid input; nil when there is none.
func (s *suite) freshConfirm(available bool) *target {
	for _, p := range s.each() {
		if !slices.ContainsFunc(p.graph.Actions, func(a affordances.ActionDescriptor) bool { return a.Expose == affordances.ExposeConfirm }) {
			continue
		}
		x := s.get(p.path, affordances.MediaType, agent)
		var g affordances.Graph
		if json.Unmarshal(x.body, &g) != nil {
			continue
		}
		for _, a := range g.Actions {
			if a.Expose != affordances.ExposeConfirm || a.Available != available {
				continue
			}
			if in, from, ok := s.inputFor(p, &g, a); ok {
				return &target{page: &page{path: p.path, graphX: x, graph: &g}, action: a, input: in, from: from}
			}
		}
	}
	return nil
}
