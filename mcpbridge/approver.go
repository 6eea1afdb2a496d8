package mcpbridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/internal/modeltext"
)

// approver asks the person through MCP elicitation, by the SDK's multi
// round-trip requests: the first time a call needs approval it records the
// question and the call ends with nothing sent that could run; the SDK
// asks the client, then runs the tool again with the person's answer,
// which approves only the very same question (same site, page, action,
// input and message).
//
// When the site wants the person to approve on its own page (the request
// has a URL), the approver never approves: the page does. On a site the
// person configured, it has the client check the page once; if it is not
// approved yet, the question sends the person there (URL elicitation),
// and their accept ("I went there") has the client wait for their
// decision on the page. On any other site the page is the site's word
// alone: the client reads it only after the person's accept.
type approver struct {
	ctx context.Context // the tool call's, for its progress notifications
	req *mcp.CallToolRequest
	// canForm and canURL are the client's elicitation modes; answered
	// says this run of the tool carries the client's answers.
	canForm, canURL, answered bool
	// configured says the call goes to a site the person configured,
	// whose approval page speaks for them.
	configured bool
	// stateless says the client speaks MCP 2026-07-28 or later, which has
	// no elicitationId and no notifications/elicitation/complete: a
	// question is answered in the call's next round trip, and ends there.
	stateless bool

	pending   *mcp.ElicitParams
	pendingID string
	cannot    *agent.ApprovalRequest
	approved  bool

	// page is the site's approval page for the call, when it has one;
	// looked says the client was let check it, waited that it was let
	// wait there for the person's decision.
	page           *agent.ApprovalRequest
	looked, waited bool
}

func newApprover(ctx context.Context, req *mcp.CallToolRequest) *approver {
	a := &approver{ctx: ctx, req: req}
	if caps := req.ClientCapabilities(); caps != nil && caps.Elicitation != nil {
		// The SDK's rule: a client that names neither mode can do forms.
		e := caps.Elicitation
		a.canForm = e.Form != nil || e.URL == nil
		a.canURL = e.URL != nil
	}
	a.answered = req.Params != nil && len(req.Params.InputResponses) > 0
	a.stateless = stateless(req)
	return a
}

// checkOnce is the ApprovalTimeout under which the client checks the
// approval page once and does not wait.
const checkOnce = time.Nanosecond

// errAsking ends a call that waits for the person's answer.
var errAsking = errors.New("mcpbridge: asking the person")

// approveField is the one field of the elicitation form.
const approveField = "approve"

func (a *approver) Approve(_ context.Context, r *agent.ApprovalRequest) (bool, error) {
	if _, err := callURL(r); err != nil {
		return false, err
	}
	id := questionID(r)
	var answer *mcp.ElicitResult
	if a.req.Params != nil {
		if resp, ok := a.req.Params.InputResponses[id]; ok {
			answer, _ = resp.(*mcp.ElicitResult)
			if answer == nil {
				answer = &mcp.ElicitResult{}
			}
		}
	}
	if r.URL != "" {
		return a.onPage(r, id, answer)
	}
	if answer != nil {
		yes := answer.Action == "accept" && answer.Content[approveField] == true
		a.approved = yes
		return yes, nil
	}
	if !a.canForm {
		a.cannot = r
		return false, errAsking
	}
	a.pending = &mcp.ElicitParams{
		Mode:    "form",
		Message: describe(r),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				approveField: map[string]any{"type": "boolean", "title": "Approve this call", "description": "Yes runs it; no runs nothing."},
			},
			"required": []string{approveField},
		},
	}
	a.pendingID = id
	return false, errAsking
}

// onPage is Approve for a call approved on the site's page: true lets the
// client check the page (once, on a configured site, or, after the
// person's accept, until they decide); it never approves by itself. A
// form is never offered.
func (a *approver) onPage(r *agent.ApprovalRequest, id string, answer *mcp.ElicitResult) (bool, error) {
	a.page = r
	switch {
	case answer != nil && answer.Action == "accept":
		a.looked, a.waited = true, true
		return true, nil
	case answer != nil:
		return false, nil // declined or cancelled: nothing runs
	case a.answered:
		// Answers to another question (the page changed meanwhile):
		// give the model the page rather than ask again.
		return false, errAsking
	}
	if a.canURL {
		if u, err := url.Parse(r.URL); err == nil {
			a.pending = &mcp.ElicitParams{Mode: "url", Message: describePage(r), URL: u.String()}
			if !a.stateless {
				a.pending.ElicitationID = id // for notifications/elicitation/complete, which 2026-07-28 removed
			}
			a.pendingID = id
		}
	}
	if !a.configured {
		// The site's page answering "approved" is no person's answer.
		return false, errAsking
	}
	a.looked = true
	return true, nil
}

// progress tells the client, at each check of the approval page while
// the person has not decided, that the call is waiting for them
// (notifications/progress, when the call carries a progress token): a
// client that times a call out but resets the timeout on progress, as
// many do, then waits for a person who takes their time. The progress is
// the seconds waited, with no total; a notification lost changes nothing.
func (a *approver) progress(r *agent.ApprovalRequest, waited time.Duration) {
	if a.req.Params == nil || a.req.Session == nil {
		return
	}
	token := a.req.Params.GetProgressToken()
	if token == nil {
		return
	}
	_ = a.req.Session.NotifyProgress(a.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: token,
		Progress:      waited.Seconds(),
		Message:       fmt.Sprintf("Waiting for the person's decision on the site's approval page (%s so far).", waited.Round(time.Second)),
	})
}

// complete tells the client that the person's visit to the approval page
// it opened is over (notifications/elicitation/complete), in an MCP
// version that has it: from 2026-07-28 the call's result says it.
func (a *approver) complete(ctx context.Context, logger *slog.Logger) {
	if !a.waited || a.req.Session == nil || a.stateless {
		return
	}
	if err := a.req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: questionID(a.page)}); err != nil && logger != nil {
		logger.Warn("mcpbridge: notifying the end of an approval", "err", err)
	}
}

// describe is what the person reads: who asks what, verbatim, with every
// character they could not see made visible (the client has passed the
// label, the message and the reasons through [aal.Visible]; the rest is
// passed here), the action one word as in the model's text. Approve has
// refused a request whose page is not a path.
func describe(r *agent.ApprovalRequest) string {
	where, _ := callURL(r)
	var b strings.Builder
	fmt.Fprintf(&b, "Approve %s on %s?", modeltext.Name(r.Action), aal.Visible(where))
	if r.Label != "" {
		fmt.Fprintf(&b, "\nAction: %s", r.Label)
	}
	if r.Message != "" {
		fmt.Fprintf(&b, "\nThe site says: %s", r.Message)
	}
	if r.Amount != nil {
		fmt.Fprintf(&b, "\nAmount: %s", aal.Visible(r.Amount.String()))
	}
	if len(r.Input) > 0 {
		fmt.Fprintf(&b, "\nInput: %s", aal.Visible(string(r.Input)))
	}
	if len(r.Classes) > 0 {
		fmt.Fprintf(&b, "\nNeeds a person's authority for: %s", strings.Join(classes(r.Classes), ", "))
	}
	return b.String()
}

// describePage is what the person reads before opening the site's
// approval page: the call, as in [describe], and where to decide.
func describePage(r *agent.ApprovalRequest) string {
	return describe(r) + "\nDecide on the site's own page: open it in your browser, signed in to " + aal.Visible(r.Origin) +
		" as yourself, and choose Approve or Deny there. Nothing runs unless you approve on that page."
}

// errNotPath: the page a site gives for a call is not a path.
var errNotPath = errors.New("mcpbridge: the site's page is not a path")

// callURL returns the URL of the page of r, built as a URL on the origin
// the call is sent to, so that the question names that origin whatever
// the site's page says; a page that is not a path (/x, not //x, @x or
// x) is [errNotPath].
func callURL(r *agent.ApprovalRequest) (string, error) {
	origin, err := url.Parse(r.Origin)
	if err != nil {
		return "", fmt.Errorf("mcpbridge: the origin %q: %w", aal.Visible(r.Origin), err)
	}
	page, err := url.Parse(r.Page)
	if err != nil || !strings.HasPrefix(r.Page, "/") || strings.HasPrefix(r.Page, "//") || strings.Contains(r.Page, "\\") {
		return "", fmt.Errorf("%w: %q", errNotPath, aal.Visible(r.Page))
	}
	return origin.ResolveReference(page).String(), nil
}

// questionID names one question: the answer to it approves nothing else.
// It leaves out when an approval page lapses: the site moves that when the
// person decides (an approval is kept for its TTL from the decision), and
// the page's URL names the approval already.
func questionID(r *agent.ApprovalRequest) string {
	q := *r
	q.Expires = time.Time{}
	b, _ := json.Marshal(q)
	sum := sha256.Sum256(b)
	return "approve-" + hex.EncodeToString(sum[:12])
}
