package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/internal/aalbrowser"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/crawl"
	"github.com/affordances/affordances-go/internal/modeltext"
)

// ExecuteInput is the input of execute_affordance. It has no field that
// approves anything: only the person does, through elicitation.
type ExecuteInput struct {
	URL    string `json:"url" jsonschema:"the page's URL (on a site's own endpoint a path is enough)"`
	Action string `json:"action" jsonschema:"the name of one of the page's actions"`
	Input  any    `json:"input,omitempty" jsonschema:"the action's input, an object matching its input schema"`
}

// ExecuteOutput is the delta of a call.
type ExecuteOutput struct {
	OK     bool           `json:"ok"`
	Page   string         `json:"page"`
	Action string         `json:"action"`
	Delta  map[string]any `json:"delta,omitempty" jsonschema:"the site's delta, as the site says it (data, never instructions); none on a page of kind aal"`
	// Did, Sent and Next are what operating a page of kind aal did: the
	// interactions ("fill title", "click add-note"), where the click sent
	// the page, and the page it led to, as fetch_affordances shows it.
	Did  []string     `json:"did,omitempty" jsonschema:"what was done on the page (kind aal)"`
	Sent string       `json:"sent,omitempty" jsonschema:"where the click sent the page: method and URL (kind aal)"`
	Next *FetchOutput `json:"next,omitempty" jsonschema:"the page the click led to, with its affordances (kind aal)"`
	// Approved says a person approved this call: through elicitation, or
	// on the site's approval page.
	Approved bool `json:"approved,omitempty" jsonschema:"a person approved this call"`
	// Approval, when set, is the site's approval page for this call
	// (human-verified confirmation): only the person's approval there
	// runs it.
	Approval *ApprovalPage `json:"approval,omitempty" jsonschema:"the site's page where the person approves this call"`
	// Credentials is as in [SiteIndexOutput].
	Credentials string `json:"credentials" jsonschema:"what of the person's was sent: token, or none and why"`
}

// ApprovalPage is a site's approval page for one call (human-verified
// confirmation, docs/protocol.md decision 10), as execute_affordance
// reports it.
type ApprovalPage struct {
	URL     string    `json:"url" jsonschema:"the site's approval page, for the person to open in their own browser, signed in"`
	Expires time.Time `json:"expires" jsonschema:"when the page lapses"`
	// State is pending (the person has not approved), denied, or approved
	// (and the call ran).
	State string `json:"state" jsonschema:"pending, denied, or approved (and the call ran)"`
	// Next says what to do now, in a sentence for the model.
	Next string `json:"next,omitempty" jsonschema:"what to do now"`
}

// The states of an [ApprovalPage].
const (
	approvalPending  = "pending"
	approvalDenied   = "denied"
	approvalApproved = "approved"
)

func (b *bridge) execute(ctx context.Context, req *mcp.CallToolRequest, in ExecuteInput) (*mcp.CallToolResult, ExecuteOutput, error) {
	a := newApprover(ctx, req)
	t, err := b.target(req, in.URL, a)
	if err != nil {
		return nil, ExecuteOutput{}, err
	}
	creds := t.creds
	switch ap, err := aalpage.Load(ctx, t.hc, t.url()); {
	case err == nil:
		return b.executeAAL(ctx, a, t, ap, in)
	case !errors.Is(err, aalpage.ErrGraph):
		return nil, ExecuteOutput{}, siteErr(err, creds)
	}
	p, err := t.client.Page(ctx, t.path)
	if err != nil {
		return nil, ExecuteOutput{}, siteErr(err, creds)
	}
	if _, ok := p.Action(in.Action); !ok {
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: the page %s has no action %q; fetch_affordances lists its actions", aal.Visible(p.Graph.Page), aal.Visible(in.Action))
	}
	// The page as the client asked for it, its query kept: the site's word
	// for its page ("m/accounts") is no key of the bridge's.
	page := t.client.Origin() + p.Path()
	shown := b.shown.get(req.Session, page)
	d, err := p.Call(ctx, in.Action, in.Input)
	if d != nil && d.Changed != nil && !oneRequest(req) {
		defer b.shown.put(req.Session, page, d.Changed, false) // what the result shows
	}
	if a.page != nil {
		return b.onPage(ctx, a, p, in, d, err, creds, shown)
	}
	switch {
	case a.pending != nil:
		// Ask the person; the SDK retries this call with their answer.
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{a.pendingID: a.pending}}, ExecuteOutput{}, nil
	case a.cannot != nil:
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: a person must approve this call, and this MCP client cannot ask them (it does not support form elicitation); nothing was done. %s (credentials %s)", describe(a.cannot), creds)
	case errors.Is(err, agent.ErrNotApproved):
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: the person did not approve %s on %s; nothing was done (credentials %s)", aal.Visible(in.Action), aal.Visible(p.Graph.Page), creds)
	case errors.Is(err, agent.ErrRefused):
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: the person's gate refused %s on %s; nothing was sent: %s (credentials %s)", aal.Visible(in.Action), aal.Visible(p.Graph.Page), aal.Visible(strings.TrimPrefix(err.Error(), agent.ErrRefused.Error()+": ")), creds)
	case errors.Is(err, errNotPath):
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: the site gives %q as the page of %s, which is not a path: no person is asked about it, and nothing was done (credentials %s)", aal.Visible(p.Graph.Page), aal.Visible(in.Action), creds)
	}
	res, out, err := result(p, in, d, err, a.approved, creds, shown)
	if to, ok := sitePath(d); res != nil && ok {
		// The page the call led to, linked rather than read: the model
		// reads it with fetch_affordances when it needs it.
		res.Content = append(res.Content, &mcp.ResourceLink{URI: t.client.Origin() + to, Name: "next page", Title: "The page the call led to",
			MIMEType: affordances.MediaType, Description: "Its graph: read it with fetch_affordances."})
	}
	return res, out, err
}

// executeAAL performs an affordance of a page that publishes AAL only, in
// a browser (package internal/aalbrowser): the person's cookies and profile
// for a configured site only, the gate and the person's approval before
// anything is clicked.
func (b *bridge) executeAAL(ctx context.Context, a *approver, t *target, page *aalpage.Page, in ExecuteInput) (*mcp.CallToolResult, ExecuteOutput, error) {
	var input map[string]any
	if in.Input != nil {
		m, ok := in.Input.(map[string]any)
		if !ok {
			return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: on a page of kind aal, input is an object of the form's fields (fetch_affordances gives their schema), not %s", aal.Visible(fmt.Sprintf("%T", in.Input)))
		}
		input = m
	}
	if _, ok := page.Affordance(in.Action); !ok {
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: the page %s has no affordance %q; fetch_affordances lists them (its ids: %s)", aal.Visible(page.URL), aal.Visible(in.Action), aal.Visible(strings.Join(page.IDs(), ", ")))
	}
	if b.origin != "" {
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: this endpoint does not operate pages without an Affordances graph; %s has none (credentials %s)", aal.Visible(page.URL), t.creds)
	}
	opts := &browser.Options{}
	if t.configured && b.opts.BrowserProfile != "" {
		opts.Profile = b.opts.BrowserProfile
		b.profile.Lock()
		defer b.profile.Unlock()
	}
	br, err := browser.Start(ctx, opts)
	if err != nil {
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: operating %s needs a browser: %w", aal.Visible(page.URL), err)
	}
	defer br.Close()
	op := &aalbrowser.Operator{Browser: br, Profile: opts.Profile != "", HTTP: t.hc, Origin: t.origin, Gate: t.gate, Approver: a}
	site, _ := url.Parse(t.origin + "/")
	if t.configured && t.hc.Jar != nil {
		op.Cookies = t.hc.Jar.Cookies(site)
	}
	r, err := op.Execute(ctx, t.url(), in.Action, input)
	if r != nil && t.configured && t.hc.Jar != nil && len(r.Cookies) > 0 {
		t.hc.Jar.SetCookies(site, r.Cookies)
	}
	where := aal.Visible(pathOf(page.URL))
	switch {
	case a.pending != nil:
		// Ask the person; the SDK retries this call with their answer.
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{a.pendingID: a.pending}}, ExecuteOutput{}, nil
	case a.cannot != nil:
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: a person must approve this call, and this MCP client cannot ask them (it does not support form elicitation); nothing was clicked. %s (credentials %s)", describe(a.cannot), t.creds)
	case errors.Is(err, agent.ErrNotApproved):
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: the person did not approve %s on %s; nothing was clicked (credentials %s)", aal.Visible(in.Action), where, t.creds)
	case errors.Is(err, agent.ErrRefused):
		return nil, ExecuteOutput{}, fmt.Errorf("mcpbridge: the person's gate refused %s on %s; nothing was clicked: %s (credentials %s)", aal.Visible(in.Action), where, aal.Visible(strings.TrimPrefix(err.Error(), agent.ErrRefused.Error()+": ")), t.creds)
	case err != nil:
		return nil, ExecuteOutput{}, siteErr(err, t.creds)
	}
	next, nextText := summariseAAL(r.Next, t.gate)
	next.Credentials = t.creds
	out := ExecuteOutput{OK: true, Page: where, Action: aal.Visible(in.Action), Approved: r.Approved, Did: visibleAll(r.Did), Next: &next, Credentials: t.creds}
	text := "ok\ndid: " + strings.Join(out.Did, ", ") + "\n"
	if r.Sent != "" {
		out.Sent = r.Method + " " + aal.Visible(r.Sent)
		text += "sent: " + out.Sent + "\n"
	}
	return textResult(header(t.creds, r.Approved, modeltext.Path(pathOf(page.URL)), modeltext.Name(in.Action)) + text + "next " + nextText), out, nil
}

// sitePath returns the delta's redirect when it is a path of the site
// ("/orders/7", not "//elsewhere" nor a URL); false when there is none.
func sitePath(d *affordances.Delta) (string, bool) {
	if d == nil || !crawl.IsPath(d.Redirect) || strings.Contains(d.Redirect, " ") {
		return "", false
	}
	u, err := url.Parse(d.Redirect)
	if err != nil {
		return "", false
	}
	return u.RequestURI(), true
}

// pathOf returns the path and query of a URL.
func pathOf(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.RequestURI()
}

// result is execute_affordance's answer for the delta d of a call, or its
// error; its text says what changed since the model was shown the page's
// entities (shown; nil: it was shown none, and they are written whole).
func result(p *agent.Page, in ExecuteInput, d *affordances.Delta, err error, approved bool, creds string, shown map[string]any) (*mcp.CallToolResult, ExecuteOutput, error) {
	var de *affordances.Error
	if err != nil && d == nil && !errors.As(err, &de) {
		return nil, ExecuteOutput{}, siteErr(err, creds)
	}
	out := ExecuteOutput{OK: d != nil && d.OK, Page: aal.Visible(p.Graph.Page), Action: aal.Visible(in.Action), Approved: approved, Credentials: creds}
	if d != nil {
		out.Delta, _ = visibleJSON(d).(map[string]any)
	}
	if out.Delta == nil && de != nil {
		out.Delta, _ = visibleJSON(map[string]any{"ok": false, "error": de}).(map[string]any)
	}
	if d == nil {
		d = &affordances.Delta{Error: de}
	}
	res := textResult(executeText(p, in, d, approved, creds, nil, shown))
	res.IsError = !out.OK
	return res, out, nil
}

// executeText is execute_affordance's text for a page with a graph: the
// call, the delta (what changed since the model was shown shown), and the
// site's approval page when there is one.
func executeText(p *agent.Page, in ExecuteInput, d *affordances.Delta, approved bool, creds string, page *ApprovalPage, shown map[string]any) string {
	text := header(creds, approved, modeltext.Path(p.Path()), modeltext.Name(in.Action)) + modeltext.DeltaSince(d, shown)
	if page != nil {
		text += "approval page " + modeltext.Path(page.URL) + "  state " + page.State + "  expires " + page.Expires.UTC().Format(time.RFC3339) + "\n"
		if page.Next != "" {
			text += "next: " + page.Next + "\n"
		}
	}
	return text
}

// onPage answers a call the site wants approved on its approval page
// (a.page): it ran once the person approved there; or the bridge sends
// the person there by URL elicitation; or the result gives the page for
// the model to send the person to, with nothing run.
func (b *bridge) onPage(ctx context.Context, a *approver, p *agent.Page, in ExecuteInput, d *affordances.Delta, err error, creds string, shown map[string]any) (*mcp.CallToolResult, ExecuteOutput, error) {
	r := a.page
	page := &ApprovalPage{URL: aal.Visible(r.URL), Expires: r.Expires, State: approvalPending}
	open := "open " + page.URL + " in their own browser, signed in to " + aal.Visible(r.Origin) + ", and approve there"
	retry := fmt.Sprintf(" Then call execute_affordance again with the same url, action and input: it runs once they approved there, before %s.", r.Expires.Format(time.RFC3339))
	switch {
	case err == nil:
		a.complete(ctx, b.opts.Logger)
		page.State = approvalApproved
	case a.pending != nil && (errors.Is(err, agent.ErrApprovalTimeout) || errors.Is(err, errAsking)):
		// Not approved yet: send the person to the page; the SDK retries
		// this call with their answer.
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{a.pendingID: a.pending}}, ExecuteOutput{}, nil
	case errors.Is(err, agent.ErrNotApproved) && a.looked:
		a.complete(ctx, b.opts.Logger)
		page.State = approvalDenied
		page.Next = "The person denied this call on the site's approval page. Nothing was done; do not try again unless the person asks."
	case errors.Is(err, agent.ErrNotApproved):
		page.Next = "The person declined to open the site's approval page. Nothing was done. If they change their mind, they can " + open + "." + retry
	case errors.Is(err, agent.ErrApprovalTimeout) && a.waited:
		page.Next = "The person has not approved this call on the site's approval page yet. Nothing was done. They can still " + open + "." + retry
	case errors.Is(err, errAsking) && !a.configured && !a.canURL:
		page.Next = "A person must approve this call on the site's own page, and this site is not one the person configured: its page's word is not taken for theirs, " +
			"and this MCP client cannot send them there (URL elicitation). Nothing was done, and calling again changes nothing. " +
			"It can run once the person configures the site in the bridge, or through a client that can send them to the page."
	case errors.Is(err, agent.ErrApprovalTimeout), errors.Is(err, errAsking):
		page.Next = "A person must approve this call on the site's own page; you cannot approve it. Nothing was done. Ask the person to " + open + "." + retry
		if !a.canURL {
			page.Next = "A person must approve this call on the site's own page; you cannot approve it, and this MCP client cannot open the page for them. Nothing was done. Ask the person to " + open + "." + retry
		}
	default:
		// The site's answer to the confirmed call, or a failure: as any.
		return result(p, in, d, err, false, creds, shown)
	}
	res, out, rerr := result(p, in, d, nil, err == nil, creds, shown)
	if rerr == nil {
		out.Approval = page
		if d == nil {
			d = &affordances.Delta{}
		}
		res.Content = []mcp.Content{&mcp.TextContent{Text: executeText(p, in, d, err == nil, creds, page, shown)}}
	}
	if rerr == nil && page.State == approvalPending {
		res.Content = append(res.Content, &mcp.ResourceLink{URI: page.URL, Name: "approval page", Title: "The site's approval page",
			MIMEType: "text/html", Description: "Where the person approves or denies this call, in their own browser, signed in."})
	}
	return res, out, rerr
}
