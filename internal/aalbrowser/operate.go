// Package aalbrowser performs the affordances of a page that publishes
// AAL and no Affordances graph in headless Chromium (internal/browser), as
// the person would, with their session: the gate first ([aal.Gate]), the
// person's [agent.Approver] when it asks, the form's fields filled
// from the call's input and checked as the browser checks them, and only
// then exactly the element the selector names clicked. The page is read
// as package internal/aalpage reads it.
package aalbrowser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/weborigin"
)

// An Operator performs the affordances of AAL pages in headless Chromium,
// as the person would, for one site: the one they named. It is safe for
// concurrent use when its Browser is and its fields are not changed.
type Operator struct {
	// Browser runs the pages. Each call opens a page of its own (in a
	// browser context of its own, unless the browser runs the person's
	// profile) and closes it.
	Browser *browser.Browser
	// Profile says Browser runs the person's own Chromium profile
	// ([browser.Options.Profile]), whose cookies the browser sends
	// wherever it goes: pages of another origin than Origin are then not
	// opened, and links to one not followed.
	Profile bool
	// HTTP reads the manifest and the fragments pages link to; its Jar,
	// if any, should hold the person's cookies for Origin only. Nil:
	// http.DefaultClient.
	HTTP *http.Client
	// Origin is the site the person named, such as https://notes.example:
	// the only origin Cookies are given to.
	Origin string
	// Cookies are the person's session on Origin, set in the page's
	// browser context before it loads a page of Origin; never for another.
	Cookies []*http.Cookie
	// Gate decides what needs the person's authority (docs/protocol.md decision 8).
	// Nil: the zero gate, which asks for everything that does.
	Gate *aal.Gate
	// Approver is asked, before anything is clicked, about what the gate
	// asks for. Nil: such calls fail with [agent.ErrNotApproved].
	Approver agent.Approver
}

// A Result is what performing one affordance did.
type Result struct {
	// Affordance is the one performed, as the page's fragment said it.
	Affordance aal.Affordance
	// Verdict is the gate's decision on it.
	Verdict aal.Verdict
	// Approved says the person approved this very call.
	Approved bool
	// Did lists what was done on the page, in order: "fill title",
	// "check copy", "click add-note".
	Did []string
	// Method and Sent say where the click sent the page: the form's
	// method and action, or GET and a link's address; Sent is "" when the
	// page's own script decided.
	Method, Sent string
	// Status is the HTTP status of the page the click loaded; 0 when no
	// page loaded (the page's own script acted, and Next is the same
	// page as it is now).
	Status int
	// Next is the page after the click, read as [aalpage.Load] reads a page: its
	// URL, title, fragment (nil when it publishes no AAL, and Notes say
	// why) and the summary of its main content as the browser renders it.
	Next *aalpage.Page
	// Cookies are what the call changed of the person's cookies for
	// Origin, for their cookie jar: those the browser holds after the
	// click that are new or hold another value (a sign-in's session), and,
	// with MaxAge -1, those of Operator.Cookies it no longer holds (a
	// sign-out). None when the page is of another origin.
	Cookies []*http.Cookie
}

// Execute performs the affordance id of the page at pageURL with input,
// in this order, and stops at the first failure:
//
//  1. It opens the page in the browser, with the person's Cookies when
//     the page is of Origin, and reads its fragment from what loaded.
//  2. The gate decides (expose ""). Refuse: [agent.ErrRefused].
//  3. The fields of the element's form are filled from input, by name,
//     else by label, and checked as the browser checks them before
//     sending: a field the form lacks, a value it refuses, or a required
//     field left empty is an error. A form that would send its fields to
//     another origin than the page's is an error too.
//  4. When the gate asks, the Approver is asked, with the affordance's id
//     and label verbatim; no, or no Approver, is
//     [agent.ErrNotApproved].
//  5. Exactly the element the selector names is clicked (among several,
//     the one whose data-aal-input input picks), and the page that loads
//     is read.
//
// Nothing is clicked before step 5: an error before it leaves the site
// untouched.
func (o *Operator) Execute(ctx context.Context, pageURL, id string, input map[string]any) (*Result, error) {
	u, err := url.Parse(pageURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("aalpage: %q is not an http(s) URL", aal.Visible(pageURL))
	}
	own := aalpage.SameOrigin(pageURL, o.Origin)
	if o.Profile && !own {
		return nil, fmt.Errorf("aalpage: %s is not of %s, the site the person named; with their browser profile no other site is opened", aal.Visible(pageURL), aal.Visible(o.Origin))
	}
	bp, err := o.Browser.NewPage(ctx)
	if err != nil {
		return nil, err
	}
	defer bp.Close()
	if own {
		for _, c := range o.Cookies {
			if err := bp.SetCookie(ctx, o.Origin+"/", c); err != nil {
				return nil, err
			}
		}
	}
	resp, err := bp.Navigate(ctx, pageURL)
	if err != nil {
		return nil, err
	}
	if resp != nil && resp.Status != http.StatusOK {
		return nil, fmt.Errorf("aalpage: GET %s answered %d", aal.Visible(pageURL), resp.Status)
	}
	page, err := o.read(ctx, bp)
	if err != nil {
		return nil, err
	}
	if o.Profile && !aalpage.SameOrigin(page.Origin(), o.Origin) {
		return nil, fmt.Errorf("aalpage: %s led to %s, another site than %s; with the person's browser profile nothing is done there", aal.Visible(pageURL), aal.Visible(page.URL), aal.Visible(o.Origin))
	}
	a, ok := page.Affordance(id)
	if !ok {
		return nil, fmt.Errorf("aalpage: the page %s has no affordance %q; its affordances: %s", aal.Visible(page.URL), aal.Visible(id), aal.Visible(strings.Join(page.IDs(), ", ")))
	}
	r := &Result{Affordance: a, Verdict: o.Gate.Decide(page.Origin(), a, "")}
	if r.Verdict.Decision == aal.Refuse {
		return r, fmt.Errorf("%w: %s", agent.ErrRefused, strings.Join(r.Verdict.Reasons, " "))
	}
	each := func(what string) error { r.Did = append(r.Did, what); return nil }
	ready, err := bp.Ready(ctx, a, input, each)
	if err != nil {
		return r, err
	}
	r.Method, r.Sent = ready.Method, ready.URL
	if ready.URL != "" {
		to, err := url.Parse(ready.URL)
		switch {
		case err != nil:
			return r, fmt.Errorf("aalpage: %s sends the page to %s, which is not a URL; nothing was clicked", aal.Visible(id), aal.Visible(ready.URL))
		case ready.Submits && !aalpage.SameOrigin(ready.URL, page.Origin()):
			return r, fmt.Errorf("aalpage: %s's form sends its fields to %s, another origin than the page's; nothing was clicked", aal.Visible(id), aal.Visible(originOf(to)))
		case o.Profile && !aalpage.SameOrigin(ready.URL, o.Origin):
			return r, fmt.Errorf("aalpage: %s leads to %s, another site than %s; with the person's browser profile nothing is clicked", aal.Visible(id), aal.Visible(originOf(to)), aal.Visible(o.Origin))
		}
	}
	if r.Verdict.Decision == aal.Ask {
		if err := o.approve(ctx, page, a, r.Verdict, input); err != nil {
			return r, err
		}
		r.Approved = true
	}
	loaded, err := ready.Click(ctx)
	if err != nil {
		return r, err
	}
	r.Did = append(r.Did, "click "+a.ID)
	if loaded != nil {
		r.Status = loaded.Status
	}
	if own {
		if after, err := bp.Cookies(ctx, o.Origin+"/"); err == nil { // the click is done either way
			r.Cookies = changed(o.Cookies, after)
		}
	}
	r.Next, err = o.read(ctx, bp)
	if err != nil {
		// The click is done: what follows is only what the next page says.
		loc, _ := bp.URL(ctx)
		r.Next = &aalpage.Page{URL: loc, Notes: []string{"The page could not be read: " + aal.Visible(err.Error()) + "."}}
		r.Next.Title, _ = bp.Title(ctx)
	}
	return r, nil
}

// changed returns the cookies of after that are not in before with the
// same value, and those of before that after lacks, with MaxAge -1.
func changed(before, after []*http.Cookie) []*http.Cookie {
	var out []*http.Cookie
	held := map[string]bool{}
	for _, c := range after {
		held[c.Name] = true
		if !slices.ContainsFunc(before, func(b *http.Cookie) bool { return b.Name == c.Name && b.Value == c.Value }) {
			out = append(out, c)
		}
	}
	for _, b := range before {
		if !held[b.Name] {
			out = append(out, &http.Cookie{Name: b.Name, Path: "/", MaxAge: -1})
		}
	}
	return out
}

// read reads the page the browser has loaded: its fragment from its
// document as it is now, its title and main text as the browser renders
// them.
func (o *Operator) read(ctx context.Context, bp *browser.Page) (*aalpage.Page, error) {
	loc, err := bp.URL(ctx)
	if err != nil {
		return nil, err
	}
	doc, err := bp.HTML(ctx)
	if err != nil {
		return nil, err
	}
	p, err := aalpage.Read(ctx, o.httpClient(loc), loc, []byte(doc))
	if errors.Is(err, aalpage.ErrNoAAL) {
		p.Notes = append(p.Notes, "This page publishes no AAL.")
		err = nil
	}
	if err != nil {
		return nil, err
	}
	if t, err := bp.Title(ctx); err == nil {
		p.Title = strings.Join(strings.Fields(t), " ")
	}
	if text, err := bp.MainText(ctx); err == nil {
		p.Summary = aalpage.Cut(text, aalpage.SummaryLength)
	}
	return p, nil
}

// httpClient returns the client that reads the fragments of the page at
// loc: the person's for their site, one without cookies for another.
func (o *Operator) httpClient(loc string) *http.Client {
	hc := o.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	if !aalpage.SameOrigin(loc, o.Origin) {
		anon := *hc
		anon.Jar = nil
		return &anon
	}
	return hc
}

// approve asks the person about a, with its id and label verbatim.
func (o *Operator) approve(ctx context.Context, page *aalpage.Page, a aal.Affordance, v aal.Verdict, input map[string]any) error {
	req := &agent.ApprovalRequest{Origin: page.Origin(), Page: pathOf(page.URL), Action: a.ID, Label: aal.Visible(a.Label),
		Classes: v.Classes, Amount: v.Amount}
	for _, r := range v.Reasons {
		req.Reasons = append(req.Reasons, aal.Visible(r))
	}
	if input != nil {
		req.Input, _ = json.Marshal(input) // the input came from JSON
	}
	return req.Ask(ctx, o.Approver)
}

// pathOf returns the path and query of a URL.
func pathOf(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.RequestURI()
}

// originOf returns the origin of u, or u itself when it has none.
func originOf(u *url.URL) string {
	o, err := weborigin.Of(u.String())
	if err != nil {
		return u.String()
	}
	return o
}
