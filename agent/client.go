package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/crawl"
	"github.com/affordances/affordances-go/internal/mediatype"
	"github.com/affordances/affordances-go/internal/weborigin"
	"github.com/affordances/affordances-go/internal/wirecheck"
)

// Options configures a [Client]. The zero value of every field is a
// sound default; New copies the struct.
type Options struct {
	// Token is a bearer token. Empty: the client authenticates with the
	// cookies of its http.Client's Jar, if any, and sends the site's
	// Origin on every call so cookie calls pass the origin rule
	// (docs/protocol.md decision 4).
	Token string

	// Approver is asked before any call that needs a person (see
	// [Approver]). Nil: such calls are not sent and fail with
	// [ErrNotApproved].
	Approver Approver

	// Gate decides which calls need a person, from the page's AAL fragment
	// and the person's grants (docs/protocol.md decision 8). Nil: the zero gate, which
	// asks for every risky call.
	Gate *aal.Gate

	// FollowRedirects makes [Page.Call] load the delta's redirect, so the
	// page becomes the one a person would have been sent to. A redirect
	// that is not a page with a graph (a CSV download, a plain page, another
	// origin) is left unfollowed: the call still succeeds, the page stays
	// where it was ([Page.Path] is not the delta's Redirect), and the
	// delta's Redirect says where a person would go.
	FollowRedirects bool

	// MaxRetries bounds the retries of one call: after a 429 (waiting
	// Retry-After) or a network error (with the same Idempotency-Key, so
	// the server runs it once). Zero: 3; negative: none.
	MaxRetries int

	// MaxRetryAfter is the longest Retry-After the client waits; a longer
	// one fails the call with the server's rate_limited delta. Zero: 60s.
	MaxRetryAfter time.Duration

	// UserAgent is sent on every request. Empty: "affordances-go".
	UserAgent string

	// ApprovalTimeout bounds the wait for a person's decision on the site's
	// approval page (human-verified confirmation). Zero: until the
	// approval expires.
	ApprovalTimeout time.Duration

	// OnApprovalWait, when set, is called at each check of a pending
	// approval, with the time waited so far: a command line shows progress
	// with it.
	OnApprovalWait func(req *ApprovalRequest, waited time.Duration)
}

// A Client reads and operates an Affordances site for an agent: the site
// index, page graphs with their AAL fragments, and calls gated by a
// person's approval. It is safe for concurrent use; a [Page] is not.
type Client struct {
	hc     *http.Client
	base   *url.URL
	origin string
	opts   Options
	start  string // the path of the page New was given, "" for the origin

	linksMu sync.Mutex
	links   map[string]string // the start page's Link headers, by rel, once it answered

	manifestMu    sync.Mutex
	manifestKnown bool
	manifest      *aal.Manifest
}

// supportedVersions lists the protocol majors this client reads.
var supportedVersions = []string{affordances.Version}

// Errors of the client, matched with errors.Is.
var (
	// ErrNotApproved: the call needed a person's approval and did not get
	// it; nothing that could run was sent.
	ErrNotApproved = errors.New("agent: the call needs a person's approval")
	// ErrRefused: the gate refused the call whatever a person would say
	// (an affordance that breaks AAL's rules, or no person to ask).
	ErrRefused = errors.New("agent: the gate refused the call")
	// ErrUnsupportedVersion: the site speaks a protocol major this client
	// does not.
	ErrUnsupportedVersion = errors.New("agent: unsupported protocol version")
	// ErrProtocol: the site answered something that is not an Affordances
	// document where one was due.
	ErrProtocol = errors.New("agent: protocol error")
)

// New returns a client for the site at baseURL (scheme, host and
// optional port). A path, when baseURL has one, is a page of the site:
// when the origin has no site index or AAL manifest at its /.well-known/,
// the client reads those that page names in its Link headers
// (rel="affordances-index", rel="agent-affordances"), as a site under a
// path prefix does (docs/protocol.md decision 13). hc nil means http.DefaultClient;
// give one with a Jar for cookie sessions. opts may be nil.
func New(hc *http.Client, baseURL string, opts *Options) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agent: New: %q is not an http(s) URL", baseURL)
	}
	origin, err := weborigin.Parse(u.Scheme + "://" + u.Host)
	if err != nil {
		return nil, fmt.Errorf("agent: New: %q: %w", baseURL, err)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	c := &Client{hc: hc, base: &url.URL{Scheme: u.Scheme, Host: u.Host}, origin: origin}
	if u.Path != "" && u.Path != "/" {
		c.start = u.EscapedPath()
	}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.MaxRetries == 0 {
		c.opts.MaxRetries = 3
	}
	if c.opts.MaxRetryAfter == 0 {
		c.opts.MaxRetryAfter = time.Minute
	}
	if c.opts.UserAgent == "" {
		c.opts.UserAgent = "affordances-go"
	}
	return c, nil
}

// Origin returns the site's origin, as the gate and the origin rule see it.
func (c *Client) Origin() string { return c.origin }

// Index fetches the site index (docs/protocol.md §24). A site without
// one is a not_found [*affordances.Error], in the site's words when its 404
// is an error delta.
func (c *Client) Index(ctx context.Context) (*affordances.SiteIndex, error) {
	body, found, err := c.get(ctx, affordances.IndexPath, affordances.MediaType)
	if err != nil {
		return nil, err
	}
	if !found { // the page's links are read only when the origin has none
		if p := c.linked(ctx, crawl.RelIndex); p != "" {
			if body, found, err = c.get(ctx, p, affordances.MediaType); err != nil {
				return nil, err
			}
		}
	}
	if !found {
		if de := errorDelta(body); de != nil {
			return nil, de
		}
		return nil, affordances.NewError(affordances.NotFound, "The site publishes no Affordances site index.")
	}
	var idx affordances.SiteIndex
	if err := json.Unmarshal(body, &idx); err != nil {
		return nil, fmt.Errorf("%w: %s is not JSON: %v", ErrProtocol, affordances.IndexPath, err)
	}
	if err := checkVersion(idx.V, affordances.IndexPath); err != nil {
		return nil, err
	}
	return &idx, nil
}

// linked returns the path of the site's document rel ("affordances-index",
// "agent-affordances") that the page New was given names in its Link
// headers, for a site under a path prefix whose origin's /.well-known/
// is not its own (docs/protocol.md decision 13); "" when there is none, or it is not
// a path of the site. The page is read once it answered: a read that
// failed (the network, a cancelled ctx, a 5xx) is tried again next time.
func (c *Client) linked(ctx context.Context, rel string) string {
	if c.start == "" {
		return ""
	}
	c.linksMu.Lock()
	defer c.linksMu.Unlock()
	if c.links == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.resolve(c.start), nil)
		if err != nil {
			return ""
		}
		req.Header.Set("Accept", "text/html")
		c.authorize(req)
		res, err := c.hc.Do(req)
		if err != nil {
			return ""
		}
		res.Body.Close()
		if res.StatusCode >= 500 {
			return "" // the site failed: ask again next time
		}
		c.links = crawl.DocumentLinks(res.Header)
	}
	return c.links[rel]
}

// Manifest fetches the site's AAL manifest; nil and no error when the site
// publishes none. An answer is kept for the client's life; a failure is
// not, so a later call tries again.
func (c *Client) Manifest(ctx context.Context) (*aal.Manifest, error) {
	c.manifestMu.Lock()
	defer c.manifestMu.Unlock()
	if c.manifestKnown {
		return c.manifest, nil
	}
	var m aal.Manifest
	found, err := c.getJSON(ctx, aal.ManifestPath, "application/json", &m)
	if err != nil {
		return nil, err
	}
	if !found {
		if p := c.linked(ctx, crawl.RelManifest); p != "" {
			if found, err = c.getJSON(ctx, p, "application/json", &m); err != nil {
				return nil, err
			}
		}
	}
	c.manifestKnown = true
	if found {
		c.manifest = &m
	}
	return c.manifest, nil
}

// A Page is one page of the site as the client last saw it: its graph and,
// when the site publishes AAL, its fragment. Calls update it in place. A
// Page is not safe for concurrent use.
type Page struct {
	// Graph is the page's graph, with every delta since it was loaded
	// applied.
	Graph affordances.Graph
	// Fragment is the page's AAL fragment; nil when the site has none.
	Fragment *aal.Fragment

	client *Client
	path   string // with the query, as requested
}

// Page loads the graph at path ("/products/canvas-tote", a query allowed)
// and, when the site publishes AAL, the page's fragment. A page the site
// does not have is its not_found [*affordances.Error], with the message as
// the site wrote it ("No such product."); the client's own ("This page has
// no Affordances graph.") only when the site's 404 says nothing.
func (c *Client) Page(ctx context.Context, path string) (*Page, error) {
	p := &Page{client: c}
	if err := p.load(ctx, path); err != nil {
		return nil, err
	}
	return p, nil
}

// Path returns the path the page was loaded from.
func (p *Page) Path() string { return p.path }

func (p *Page) load(ctx context.Context, path string) error {
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") {
		return fmt.Errorf("agent: a page path starts with one /: %q", path)
	}
	body, found, err := p.client.get(ctx, path, affordances.MediaType)
	if err != nil {
		return err
	}
	if !found {
		// The site's own words ("No such product."), when its 404 says any.
		if de := errorDelta(body); de != nil {
			return de
		}
		return affordances.NewError(affordances.NotFound, "This page has no Affordances graph.")
	}
	var g affordances.Graph
	if err := json.Unmarshal(body, &g); err != nil {
		return fmt.Errorf("%w: %s is not JSON: %v", ErrProtocol, path, err)
	}
	if err := checkVersion(g.V, path); err != nil {
		return err
	}
	if !crawl.IsPath(g.Page) {
		return fmt.Errorf("%w: the graph of %s says its page is %q, which is not a path", ErrProtocol, path, aal.Visible(g.Page))
	}
	p.Graph, p.path = g, path
	return p.refreshFragment(ctx)
}

// refreshFragment loads the page's AAL fragment through the manifest.
func (p *Page) refreshFragment(ctx context.Context) error {
	p.Fragment = nil
	m, err := p.client.Manifest(ctx)
	if err != nil || m == nil {
		return err
	}
	for _, r := range m.Routes {
		if r.Route != p.Graph.Route {
			continue
		}
		path := aal.FragmentFor(r.Fragment, r.Route, p.Graph.Page)
		if _, q, ok := strings.Cut(p.path, "?"); ok {
			path += "?" + q
		}
		body, found, err := p.client.get(ctx, path, "application/json")
		if err != nil || !found {
			return err
		}
		if problems := aal.ValidateFragment(body); len(problems) > 0 {
			// An invalid fragment is no reason to trust the action more:
			// keep it out, and the gate treats the action as unknown.
			return nil
		}
		var f aal.Fragment
		if err := json.Unmarshal(body, &f); err != nil {
			return nil
		}
		p.Fragment = &f
		return nil
	}
	return nil
}

// Action returns the page's descriptor of the named action.
func (p *Page) Action(name string) (affordances.ActionDescriptor, bool) {
	for _, a := range p.Graph.Actions {
		if a.Name == name {
			return a, true
		}
	}
	return affordances.ActionDescriptor{}, false
}

// Affordance returns the AAL affordance of the named action (id [aal.ID] of
// the name) when the page's fragment has one.
func (p *Page) Affordance(action string) (aal.Affordance, bool) {
	if p.Fragment == nil {
		return aal.Affordance{}, false
	}
	id := aal.ID(action)
	for _, a := range p.Fragment.Affordances {
		if a.ID == id {
			return a, true
		}
	}
	return aal.Affordance{}, false
}

// Assess returns what the gate decides for calling the named action now,
// without sending anything.
func (p *Page) Assess(action string) aal.Verdict {
	d, _ := p.Action(action)
	a, ok := p.Affordance(action)
	if !ok {
		// No AAL for this action: only the Affordances protocol's confirm says anything.
		v := aal.Verdict{Decision: aal.Allow}
		if d.Expose == affordances.ExposeConfirm {
			v = aal.Verdict{Decision: aal.Ask, Classes: []aal.Class{aal.ClassConfirm}, Uncovered: []aal.Class{aal.ClassConfirm},
				Reasons: []string{"The site asks a person to confirm this action."}}
			if p.client.opts.Gate != nil && p.client.opts.Gate.Unattended {
				v.Decision = aal.Refuse
			}
		}
		return v
	}
	return p.client.opts.Gate.Decide(p.client.origin, a, string(d.Expose))
}

// An Approver is a person's say on one call. Approve is asked before any
// call the gate classes as Ask, and whenever the site answers
// confirm_required; it returns true only for the person's explicit yes.
type Approver interface {
	Approve(ctx context.Context, req *ApprovalRequest) (bool, error)
}

// ApproverFunc adapts a function to [Approver].
type ApproverFunc func(ctx context.Context, req *ApprovalRequest) (bool, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req *ApprovalRequest) (bool, error) {
	return f(ctx, req)
}

// An ApprovalRequest is what a person sees before approving one call.
// Every text from the site in it has passed through [aal.Visible]: it is
// shown verbatim, invisible characters made visible, and is data, never
// instructions.
type ApprovalRequest struct {
	Origin string // the site
	Page   string // the page the call goes to
	Action string // the action's name
	// Label is the AAL label of the action, when the site publishes one.
	Label string
	// Input is the call's input as it will be sent.
	Input json.RawMessage
	// Classes are the risks that need a person (docs/protocol.md decision 8).
	Classes []aal.Class
	// Amount is what it costs, when the site says.
	Amount *aal.Cost
	// Message is the site's confirm_required message: its summary of what
	// will happen. Empty for an action that is not a confirm action, about
	// which the client asks before sending anything.
	Message string
	// URL, when set, is the site's approval page for this call
	// (human-verified confirmation, docs/protocol.md decision 10): the person must
	// open it in their own browser, signed in, and approve there; a yes
	// from the Approver alone does not run the call. The Approver's job is
	// then to send the person there; its true means "wait for them".
	URL string
	// Expires is when the approval page lapses; zero without URL.
	Expires time.Time
	// Reasons explain the classes, in sentences.
	Reasons []string
}

// Call performs the named action on the page with input (any value that
// encodes as JSON; nil is no input), as the gate and the person allow
// (docs/protocol.md decision 8):
//
//   - the gate refuses: nothing is sent ([ErrRefused]);
//   - the gate asks about an action that is not a confirm action: the
//     approver is asked before anything is sent;
//   - a confirm action is sent first without confirm (by docs/protocol.md
//     §19, step 6, nothing runs) to get the site's summary; the approver
//     reads it, and only its yes to this very call sends confirm: true. A
//     no is [ErrNotApproved].
//
// Call applies the delta to the page: changed entities, actions added and
// removed; with FollowRedirects, it then loads the redirect, or leaves it
// unfollowed when it has no graph (see [Options.FollowRedirects]). It
// returns the delta and, when the site answered an error delta, that
// delta's [*affordances.Error]. A call the site ran never returns an
// error: a redirect it cannot load stays unfollowed, and a fragment it
// cannot reload is dropped (Fragment nil).
// Every call carries an Idempotency-Key; a 429 is retried after
// Retry-After and a network error with the same key, up to MaxRetries
// times.
func (p *Page) Call(ctx context.Context, action string, input any) (*affordances.Delta, error) {
	var in json.RawMessage
	if input != nil {
		b, err := json.Marshal(input)
		if err != nil {
			return nil, fmt.Errorf("agent: encoding the input of %s: %w", action, err)
		}
		in = b
	}
	c := p.client
	verdict := p.Assess(action)
	req := &ApprovalRequest{Origin: c.origin, Page: p.path, Action: action, Input: in,
		Classes: verdict.Classes, Amount: verdict.Amount, Reasons: visibleAll(verdict.Reasons)}
	if a, ok := p.Affordance(action); ok {
		req.Label = aal.Visible(a.Label)
	}
	d, _ := p.Action(action)
	switch {
	case verdict.Decision == aal.Refuse:
		return nil, fmt.Errorf("%w: %s", ErrRefused, strings.Join(req.Reasons, " "))
	case verdict.Decision == aal.Ask && d.Expose != affordances.ExposeConfirm:
		// Nothing may be sent before the person's yes.
		if err := req.Ask(ctx, c.opts.Approver); err != nil {
			return nil, err
		}
	}
	// A confirm action is first sent without confirm: by docs/protocol.md
	// §19, step 6, nothing runs, and the site answers with its own summary,
	// which the person then reads before saying yes (docs/protocol.md
	// decision 8).
	delta, err := c.send(ctx, p.path, affordances.Call{Action: action, Input: in})
	if err != nil {
		return nil, err
	}
	if d.Expose == affordances.ExposeConfirm && delta.OK {
		return delta, fmt.Errorf("%w: the site ran %s, a confirm action, without confirm: true", ErrProtocol, action)
	}
	if !delta.OK && delta.Error != nil && delta.Error.Code == affordances.ConfirmRequired {
		req.Message = aal.Visible(delta.Error.Message)
		if !slices.Contains(req.Classes, aal.ClassConfirm) {
			req.Classes = append(req.Classes, aal.ClassConfirm)
		}
		if delta.Approval != nil {
			// Human-verified: the person decides on the site's page.
			if req.URL, err = c.approvalURL(delta.Approval.URL); err != nil {
				return delta, err
			}
			req.Expires = delta.Approval.Expires
		}
		if err := req.Ask(ctx, c.opts.Approver); err != nil {
			return delta, err
		}
		if req.URL != "" {
			if err := c.awaitApproval(ctx, req); err != nil {
				return delta, err
			}
		}
		// The person said yes to this very call: only now confirm: true.
		if delta, err = c.send(ctx, p.path, affordances.Call{Action: action, Input: in, Confirm: true}); err != nil {
			return nil, err
		}
	}
	if !delta.OK {
		if delta.Error == nil {
			return delta, fmt.Errorf("%w: a delta with ok false and no error", ErrProtocol)
		}
		return delta, delta.Error
	}
	p.apply(delta)
	if delta.Redirect != "" && c.opts.FollowRedirects {
		if next := (&Page{client: c}); next.load(ctx, delta.Redirect) == nil {
			p.Graph, p.Fragment, p.path = next.Graph, next.Fragment, next.path
			return delta, nil
		}
		// Not a page with a graph: the action ran, and the redirect stays
		// in the delta, unfollowed.
	}
	if p.Fragment != nil {
		// The fragment is computed from the state the call changed (a cost).
		// One that cannot be reloaded is dropped (the gate then treats the
		// page's actions as unknown): the call itself succeeded.
		p.refreshFragment(ctx)
	}
	return delta, nil
}

// ErrApprovalTimeout: the person did not decide on the site's approval
// page in time; the call did not run.
var ErrApprovalTimeout = errors.New("agent: no decision on the approval page in time")

// approvalURL resolves the approval page's path; it must be a page of the
// site under [affordances.ApprovalsPath] (after the site's path prefix),
// where the client's own credentials may go.
func (c *Client) approvalURL(path string) (string, error) {
	if !wirecheck.ApprovalPage(path) {
		return "", fmt.Errorf("%w: the approval page %q is not a path under %s", ErrProtocol, path, affordances.ApprovalsPath)
	}
	return c.resolve(path), nil
}

// defaultApprovalWait is how long a client waits on an approval whose
// expiry the site did not say: the life of the library's own approvals.
const defaultApprovalWait = 15 * time.Minute

// awaitApproval polls the approval page's status until the person decided,
// it expired, or ApprovalTimeout passed: nil once approved.
func (c *Client) awaitApproval(ctx context.Context, req *ApprovalRequest) error {
	deadline := req.Expires
	if c.opts.ApprovalTimeout > 0 {
		deadline = time.Now().Add(c.opts.ApprovalTimeout)
	}
	if deadline.IsZero() {
		deadline = time.Now().Add(defaultApprovalWait)
	}
	start := time.Now()
	for wait := time.Second; ; wait = min(wait*2, 5*time.Second) {
		state, err := c.approvalState(ctx, req.URL)
		switch {
		case err != nil:
			return err
		case state == affordances.ApprovalApproved:
			return nil
		case state == affordances.ApprovalDenied:
			return fmt.Errorf("%w: the person denied %s on the approval page", ErrNotApproved, req.Action)
		}
		if c.opts.OnApprovalWait != nil {
			c.opts.OnApprovalWait(req, time.Since(start))
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("%w: %s waited %s at %s", ErrApprovalTimeout, req.Action, time.Since(start).Round(time.Second), req.URL)
		}
		// The last check falls on the deadline itself.
		if err := sleep(ctx, min(wait, left)); err != nil {
			return err
		}
	}
}

// approvalState reads the approval page as JSON ([ApprovalStatus]), with the
// client's credentials: the page is the site's own.
func (c *Client) approvalState(ctx context.Context, u string) (affordances.ApprovalState, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	hr.Header.Set("Accept", affordances.MediaType)
	c.authorize(hr)
	res, err := c.hc.Do(hr)
	if err != nil {
		return "", fmt.Errorf("agent: checking the approval: %w", &crawl.UnreachableError{URL: u, Err: err})
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound {
		return "", fmt.Errorf("%w: the approval page %s is gone (expired)", ErrApprovalTimeout, u)
	}
	var st affordances.ApprovalStatus
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&st); err != nil || res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%w: the approval page %s answered %d", ErrProtocol, u, res.StatusCode)
	}
	return st.State, nil
}

// Ask asks the person, through a, to approve req: nil on their yes;
// [ErrNotApproved] when a is nil (no one to ask) or they say no. The
// action and page in its errors pass through [aal.Visible].
func (req *ApprovalRequest) Ask(ctx context.Context, a Approver) error {
	if a == nil {
		return fmt.Errorf("%w: %s on %s (%s)", ErrNotApproved, aal.Visible(req.Action), aal.Visible(req.Page), classNames(req.Classes))
	}
	ok, err := a.Approve(ctx, req)
	if err != nil {
		return fmt.Errorf("agent: asking for approval: %w", err)
	}
	if !ok {
		return fmt.Errorf("%w: the person said no to %s", ErrNotApproved, aal.Visible(req.Action))
	}
	return nil
}

// apply updates the page with a successful delta (docs/protocol.md decision 5).
func (p *Page) apply(d *affordances.Delta) {
	if p.Graph.Entities == nil {
		p.Graph.Entities = map[string]any{}
	}
	for k, v := range d.Changed {
		if v == nil {
			delete(p.Graph.Entities, k)
		} else {
			p.Graph.Entities[k] = v
		}
	}
	for _, added := range d.ActionsAdded {
		replaced := false
		for i := range p.Graph.Actions {
			if p.Graph.Actions[i].Name == added.Name {
				p.Graph.Actions[i], replaced = added, true
			}
		}
		if !replaced {
			p.Graph.Actions = append(p.Graph.Actions, added)
		}
	}
	for _, name := range d.ActionsRemoved {
		for i := range p.Graph.Actions {
			if p.Graph.Actions[i].Name == name {
				p.Graph.Actions = append(p.Graph.Actions[:i], p.Graph.Actions[i+1:]...)
				break
			}
		}
	}
}

// send posts one call, with one Idempotency-Key across its retries.
func (c *Client) send(ctx context.Context, path string, call affordances.Call) (*affordances.Delta, error) {
	body, err := json.Marshal(call)
	if err != nil {
		return nil, err
	}
	key := newKey()
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.resolve(path), bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", affordances.MediaType)
		req.Header.Set("Accept", affordances.MediaType)
		req.Header.Set("Idempotency-Key", key)
		c.authorize(req)
		if c.opts.Token == "" {
			req.Header.Set("Origin", c.origin) // a cookie call must carry it (docs/protocol.md decision 4)
		}
		res, err := c.hc.Do(req)
		if err != nil {
			if ctx.Err() != nil || attempt >= c.opts.MaxRetries {
				return nil, fmt.Errorf("agent: calling %s: %w", call.Action, &crawl.UnreachableError{URL: c.resolve(path), Err: err})
			}
			if err := sleep(ctx, backoff(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		delta, err := readDelta(res)
		if err != nil {
			return nil, fmt.Errorf("%w: calling %s on %s: %v", ErrProtocol, call.Action, path, err)
		}
		// 429, and 409 with Retry-After (the same key still running on the
		// server, docs/protocol.md decision 10), say "later": retry with the same key.
		later := res.StatusCode == http.StatusTooManyRequests || (res.StatusCode == http.StatusConflict && res.Header.Get("Retry-After") != "")
		if later && attempt < c.opts.MaxRetries {
			wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
			if d := time.Duration(max(wait, 1)) * time.Second; d <= c.opts.MaxRetryAfter {
				if err := sleep(ctx, d); err != nil {
					return nil, err
				}
				continue
			}
		}
		return delta, nil
	}
}

func readDelta(res *http.Response) (*affordances.Delta, error) {
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if !mediatype.Is(res.Header.Get("Content-Type"), affordances.MediaType) {
		return nil, fmt.Errorf("the answer is %s %q, not an Affordances delta", res.Status, res.Header.Get("Content-Type"))
	}
	var d affordances.Delta
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, fmt.Errorf("the delta is not JSON: %v", err)
	}
	if !d.OK && d.Error == nil {
		return nil, fmt.Errorf("%s: a delta with ok false and no error", res.Status)
	}
	return &d, nil
}

// getJSON GETs path asking for accept and decodes it into v; found is
// false on a 404.
func (c *Client) getJSON(ctx context.Context, path, accept string, v any) (found bool, err error) {
	body, found, err := c.get(ctx, path, accept)
	if err != nil || !found {
		return found, err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("%w: %s is not JSON: %v", ErrProtocol, path, err)
	}
	return true, nil
}

// get GETs path asking for accept; found is false on a 404, body then the
// 404's (see [errorDelta]). Another error status with an error delta
// returns that delta's [*affordances.Error].
func (c *Client) get(ctx context.Context, path, accept string) (body []byte, found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.resolve(path), nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Accept", accept)
	c.authorize(req)
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, false, fmt.Errorf("agent: %w", &crawl.UnreachableError{URL: c.resolve(path), Err: err})
	}
	defer res.Body.Close()
	body, err = io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil {
		return nil, false, fmt.Errorf("agent: GET %s: %w", path, err)
	}
	switch {
	case res.StatusCode == http.StatusOK:
		if accept == affordances.MediaType && !mediatype.Is(res.Header.Get("Content-Type"), affordances.MediaType) {
			return nil, false, fmt.Errorf("%w: GET %s answered %q, not an Affordances document", ErrProtocol, path, res.Header.Get("Content-Type"))
		}
		return body, true, nil
	case res.StatusCode == http.StatusNotFound:
		if !mediatype.Is(res.Header.Get("Content-Type"), affordances.MediaType) {
			body = nil
		}
		return body, false, nil
	}
	if de := errorDelta(body); de != nil && mediatype.Is(res.Header.Get("Content-Type"), affordances.MediaType) {
		return nil, false, de
	}
	return nil, false, fmt.Errorf("%w: GET %s answered %s", ErrProtocol, path, res.Status)
}

// errorDelta returns the error of body, an Affordances document, when it
// is an error delta; nil otherwise.
func errorDelta(body []byte) *affordances.Error {
	var d affordances.Delta
	if json.Unmarshal(body, &d) != nil || d.Error == nil {
		return nil
	}
	return d.Error
}

func (c *Client) authorize(req *http.Request) {
	req.Header.Set("User-Agent", c.opts.UserAgent)
	if c.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
}

// resolve returns the absolute URL of a site path (with its query).
func (c *Client) resolve(path string) string { return c.base.Scheme + "://" + c.base.Host + path }

func checkVersion(v, where string) error {
	for _, s := range supportedVersions {
		if v == s {
			return nil
		}
	}
	return fmt.Errorf("%w: %s speaks Affordances v%q; this client reads v%s", ErrUnsupportedVersion, where, v, strings.Join(supportedVersions, ", v"))
}

func newKey() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func backoff(attempt int) time.Duration { return time.Duration(100<<attempt) * time.Millisecond }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func visibleAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = aal.Visible(s)
	}
	return out
}

func classNames(cs []aal.Class) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}
