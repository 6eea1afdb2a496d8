package affordances

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/affordances/affordances-go/store"
)

// confirmed is step 6 of a confirm action: nil when the call may run, or
// the refusal. A human-verified action (docs/protocol.md decision 10) runs on
// confirm: true only with an approval the person gave on the site's
// approval page for this very call, taken once; or when the call is the
// person's own form on the site's page, confirmed by its button, from
// their browser session. Either covers the state the person was shown
// ([Action.Consent]) as well as the input: the call runs only while it is
// the same, and the action may check it again where it writes
// ([Request.Consented]). changed says that what was confirmed changed
// before the action could run: the person is told so.
func (s *Site) confirmed(ctx context.Context, c *call, req *Request, input json.RawMessage, changed bool) *response {
	a := c.action
	consent, err := consentDigest(a.Consent, req.State.Entities)
	if err != nil {
		return s.failure(err, "consent of "+a.Name)
	}
	verify := a.Verify || s.opts.VerifyConfirm
	if c.confirm {
		switch {
		case c.form && (!verify || byPerson(req)):
			if c.consent == consent {
				req.consent, req.consentKeys = consent, a.Consent
				return nil
			}
			changed = true // the confirmation page showed other values
		case !verify:
			return nil // an agent's confirm: true: no page showed it anything to hold it to
		}
	}
	summary, err := a.summarize(ctx, s, req)
	if err != nil {
		return s.failure(err, "summary of "+a.Name)
	}
	confirm := NewError(ConfirmRequired, summary) // the site's words
	if changed {
		confirm = libError(ConfirmRequired, phrase("What was confirmed changed before it ran, so nothing ran. Now: %s", summary))
	}
	if !verify || c.form {
		res := s.failure(confirm, "call")
		res.consent = consent
		return res
	}
	aff, err := a.affordance(req.State.Entities)
	if err != nil {
		return s.failure(err, "cost of "+a.Name)
	}
	cost := costOf(aff)
	key := approvalKey(req, a.Name, input, summary, consent, cost)
	if c.confirm {
		taken, err := s.appr.Take(ctx, key)
		switch {
		case err != nil: // fail closed: never run without the store
			return s.failure(fmt.Errorf("affordances: approvals store: %w", err), "call")
		case taken != nil && taken.State == store.ApprovalApproved:
			req.consent, req.consentKeys = consent, a.Consent
			return nil
		case taken != nil && taken.State == store.ApprovalDenied:
			return s.failure(forbidden(phrase("The person denied this call on the approval page. Nothing ran.")), "call")
		}
	}
	// A decided approval is answered as it stands: a client asks without
	// confirm first, then confirms what the person approved, or reads the
	// denial. A denial stands until the approval expires.
	ap, err := s.appr.Request(ctx, &store.Approval{ID: store.NewApprovalID(), Call: key, Principal: req.Principal.ID, Page: s.full(req.Page),
		Action: a.Name, Input: slices.Clone(input), Summary: summary, Consent: consent, Cost: cost, State: store.ApprovalPending,
		Expires: time.Now().Add(store.ApprovalTTL)})
	if err != nil {
		return s.failure(fmt.Errorf("affordances: approvals store: %w", err), "call")
	}
	message := any(summary)
	if changed {
		message = confirm.words
	}
	res := s.failure(libError(ConfirmRequired, phrase("%s A person must approve it at the approval page before confirm: true runs it.", message)), "call")
	res.delta.Approval = &PendingApproval{URL: s.full(ApprovalsPath + ap.ID), Expires: ap.Expires.UTC().Truncate(time.Second)}
	return res
}

// byPerson reports whether req comes from a person's browser session: a
// cookie, and the browser's own headers of a same-site post (which
// [Site.checkFormOrigin] has checked), not a client that sent neither.
func byPerson(req *Request) bool {
	r := req.HTTP
	return req.Principal.Method == AuthCookie && (r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") == "same-origin")
}

// approvalKey names one call for [store.Approvals]: its caller, page, action
// and input, the input in canonical form (object keys sorted, no spaces),
// so the same input approves the same call however it is written; the
// summary and cost the person read, and the digest of the state they
// describe ([Action.Consent]), so that a call whose page changed since
// (another cart, another recipient, another price) is not the call they
// approved.
func approvalKey(req *Request, action string, input json.RawMessage, summary, consent, cost string) string {
	h := sha256.New()
	for _, part := range []string{req.Principal.ID, req.Page, action, string(canonicalJSON(input)), summary, consent, cost} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// summarize runs the action's Summary.
func (a *action) summarize(ctx context.Context, s *Site, req *Request) (summary string, err error) {
	defer s.recoverTo(&err, "summary of ", a.Name)
	summary, err = a.Summary.fn(ctx, req, req.input)
	if err != nil {
		return "", s.public(err, "summary of "+a.Name)
	}
	return summary, nil
}
