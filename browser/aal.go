package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/affordances/affordances-go/aal"
	"github.com/chromedp/chromedp"
)

// ErrNoFragment is the error [Page.Fragment] wraps when the page inlines
// no AAL fragment.
var ErrNoFragment = errors.New("browser: the page inlines no AAL fragment")

// Fragment returns the AAL fragment the page inlines as
// <script type="application/aal+json"> (seed 003), read from the live
// document and checked with [aal.ValidateFragment]: a page with none wraps
// [ErrNoFragment], a page with several or an invalid one is an error.
// Its labels are the site's words, untrusted: show them through
// [aal.Visible].
func (p *Page) Fragment(ctx context.Context) (*aal.Fragment, error) {
	doc, err := p.eval(ctx, `(type) => {
		const found = document.querySelectorAll('script[type="' + type + '"]');
		if (found.length === 0) return "";
		if (found.length > 1) return "!" + found.length;
		return found[0].textContent;
	}`, aal.MediaType)
	if err != nil {
		return nil, fmt.Errorf("browser: reading the AAL fragment: %w", err)
	}
	switch {
	case doc == "":
		return nil, ErrNoFragment
	case strings.HasPrefix(doc, "!"):
		return nil, fmt.Errorf("browser: the page inlines %s AAL fragments, want one", doc[1:])
	}
	if problems := aal.ValidateFragment([]byte(doc)); len(problems) > 0 {
		return nil, fmt.Errorf("browser: the page's AAL fragment is not valid: %v", problems[0])
	}
	var f aal.Fragment
	if err := jsonUnmarshal(doc, &f); err != nil {
		return nil, fmt.Errorf("browser: the page's AAL fragment: %w", err)
	}
	return &f, nil
}

// Perform does what a person does to use the affordance a: it clicks the
// one element a.Selector finds (or, when that element is a <form>, submits
// the form as its submit button would). None or several elements is an
// error, and so is a disabled or invisible one: the page says the action
// is not available. Like [Page.Click], when that starts loading a page,
// Perform waits for it and returns the response of its document.
//
// Perform does not ask whether a should be performed: that is the gate's
// job ([aal.Gate]), before.
func (p *Page) Perform(ctx context.Context, a aal.Affordance) (*Response, error) {
	if a.Selector == "" {
		return nil, fmt.Errorf("browser: performing %q: the affordance has no selector", a.ID)
	}
	if err := p.checkOne(ctx, a.Selector, true); err != nil {
		return nil, fmt.Errorf("browser: performing %q: %w", a.ID, err)
	}
	isForm, err := p.eval(ctx, `(sel) => document.querySelector(sel).tagName === "FORM" ? "yes" : ""`, a.Selector)
	if err != nil {
		return nil, fmt.Errorf("browser: performing %q: %w", a.ID, err)
	}
	trigger := chromedp.Click(chromedp.CSS(a.Selector))
	if isForm != "" {
		trigger = chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%s).requestSubmit()`, jsString(a.Selector)))
	}
	return p.loading(ctx, "performing "+a.ID, trigger)
}
