package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/browser"
)

// The viewport of both browser modes, in CSS pixels at one device pixel
// each: a laptop's browser window.
const (
	viewportWidth  = 1280
	viewportHeight = 800
)

// confirmButton finds the button of a confirmation page: the one of the
// form that posts the action again with the person's confirmation.
const confirmButton = `form:has(input[name="` + affordances.FormConfirmField + `"][value="yes"]) button:not([type="button"]):not([type="reset"])`

// ScreenshotMode is the browser agent that sees pages as screenshots: in
// headless Chromium (through internal/browser) at 1280×800, it performs each
// step of a plan as UI interactions (going to the step's page, filling a
// field, choosing an option, clicking the element the step's AAL
// affordance selects) and looks at a screenshot of the viewport after
// each. Before it acts on an element below the viewport it scrolls down
// a viewport at a time until it sees the element whole, and on a task
// that only reads a page it scrolls through the page's main content: each
// scroll is an interaction with its screenshot. Each screenshot is counted by Anthropic's and OpenAI's image
// formulas.
//
// A ScreenshotMode is safe for concurrent use: each Run has a page of its
// own, with its own cookies. Call [ScreenshotMode.Close] when done.
type ScreenshotMode struct {
	opts ScreenshotOptions

	mu      sync.Mutex
	started *browser.Browser // the browser the mode started, if it did
	closed  bool
}

// ScreenshotOptions configures [NewScreenshotMode]. The zero value is the
// default.
type ScreenshotOptions struct {
	// Browser is the Chromium the mode opens its pages in. Nil: the mode
	// starts its own on its first Run (browser.Start, which finds Debian's
	// /usr/bin/chromium or $CHROMIUM) and stops it on Close.
	Browser *browser.Browser
}

// NewScreenshotMode returns the screenshot mode; it starts its Chromium on
// [ScreenshotMode.Start] or its first Run. opts may be nil.
func NewScreenshotMode(opts *ScreenshotOptions) *ScreenshotMode {
	m := &ScreenshotMode{}
	if opts != nil {
		m.opts = *opts
	}
	return m
}

// startScreenshotMode starts the screenshot mode for a whole run of the
// bench.
func startScreenshotMode(ctx context.Context) (Mode, func() error, error) {
	m := NewScreenshotMode(nil)
	if err := m.Start(ctx); err != nil {
		return nil, nil, err
	}
	return m, m.Close, nil
}

// Name is "screenshot".
func (*ScreenshotMode) Name() string { return "screenshot" }

// Start starts the mode's Chromium, unless it runs or was given
// ([ScreenshotOptions.Browser]). Without Chromium the error wraps
// [browser.ErrNoChromium].
func (m *ScreenshotMode) Start(ctx context.Context) error {
	_, err := m.browser(ctx)
	return err
}

// Close stops the browser the mode started, if it did.
func (m *ScreenshotMode) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.started == nil {
		return nil
	}
	err := m.started.Close()
	m.started = nil
	return err
}

// browser returns the browser to open pages in, started on first use.
func (m *ScreenshotMode) browser(ctx context.Context) (*browser.Browser, error) {
	if m.opts.Browser != nil {
		return m.opts.Browser, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("bench: the screenshot mode is closed")
	}
	if m.started == nil {
		b, err := browser.Start(ctx, &browser.Options{Width: viewportWidth, Height: viewportHeight})
		if err != nil {
			return nil, fmt.Errorf("bench: the screenshot mode: %w", err)
		}
		m.started = b
	}
	return m.started, nil
}

// Run performs t's plan on d in a new page of its own.
func (m *ScreenshotMode) Run(ctx context.Context, t *Task, d *Demo, rec *Recorder) error {
	b, err := m.browser(ctx)
	if err != nil {
		return err
	}
	p, err := b.NewPage(ctx)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer p.Close()
	if err := p.SetViewport(ctx, viewportWidth, viewportHeight); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if d.Session != nil {
		c := *d.Session
		c.Path, c.HttpOnly, c.SameSite = "/", true, http.SameSiteLaxMode
		if err := p.SetCookie(ctx, d.URL, &c); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	return runUI(ctx, t, d, &chromedpDriver{p: p, rec: rec})
}

// chromedpDriver is the screenshot mode's browser: a page of package
// browser, observed by screenshots of its viewport.
type chromedpDriver struct {
	p   *browser.Page
	rec *Recorder
}

func (c *chromedpDriver) goTo(ctx context.Context, url string) (int, error) {
	resp, err := c.p.Navigate(ctx, url)
	if err != nil {
		return 0, err
	}
	return status(resp), nil
}

func (c *chromedpDriver) location(ctx context.Context) (string, error) { return c.p.URL(ctx) }

func (c *chromedpDriver) operate(ctx context.Context, a aal.Affordance, input map[string]any, click bool, each func(string) error) (uiResult, error) {
	if !click {
		return uiResult{}, c.p.Prepare(ctx, a, input, each)
	}
	resp, err := c.p.Operate(ctx, a, input, each)
	if err != nil {
		return uiResult{}, err
	}
	n, err := c.p.Count(ctx, confirmButton)
	if err != nil {
		return uiResult{}, err
	}
	return uiResult{status: status(resp), confirming: n == 1}, nil
}

func (c *chromedpDriver) confirm(ctx context.Context, id string, each func(string) error) (int, error) {
	resp, err := c.p.Click(ctx, confirmButton)
	if err != nil {
		return 0, err
	}
	return status(resp), each("confirm " + id)
}

// maxScrolls bounds the scrolls of one reveal: a page 20 viewports tall
// is past what the bench's pages are.
const maxScrolls = 20

// reveal scrolls down a viewport at a time, as a person reading the page
// does, until the bottom of the first element selector matches is in the
// viewport (the whole page, when none matches), calling each after each
// scroll.
func (c *chromedpDriver) reveal(ctx context.Context, selector string, each func(what string) error) error {
	sel, _ := json.Marshal(selector) // a string always encodes
	const where = `(sel => {
		const e = document.querySelector(sel), r = e && e.getBoundingClientRect();
		const d = document.documentElement;
		return {seen: !!r && r.bottom <= innerHeight + 1, end: scrollY + innerHeight >= d.scrollHeight - 1};
	})(%s)`
	for range maxScrolls {
		var at struct{ Seen, End bool }
		if err := c.p.Eval(ctx, fmt.Sprintf(where, sel), &at); err != nil {
			return err
		}
		if at.Seen || at.End {
			return nil
		}
		var ignored any
		if err := c.p.Eval(ctx, `scrollBy(0, innerHeight)`, &ignored); err != nil {
			return err
		}
		if err := each("scroll down"); err != nil {
			return err
		}
	}
	return nil
}

func (c *chromedpDriver) observe(ctx context.Context, step int, what string) error {
	png, err := c.p.Screenshot(ctx, viewportWidth, viewportHeight)
	if err != nil {
		return err
	}
	return c.rec.Image(step, what, png, viewportWidth, viewportHeight)
}

// status is the HTTP status of a document the page loaded, 0 for none.
func status(r *browser.Response) int {
	if r == nil {
		return 0
	}
	return r.Status
}

// A uiDriver is a browser a UI agent acts through, and what it sees of
// it: the screenshot mode's Chromium, the axtree mode's Playwright.
type uiDriver interface {
	// goTo loads url and returns its status.
	goTo(ctx context.Context, url string) (int, error)
	// location returns the page's address.
	location(ctx context.Context) (string, error)
	// operate fills in the form of a's element from input and, when click
	// is set, clicks it, calling each after each interaction (as
	// [browser.Page.Operate] does). An element absent or unusable is an
	// error wrapping [browser.ErrUnavailable].
	operate(ctx context.Context, a aal.Affordance, input map[string]any, click bool, each func(what string) error) (uiResult, error)
	// confirm clicks the confirmation page's button and calls each.
	confirm(ctx context.Context, id string, each func(what string) error) (int, error)
	// observe records what the agent sees now, as the observation of
	// step.
	observe(ctx context.Context, step int, what string) error
}

// A viewportDriver is a uiDriver whose observations show the viewport
// only, so the agent scrolls to see what the task needs: the screenshot
// mode's. The axtree mode's snapshots hold the whole page.
type viewportDriver interface {
	uiDriver
	// reveal scrolls until the first element selector matches is seen
	// whole (the whole page, when none matches), calling each after each
	// scroll.
	reveal(ctx context.Context, selector string, each func(what string) error) error
}

// uiResult is what a click led to: the status of the page it loaded (0:
// none) and whether that page asks the person to confirm.
type uiResult struct {
	status     int
	confirming bool
}

// runUI performs t's plan on d as a browser agent does, through drv: the
// start page, then for each step the step's page (a navigation, when the
// agent is elsewhere) and the interactions of the step's affordance, with
// an observation after each.
func runUI(ctx context.Context, t *Task, d *Demo, drv uiDriver) error {
	code, err := drv.goTo(ctx, d.URL+t.Start)
	if err != nil {
		return fmt.Errorf("bench: start %s: %w", t.Start, err)
	}
	if code >= 400 {
		return fmt.Errorf("bench: start %s: the page answered %d", t.Start, code)
	}
	u := &uiRun{d: d, drv: drv}
	if err := drv.observe(ctx, 0, "start "+t.Start); err != nil {
		return err
	}
	if len(t.Plan) == 0 {
		// A read of the start page: the agent reads its main content.
		return u.reveal(ctx, "main")
	}
	return eachStep(ctx, t, d, func(s Step) error { return u.step(ctx, s) })
}

// uiRun is one run of a browser agent: how many interactions it made.
type uiRun struct {
	d   *Demo
	drv uiDriver
	n   int
}

// reveal scrolls, when the agent sees the viewport only, until the
// element selector matches is seen whole.
func (u *uiRun) reveal(ctx context.Context, selector string) error {
	if v, ok := u.drv.(viewportDriver); ok {
		return v.reveal(ctx, selector, u.seen(ctx))
	}
	return nil
}

// seen counts one interaction and observes the page after it.
func (u *uiRun) seen(ctx context.Context) func(what string) error {
	return func(what string) error {
		u.n++
		return u.drv.observe(ctx, u.n, what)
	}
}

func (u *uiRun) step(ctx context.Context, s Step) error {
	here, err := u.drv.location(ctx)
	if err != nil {
		return err
	}
	if pageOf(here) != s.Page {
		// An agent clicks a link or types the address: one interaction.
		code, err := u.drv.goTo(ctx, u.d.URL+s.Page)
		if err != nil {
			return err
		}
		if code >= 400 {
			return fmt.Errorf("the page answered %d", code)
		}
		if err := u.seen(ctx)("go to " + s.Page); err != nil {
			return err
		}
	}
	a, expose, err := lookUp(ctx, u.d, s)
	if err != nil {
		return err
	}
	if err := u.reveal(ctx, a.Selector); err != nil {
		return err
	}
	each := u.seen(ctx)
	switch s.Outcome {
	case Done:
		r, err := u.drv.operate(ctx, a, s.Input, true, each)
		if err != nil {
			return err
		}
		return r.done()
	case Confirmed:
		r, err := u.drv.operate(ctx, a, s.Input, true, each)
		if err != nil {
			return err
		}
		if !r.confirming {
			return fmt.Errorf("the click led to no confirmation page (status %d)", r.status)
		}
		code, err := u.drv.confirm(ctx, a.ID, each)
		if err != nil {
			return err
		}
		return uiResult{status: code}.done()
	case NeedsPerson:
		if expose == affordances.ExposeConfirm {
			// The site asks the person before anything runs: the agent
			// clicks, reads the confirmation page, and the person says no.
			r, err := u.drv.operate(ctx, a, s.Input, true, each)
			if err != nil {
				return err
			}
			if !r.confirming {
				return fmt.Errorf("the click led to no confirmation page (status %d)", r.status)
			}
			return nil
		}
		// The agent's gate asks the person before the click, and the
		// person says no: the fields are filled in, nothing is sent.
		if v := (&aal.Gate{}).Decide(u.d.URL, a, string(expose)); v.Decision != aal.Ask {
			return fmt.Errorf("the gate decides %s, not ask: %s", v.Decision, strings.Join(v.Reasons, " "))
		}
		_, err := u.drv.operate(ctx, a, s.Input, false, each)
		return err
	case Refused:
		// The page shows the action unavailable (a disabled button with
		// its reason, or none): the agent has seen it and stops.
		_, err := u.drv.operate(ctx, a, s.Input, false, each)
		switch {
		case errors.Is(err, browser.ErrUnavailable):
			return nil
		case err == nil:
			return errors.New("the element is there and usable: want the action unavailable")
		}
		return err
	}
	return fmt.Errorf("unknown outcome %q", s.Outcome)
}

// done checks a click ran its action: the page it loaded is no error and
// no confirmation.
func (r uiResult) done() error {
	switch {
	case r.confirming:
		return errors.New("the site asks to confirm: want the action done")
	case r.status >= 400:
		return fmt.Errorf("the page answered %d", r.status)
	}
	return nil
}

// pageOf returns the path and query of a page's address.
func pageOf(address string) string {
	u, err := url.Parse(address)
	if err != nil {
		return address
	}
	return u.RequestURI()
}

// lookUp returns the AAL affordance of s's action on s's page and the
// action's expose: what the oracle knows, never charged to the agent (a
// browser agent reads the same from the page). An action the page does not
// list gets its default selector.
func lookUp(ctx context.Context, d *Demo, s Step) (aal.Affordance, affordances.Expose, error) {
	id := aal.ID(s.Action)
	path, query, _ := strings.Cut(s.Page, "?")
	fragment := aal.FragmentPath(path)
	if query != "" {
		fragment += "?" + query
	}
	var f aal.Fragment
	if err := getJSON(ctx, d, fragment, "application/json", &f); err != nil {
		return aal.Affordance{}, "", err
	}
	var g affordances.Graph
	if err := getJSON(ctx, d, s.Page, affordances.MediaType, &g); err != nil {
		return aal.Affordance{}, "", err
	}
	var expose affordances.Expose
	for _, a := range g.Actions {
		if a.Name == s.Action {
			expose = a.Expose
		}
	}
	for _, a := range f.Affordances {
		if a.ID == id {
			return a, expose, nil
		}
	}
	if s.Outcome == Refused {
		return aal.Affordance{ID: id, Selector: aal.Selector(s.Action)}, expose, nil
	}
	return aal.Affordance{}, "", fmt.Errorf("the page's AAL fragment has no affordance %s", id)
}

// lookUpClient reads what lookUp needs, redirects not followed.
var lookUpClient = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// getJSON reads the JSON document at path on d, as d's session, into v.
func getJSON(ctx context.Context, d *Demo, path, accept string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.URL+path, nil)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	req.Header.Set("Accept", accept)
	if d.Session != nil {
		req.AddCookie(&http.Cookie{Name: d.Session.Name, Value: d.Session.Value})
	}
	resp, err := lookUpClient.Do(req)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("bench: GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("bench: GET %s: %s: %.200s", path, resp.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("bench: GET %s: %w", path, err)
	}
	return nil
}
