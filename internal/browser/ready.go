package browser

import (
	"context"
	"fmt"
	"strings"

	"github.com/affordances/affordances-go/aal"
	"github.com/chromedp/chromedp"
)

// A Ready is an affordance's form filled in by [Page.Ready], with only the
// click left: a caller may ask a person in between. It says where the
// click would send the page.
type Ready struct {
	p       *Page
	id      string
	trigger chromedp.Action[chromedp.Void]

	// Submits says the click submits a form (its fields go to URL);
	// otherwise it follows a link to URL, or URL is "" (a button of the
	// page's own script).
	Submits bool
	// Method is the form's method (GET or POST), or GET for a link.
	Method string
	// URL is where the click sends the page, resolved as the browser
	// resolves it; "" when the page's own script decides.
	URL string
}

// Ready does what [Page.Operate] does before the click: it finds a's
// element, fills in the fields of its form from input (a field by its
// name, else by its label or aria-label) and calls each after each
// interaction. When the click would submit the form, it then checks the
// form as the browser checks it before submitting, even one marked
// novalidate, and as it binds what a person types (maxlength,
// minlength): a required field left empty, or a value the field refuses,
// is an error that names the fields, and nothing is clicked. The element
// absent or not usable is an error wrapping [ErrUnavailable].
func (p *Page) Ready(ctx context.Context, a aal.Affordance, input map[string]any, each func(what string) error) (*Ready, error) {
	o, err := p.prepare(ctx, a, input, each)
	if err != nil {
		return nil, err
	}
	t, err := p.target(ctx, a, input)
	if err != nil {
		return nil, fmt.Errorf("browser: operating %q: %w", a.ID, err)
	}
	found, err := p.eval(ctx, `(submitter) => {
		const el = `+t.js+`;
		const form = (`+jsFormOf+`)(el);
		const isSubmit = c => (c.tagName === "BUTTON" && (c.type || "submit") === "submit") || (c.tagName === "INPUT" && (c.type === "submit" || c.type === "image"));
		const out = {submits: false, method: "", url: "", invalid: []};
		let s = null;
		if (form && submitter >= 0) s = form.elements[submitter];
		else if (form && el !== form && isSubmit(el)) s = el;
		if (form && (s || el === form)) {
			out.submits = true;
			out.url = (s && s.hasAttribute("formaction")) ? s.formAction : form.action;
			out.method = ((s && s.hasAttribute("formmethod")) ? s.formMethod : form.method).toUpperCase();
			for (const c of form.elements) {
				if (!c.willValidate) continue;
				const label = (`+jsLabels+`)(c)[0] || "";
				// A script's value escapes maxlength and minlength, which
				// bind what a person types: they are checked here.
				const n = typeof c.value === "string" ? c.value.length : 0;
				let message = "";
				if (c.maxLength >= 0 && n > c.maxLength) message = "takes at most " + c.maxLength + " characters, not " + n;
				else if (c.minLength > 0 && n > 0 && n < c.minLength) message = "takes at least " + c.minLength + " characters, not " + n;
				else if (!c.checkValidity()) message = c.validationMessage;
				else continue;
				out.invalid.push({name: c.name || "", label, missing: c.validity.valueMissing, message});
			}
		} else {
			const link = el.closest("a[href]");
			if (link) { out.url = link.href; out.method = "GET"; }
		}
		return JSON.stringify(out);
	}`, o.submitter)
	if err != nil {
		return nil, fmt.Errorf("browser: operating %q: %w", a.ID, err)
	}
	var m struct {
		Submits bool   `json:"submits"`
		Method  string `json:"method"`
		URL     string `json:"url"`
		Invalid []struct {
			Name    string `json:"name"`
			Label   string `json:"label"`
			Missing bool   `json:"missing"`
			Message string `json:"message"`
		} `json:"invalid"`
	}
	if err := jsonUnmarshal(found, &m); err != nil {
		return nil, fmt.Errorf("browser: operating %q: %w", a.ID, err)
	}
	if len(m.Invalid) > 0 {
		var why []string
		for _, f := range m.Invalid {
			name := f.Name
			if name == "" {
				name = "(unnamed)"
			}
			if f.Label != "" {
				name += fmt.Sprintf(" (%q)", f.Label)
			}
			if f.Missing {
				why = append(why, name+" is required and left empty")
			} else {
				why = append(why, name+": "+f.Message)
			}
		}
		return nil, fmt.Errorf("browser: operating %q: the form is not ready to send: %s; nothing was clicked", a.ID, strings.Join(why, "; "))
	}
	return &Ready{p: p, id: a.ID, trigger: o.trigger, Submits: m.Submits, Method: m.Method, URL: m.URL}, nil
}

// Click clicks the element (submits the form, when the element is a
// <form>) and, like [Page.Click], waits for the page it loads and returns
// the response of its document, or nil when no page loads.
func (r *Ready) Click(ctx context.Context) (*Response, error) {
	return r.p.loading(ctx, "operating "+r.id, r.trigger)
}

// Title returns the page's document title (the site's text).
func (p *Page) Title(ctx context.Context) (string, error) {
	return runT(ctx, p, chromedp.Title())
}

// MainText returns what a person reads in the page's <main> element, or
// in its <body> when it has none: the rendered text, whitespace collapsed.
func (p *Page) MainText(ctx context.Context) (string, error) {
	s, err := p.eval(ctx, `() => { const m = document.querySelector("main") || document.body; return m ? m.innerText : ""; }`)
	if err != nil {
		return "", fmt.Errorf("browser: reading the page's text: %w", err)
	}
	return strings.Join(strings.Fields(s), " "), nil
}
