package browser

import (
	"context"
	"encoding/json"
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
// <script type="application/aal+json"> (docs/protocol.md §30), read from the live
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
// Perform waits for it and returns the response of its document. To pick
// one of several elements by the call's input, use [Page.PerformInput].
//
// Perform does not ask whether a should be performed: that is the gate's
// job ([aal.Gate]), before.
func (p *Page) Perform(ctx context.Context, a aal.Affordance) (*Response, error) {
	return p.PerformInput(ctx, a, nil)
}

// PerformInput is [Page.Perform] for an affordance whose action acts on
// one of several items, a delete button on each row (docs/protocol.md decision 11):
// when a.Selector finds several elements, it operates the one whose
// data-aal-input the call's input picks ([aal.Picks]: every field of that
// JSON object has the same value in input). None or several that fit is an
// error that lists the elements' data-aal-input, and so is a nil input.
// One element is operated unless it carries a data-aal-input that a
// non-nil input does not pick.
func (p *Page) PerformInput(ctx context.Context, a aal.Affordance, input map[string]any) (*Response, error) {
	if a.Selector == "" {
		return nil, fmt.Errorf("browser: performing %q: the affordance has no selector", a.ID)
	}
	t, err := p.target(ctx, a, input)
	if err != nil {
		return nil, fmt.Errorf("browser: performing %q: %w", a.ID, err)
	}
	if t.problem != "" {
		return nil, fmt.Errorf("browser: performing %q: %s: %s", a.ID, a.Selector, t.problem)
	}
	trigger := chromedp.Click(chromedp.JSPath(t.js))
	if t.form {
		trigger = chromedp.Evaluate[chromedp.Void](t.js + ".requestSubmit()")
	}
	return p.loading(ctx, "performing "+a.ID, trigger)
}

// A target is the element of an affordance's selector that a call's input
// picks.
type target struct {
	js      string // its JavaScript path
	form    bool   // it is a <form>
	problem string // why a person could not use it, or ""
}

// errNoElement is the error of a selector that finds nothing.
var errNoElement = errors.New("found 0 elements, want one")

// target finds the element of a's selector that input picks by their
// data-aal-input (see [Page.PerformInput]); errNoElement when the selector
// finds none.
func (p *Page) target(ctx context.Context, a aal.Affordance, input map[string]any) (target, error) {
	found, err := p.eval(ctx, `(sel) => {
		const usable = `+jsUsable+`;
		let found;
		try { found = [...document.querySelectorAll(sel)]; } catch (e) { return JSON.stringify({error: "not a valid CSS selector"}); }
		return JSON.stringify({elements: found.map(el => ({input: el.getAttribute("`+aal.InputAttribute+`"), form: el.tagName === "FORM", problem: usable(el)}))});
	}`, a.Selector)
	if err != nil {
		return target{}, err
	}
	var m struct {
		Error    string `json:"error"`
		Elements []struct {
			Input   *string `json:"input"`   // nil: the element has no data-aal-input
			Form    bool    `json:"form"`    // it is a <form>
			Problem string  `json:"problem"` // why a person could not use it, or ""
		} `json:"elements"`
	}
	if err := jsonUnmarshal(found, &m); err != nil {
		return target{}, err
	}
	if m.Error != "" {
		return target{}, fmt.Errorf("%s: %s", a.Selector, m.Error)
	}
	if len(m.Elements) == 0 {
		return target{}, fmt.Errorf("%s: %w", a.Selector, errNoElement)
	}
	inputs := make([]*string, len(m.Elements))
	for i, el := range m.Elements {
		inputs[i] = el.Input
	}
	i, err := pick(inputs, input)
	if err != nil {
		return target{}, fmt.Errorf("%s: %w", a.Selector, err)
	}
	return target{js: fmt.Sprintf("document.querySelectorAll(%s)[%d]", jsString(a.Selector), i), form: m.Elements[i].Form, problem: m.Elements[i].Problem}, nil
}

// pick returns which of the elements a selector found input picks by
// their data-aal-input (inputs, nil for an element without one), or an
// error that lists them.
func pick(inputs []*string, input map[string]any) (int, error) {
	switch {
	case len(inputs) == 0:
		return 0, errNoElement
	case len(inputs) == 1 && (input == nil || inputs[0] == nil):
		return 0, nil
	case input == nil:
		return 0, fmt.Errorf("found %d elements and no input to pick one by; their %s: %s", len(inputs), aal.InputAttribute, choices(inputs))
	}
	var fit []int
	for i, attr := range inputs {
		if attr == nil {
			continue
		}
		if item, err := aal.ParseInput(*attr); err == nil && aal.Picks(item, input) {
			fit = append(fit, i)
		}
	}
	in, _ := json.Marshal(input) // the caller's input, to say what was asked
	switch len(fit) {
	case 1:
		return fit[0], nil
	case 0:
		return 0, fmt.Errorf("the input %s picks none of the %d elements found; their %s: %s", in, len(inputs), aal.InputAttribute, choices(inputs))
	}
	picked := make([]*string, len(fit))
	for j, i := range fit {
		picked[j] = inputs[i]
	}
	return 0, fmt.Errorf("the input %s picks %d of the %d elements found, want one; their %s: %s", in, len(fit), len(inputs), aal.InputAttribute, choices(picked))
}

// choices lists the data-aal-input of elements as the page wrote them,
// made visible ([aal.Visible]): they are the site's text.
func choices(inputs []*string) string {
	out := make([]string, len(inputs))
	for i, attr := range inputs {
		out[i] = "(none)"
		if attr != nil {
			out[i] = aal.Visible(*attr)
		}
	}
	return strings.Join(out, ", ")
}
