package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// A Page is one tab of a [Browser] in a browser context of its own: its
// cookies, storage and cache are its own, so two pages are two people.
// It records every HTTP response it receives (see [Page.Responses]).
// A Page is not safe for concurrent use.
type Page struct {
	b      *Browser
	ctx    context.Context // the tab's chromedp context
	cancel context.CancelFunc

	mu        sync.Mutex
	responses []Response
	console   []string
	markers   map[string]chan struct{} // ConsoleNow's, by their text, until they arrive
	marker    int                      // the last ConsoleNow's number
}

// A Response is one HTTP response the page received, as Chromium's
// network events report it.
type Response struct {
	URL    string
	Status int
	// ContentType is the Content-Type header as the server sent it.
	ContentType string
	// MIMEType is the media type Chromium read it as ("text/html").
	MIMEType string
	// Type is what the page loaded it for: "Document", "Stylesheet",
	// "Image", "Fetch", "XHR", "Other"...
	Type string
	// Header holds the response's headers as Chromium reports them.
	Header http.Header
}

// NewPage opens a new tab in a new browser context, or in the profile's
// own when the browser runs the person's [Options.Profile], with the
// browser's viewport ([Options.Width] by [Options.Height]). The caller
// must call [Page.Close]; [Browser.Close] closes it too.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	var opts []chromedp.ContextOption
	if b.opts.Profile == "" {
		opts = append(opts, chromedp.WithNewBrowserContext())
	}
	tctx, cancel := chromedp.NewContext(b.ctx, opts...)
	p := &Page{b: b, ctx: tctx, cancel: cancel}
	// The first Run on a chromedp context opens its tab, which lives as
	// long as the context of that Run: it must be tctx itself.
	if err := first(ctx, tctx); err != nil {
		cancel()
		return nil, fmt.Errorf("browser: opening a page: %w", err)
	}
	err := chromedp.Listen(tctx, func(ev any) {
		if ev, ok := ev.(*network.EventResponseReceived); ok && ev.Response != nil {
			p.mu.Lock()
			p.responses = append(p.responses, Response{
				URL:         ev.Response.URL,
				Status:      int(ev.Response.Status),
				ContentType: header(ev.Response.Headers, "Content-Type"),
				MIMEType:    ev.Response.MimeType,
				Type:        string(ev.Type),
				Header:      httpHeader(ev.Response.Headers),
			})
			p.mu.Unlock()
		}
	})
	if err == nil {
		messages := chromedp.Console(tctx)
		go func() {
			for m, err := range messages {
				if err != nil {
					return
				}
				p.mu.Lock()
				if arrived, ok := p.markers[m.Text]; ok && m.Type == chromedp.ConsoleDebug {
					close(arrived)
					delete(p.markers, m.Text)
				} else {
					p.console = append(p.console, m.String())
				}
				p.mu.Unlock()
			}
		}()
		err = p.SetViewport(ctx, b.opts.Width, b.opts.Height)
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("browser: opening a page: %w", err)
	}
	return p, nil
}

// first runs the first, empty, Run on the chromedp context cctx, which
// opens its browser or tab for as long as cctx lives, and gives up when ctx
// ends first.
func first(ctx, cctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(cctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// httpHeader returns h as an http.Header. Chromium joins the values of a
// repeated header with newlines.
func httpHeader(h network.Headers) http.Header {
	out := http.Header{}
	for k, v := range h {
		if s, ok := v.(string); ok {
			for _, line := range strings.Split(s, "\n") {
				out.Add(k, line)
			}
		}
	}
	return out
}

// header returns the value of a response header, whatever its case.
func header(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}

// Close closes the tab and its browser context.
func (p *Page) Close() {
	p.cancel()
}

// run runs a chromedp action on the tab, bounded by ctx as well as by the
// tab's own life.
func (p *Page) run(ctx context.Context, a chromedp.Action[chromedp.Void]) error {
	_, err := runT(ctx, p, a)
	return err
}

// runT runs a on the tab until it returns or ctx is done.
func runT[T any](ctx context.Context, p *Page, a chromedp.Action[T]) (T, error) {
	rctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	v, err := chromedp.Run(rctx, a)
	if err != nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return v, err
}

// Responses returns every HTTP response the page received since it was
// opened, in the order they arrived, subresources and fetches included.
func (p *Page) Responses() []Response {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Response(nil), p.responses...)
}

// SetViewport sets the size of the page's viewport in CSS pixels, at one
// device pixel per CSS pixel. The page reflows at once; media queries
// follow.
func (p *Page) SetViewport(ctx context.Context, width, height int) error {
	if width <= 0 || height <= 0 {
		return fmt.Errorf("browser: a viewport of %dx%d", width, height)
	}
	return p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(width), Height: int64(height), DeviceScaleFactor: 1,
		}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, emulation.SetScrollbarsHidden, emulation.SetScrollbarsHiddenParams{Hidden: true})
		return err
	}))
}

// Navigate loads url and waits for its load event. It returns the
// response of the document; an HTTP error status is not an error.
func (p *Page) Navigate(ctx context.Context, url string) (*Response, error) {
	r, err := runT(ctx, p, chromedp.NavigateResponse(url))
	if err != nil {
		return nil, fmt.Errorf("browser: loading %s: %w", url, err)
	}
	return responseOf(r), nil
}

func responseOf(r *network.Response) *Response {
	if r == nil {
		return nil
	}
	return &Response{URL: r.URL, Status: int(r.Status), ContentType: header(r.Headers, "Content-Type"), MIMEType: r.MimeType,
		Type: string(network.ResourceTypeDocument), Header: httpHeader(r.Headers)}
}

// URL returns the address of the page's document.
func (p *Page) URL(ctx context.Context) (string, error) {
	return runT(ctx, p, chromedp.Location())
}

// Click clicks, with the mouse, the one element selector (CSS) finds; none
// or several is an error, and so is a disabled or invisible element. When
// the click starts a navigation to another document (a link, a form's
// button), Click waits for that page's load event and returns the response
// of its document; otherwise it returns a nil Response.
func (p *Page) Click(ctx context.Context, selector string) (*Response, error) {
	if err := p.checkOne(ctx, selector, true); err != nil {
		return nil, err
	}
	return p.loading(ctx, "clicking "+selector, chromedp.Click(chromedp.CSS(selector)))
}

// loading runs trigger and, when it started a navigation to another
// document, waits for that document's load and returns its response; else
// it returns a nil Response. Whether it did is asked of the page, not
// guessed from a delay: the page's navigate event (the Navigation API)
// fires while the click or the submission runs, before trigger returns.
func (p *Page) loading(ctx context.Context, what string, trigger chromedp.Action[chromedp.Void]) (*Response, error) {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var noLoad atomic.Bool
	triggered := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := chromedp.Evaluate[chromedp.Void](jsWatchNavigation)(ctx, t); err != nil {
			return err
		}
		if _, err := trigger(ctx, t); err != nil {
			return err
		}
		// The same document, and no navigation away from it: nothing
		// loads. An error here is a document being replaced.
		if state, err := chromedp.Evaluate[string](`window.__affordancesNavigation?.() ?? "replaced"`)(ctx, t); err == nil && state == "none" {
			noLoad.Store(true)
			cancel()
		}
		return nil
	})
	r, err := runT(lctx, p, func(ctx context.Context, t *chromedp.Target) (*network.Response, error) {
		return chromedp.RunResponse(ctx, triggered)
	})
	if err != nil {
		if noLoad.Load() && ctx.Err() == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("browser: %s: %w", what, err)
	}
	return responseOf(r), nil
}

// jsWatchNavigation marks the document: window.__affordancesNavigation()
// says "none" until the document starts a navigation to another document,
// by a link or a script (its navigate event, which fires at once) or by
// submitting a form (its submit event: the browser navigates in a task of
// its own, after), and "started" from then on; either counts unless the
// page's own handlers prevented it.
const jsWatchNavigation = `(() => {
	if (!window.navigation) throw new Error("the browser has no Navigation API (Chromium 102 and later have it)");
	const watch = {navigated: false, submitted: []};
	const first = !window.__affordancesWatch;
	window.__affordancesWatch = watch;
	window.__affordancesNavigation = () => watch.navigated ||
		watch.submitted.some(e => !e.defaultPrevented && (e.submitter?.formMethod || e.target.method) !== "dialog") ? "started" : "none";
	if (!first) return;
	navigation.addEventListener("navigate", e => {
		if (!e.defaultPrevented && !e.hashChange && e.downloadRequest === null) window.__affordancesWatch.navigated = true;
	});
	window.addEventListener("submit", e => window.__affordancesWatch.submitted.push(e), true);
})()`

// checkOne returns an error unless selector finds exactly one element
// and, when usable is set, that element is enabled and visible.
func (p *Page) checkOne(ctx context.Context, selector string, usable bool) error {
	problem, err := p.eval(ctx, `(sel, usable) => {
		let found;
		try { found = document.querySelectorAll(sel); } catch (e) { return "not a valid CSS selector"; }
		if (found.length !== 1) return "found " + found.length + " elements, want exactly one";
		return usable ? (`+jsUsable+`)(found[0]) : "";
	}`, selector, usable)
	if err != nil {
		return fmt.Errorf("browser: %s: %w", selector, err)
	}
	if problem != "" {
		return fmt.Errorf("browser: %s: %s", selector, problem)
	}
	return nil
}

// jsUsable is a JavaScript function that says why a person could not use
// the element el (it is disabled, or invisible), or returns "".
const jsUsable = `(el) => {
	if (el.disabled || el.getAttribute("aria-disabled") === "true") return "the element is disabled";
	if (el.closest("fieldset[disabled]")) return "the element is in a disabled fieldset";
	if (el.tagName !== "FORM" && el.getClientRects().length === 0) return "the element is not visible";
	return "";
}`

// Console returns what the page wrote to its console so far, one
// "type: text" line a message: console calls, uncaught exceptions,
// unhandled rejections and the browser's own log entries (a resource that
// failed to load, a blocked script).
func (p *Page) Console() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.console)
}

// ConsoleNow is [Page.Console] once every message the page's document
// logged before the call has arrived: it logs a marker of its own (which
// Console never shows) and waits for it, as the browser sends the
// document's messages in order.
func (p *Page) ConsoleNow(ctx context.Context) ([]string, error) {
	p.mu.Lock()
	p.marker++
	text := fmt.Sprintf("affordances-browser-console-%d", p.marker)
	arrived := make(chan struct{})
	if p.markers == nil {
		p.markers = map[string]chan struct{}{}
	}
	p.markers[text] = arrived
	p.mu.Unlock()
	var none any
	if err := p.Eval(ctx, `console.debug(`+jsString(text)+`)`, &none); err != nil {
		return nil, fmt.Errorf("browser: reading the console: %w", err)
	}
	select {
	case <-arrived:
		return p.Console(), nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.markers, text)
		p.mu.Unlock()
		return nil, fmt.Errorf("browser: reading the console: %w", ctx.Err())
	}
}

// Eval evaluates the JavaScript expression in the page, waits for the
// promise it may return, and unmarshals its value, encoded as JSON, into
// v. A thrown exception or a rejected promise is the error.
func (p *Page) Eval(ctx context.Context, expr string, v any) error {
	s, err := runT(ctx, p, chromedp.Evaluate[string]("Promise.resolve("+expr+").then(v => JSON.stringify(v === undefined ? null : v))", chromedp.EvalAwaitPromise))
	if err != nil {
		return fmt.Errorf("browser: %s: %w", expr, err)
	}
	return json.Unmarshal([]byte(s), v)
}

// AddScriptOnNewDocument makes the page run js in every document it loads
// from now on, in each frame, before any script of the document's own
// (CDP Page.addScriptToEvaluateOnNewDocument): a test's way to watch what
// a page's scripts do from their first line.
func (p *Page) AddScriptOnNewDocument(ctx context.Context, js string) error {
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: js})
		return err
	}))
	if err != nil {
		return fmt.Errorf("browser: adding a script to new documents: %w", err)
	}
	return nil
}

// eval calls the JavaScript function fn with args (encoded as JSON) in the
// page and returns the string it returns.
func (p *Page) eval(ctx context.Context, fn string, args ...any) (string, error) {
	var b strings.Builder
	b.WriteString("(" + fn + ")(")
	for i, a := range args {
		j, err := json.Marshal(a)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(j)
	}
	b.WriteString(")")
	return runT(ctx, p, chromedp.Evaluate[string](b.String()))
}

// Fill sets the value of the one input, textarea or select that selector
// finds, as typing would: the element gets input and change events.
func (p *Page) Fill(ctx context.Context, selector, value string) error {
	return p.fill(ctx, "", selector, value)
}

// FillLabel is [Page.Fill] for the one input, textarea or select whose
// label reads label: the text of its <label> (without the text of the
// controls inside it) or its aria-label, whitespace collapsed.
func (p *Page) FillLabel(ctx context.Context, label, value string) error {
	return p.fill(ctx, label, "", value)
}

func (p *Page) fill(ctx context.Context, label, selector, value string) error {
	problem, err := p.eval(ctx, `(label, sel, value) => {
		const norm = s => s.replace(/\s+/g, " ").trim();
		let found = [];
		if (label === "") {
			try { found = [...document.querySelectorAll(sel)]; } catch (e) { return "not a valid CSS selector"; }
		} else {
			for (const el of document.querySelectorAll("input, textarea, select")) {
				const names = [];
				for (const l of el.labels || []) {
					const c = l.cloneNode(true);
					c.querySelectorAll("input, textarea, select, button").forEach(n => n.remove());
					names.push(norm(c.textContent));
				}
				if (el.hasAttribute("aria-label")) names.push(norm(el.getAttribute("aria-label")));
				if (names.includes(label)) found.push(el);
			}
		}
		if (found.length !== 1) return "found " + found.length + " fields, want exactly one";
		return (`+jsFill+`)(found[0], value);
	}`, label, selector, value)
	what := selector
	if label != "" {
		what = "the field labelled " + label
	}
	if err != nil {
		return fmt.Errorf("browser: %s: %w", what, err)
	}
	if problem != "" {
		return fmt.Errorf("browser: %s: %s", what, problem)
	}
	return nil
}

// jsFill is a JavaScript function that sets the value of the field el
// (an input, a textarea or a select) to value, as typing or choosing
// would, with input and change events, and returns why it could not, or "".
const jsFill = `(el, value) => {
	if (!["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)) return "a " + el.tagName.toLowerCase() + " is not a field";
	if (el.type === "radio" || el.type === "checkbox") return "a " + el.type + " is checked, not filled: use Check";
	if (el.disabled || el.readOnly) return "the field is disabled or read-only";
	el.focus();
	el.value = value;
	el.dispatchEvent(new Event("input", {bubbles: true}));
	el.dispatchEvent(new Event("change", {bubbles: true}));
	if (el.value === value) return "";
	if (el.tagName === "SELECT") return "no option has the value " + JSON.stringify(value) + " (the values: " + [...el.options].map(o => JSON.stringify(o.value)).join(", ") + ")";
	return "the field refused the value (it holds " + JSON.stringify(el.value) + ")";
}`

// jsCheck is a JavaScript function that checks (on) or unchecks the radio
// button or checkbox el, as a click would, with input and change events,
// and returns why it could not, or "".
const jsCheck = `(el, on) => {
	if (el.tagName !== "INPUT" || (el.type !== "radio" && el.type !== "checkbox")) return "not a radio button or a checkbox";
	if (el.disabled) return "the element is disabled";
	el.focus();
	el.checked = on;
	el.dispatchEvent(new Event("input", {bubbles: true}));
	el.dispatchEvent(new Event("change", {bubbles: true}));
	return "";
}`

// Check checks the one radio button or checkbox selector finds, as a click
// would (it gets input and change events), without submitting anything.
func (p *Page) Check(ctx context.Context, selector string) error {
	problem, err := p.eval(ctx, `(sel) => {
		let found;
		try { found = document.querySelectorAll(sel); } catch (e) { return "not a valid CSS selector"; }
		if (found.length !== 1) return "found " + found.length + " elements, want exactly one";
		return (`+jsCheck+`)(found[0], true);
	}`, selector)
	if err != nil {
		return fmt.Errorf("browser: %s: %w", selector, err)
	}
	if problem != "" {
		return fmt.Errorf("browser: %s: %s", selector, problem)
	}
	return nil
}

// Text returns the rendered text (innerText) of the one element selector
// finds: what a person reads there, whitespace as laid out.
func (p *Page) Text(ctx context.Context, selector string) (string, error) {
	if err := p.checkOne(ctx, selector, false); err != nil {
		return "", err
	}
	s, err := p.eval(ctx, `(sel) => document.querySelector(sel).innerText`, selector)
	if err != nil {
		return "", fmt.Errorf("browser: %s: %w", selector, err)
	}
	return s, nil
}

// Count returns how many elements selector finds.
func (p *Page) Count(ctx context.Context, selector string) (int, error) {
	s, err := p.eval(ctx, `(sel) => String(document.querySelectorAll(sel).length)`, selector)
	if err != nil {
		return 0, fmt.Errorf("browser: %s: %w", selector, err)
	}
	var n int
	_, err = fmt.Sscan(s, &n)
	return n, err
}

// ContentSize returns the size of the page's document in CSS pixels (its
// scroll width and height): wider than the viewport means a person must
// scroll sideways.
func (p *Page) ContentSize(ctx context.Context) (width, height int, err error) {
	s, err := p.eval(ctx, `() => Math.ceil(document.documentElement.scrollWidth) + " " + Math.ceil(document.documentElement.scrollHeight)`)
	if err == nil {
		_, err = fmt.Sscan(s, &width, &height)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("browser: measuring the page: %w", err)
	}
	return width, height, nil
}

// HTML returns the page's document as it is now (outerHTML of the root).
func (p *Page) HTML(ctx context.Context) (string, error) {
	return p.eval(ctx, `() => document.documentElement.outerHTML`)
}

// SetCookie stores c in the page's browser context as the response of
// url would (url's host and scheme apply when c has no Domain); c
// without Expires is a session cookie.
func (p *Page) SetCookie(ctx context.Context, url string, c *http.Cookie) error {
	params := network.SetCookieParams{
		Name: c.Name, Value: c.Value, URL: url, Domain: c.Domain, Path: c.Path,
		Secure: &c.Secure, HTTPOnly: &c.HttpOnly,
	}
	if !c.Expires.IsZero() {
		params.Expires = cdp.TimeSinceEpoch(float64(c.Expires.UnixMilli()) / 1000)
	}
	switch c.SameSite {
	case http.SameSiteLaxMode:
		params.SameSite = network.CookieSameSiteLax
	case http.SameSiteStrictMode:
		params.SameSite = network.CookieSameSiteStrict
	case http.SameSiteNoneMode:
		params.SameSite = network.CookieSameSiteNone
	}
	err := p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, network.SetCookie, params)
		return err
	}))
	if err != nil {
		return fmt.Errorf("browser: setting cookie %s: %w", c.Name, err)
	}
	return nil
}

// Cookies returns the cookies the page's browser context would send to
// url, HttpOnly ones included.
func (p *Page) Cookies(ctx context.Context, url string) ([]*http.Cookie, error) {
	res, err := runT(ctx, p, func(ctx context.Context, t *chromedp.Target) (network.GetCookiesResult, error) {
		return cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
	})
	if err != nil {
		return nil, fmt.Errorf("browser: reading cookies: %w", err)
	}
	var out []*http.Cookie
	for _, c := range res.Cookies {
		out = append(out, &http.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Secure: c.Secure, HttpOnly: c.HTTPOnly})
	}
	return out, nil
}

// Screenshot returns a PNG of the page as it is now, laid out at width CSS
// pixels: the top height pixels, or the whole page when height is 0. The
// viewport stays at that size afterwards.
func (p *Page) Screenshot(ctx context.Context, width, height int) ([]byte, error) {
	if err := p.SetViewport(ctx, width, max(height, 1)); err != nil {
		return nil, err
	}
	if height == 0 {
		var err error
		if _, height, err = p.ContentSize(ctx); err != nil {
			return nil, err
		}
		if err := p.SetViewport(ctx, width, height); err != nil {
			return nil, err
		}
	}
	png, err := runT(ctx, p, func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		// Fonts and layout settle before the capture.
		if _, err := chromedp.Evaluate[chromedp.Void](`document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => r())))`, chromedp.EvalAwaitPromise)(ctx, t); err != nil {
			return nil, err
		}
		r, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, FromSurface: new(true)})
		return r.Data, err
	})
	if err != nil {
		return nil, fmt.Errorf("browser: screenshot: %w", err)
	}
	return png, nil
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// jsString returns s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
