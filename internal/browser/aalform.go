package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/affordances/affordances-go/aal"
	"github.com/chromedp/chromedp"
)

// ErrUnavailable is the error [Page.Operate] and [Page.Prepare] wrap when
// the page offers no usable element for the affordance: none is there, or
// the one the input picks is disabled or invisible. That is how a page
// tells a person that the action is not available to them now.
var ErrUnavailable = errors.New("the action is not available on this page")

// Operate does what a person does to perform the affordance a with input:
// it finds a's element as [Page.PerformInput] does, fills in the fields of
// that element's form from input ([Page.Prepare]), then clicks the element
// (submits the form, when the element is a <form>) and, like
// [Page.Click], waits for the page that loads. After each interaction
// that changed what the page shows it calls each, when not nil, with what
// it did ("fill quantity", "choose sku", "click add-to-cart"); an error
// from each stops Operate and is returned.
//
// Before it changes anything, Operate checks every field of input: the
// form must have a control of that name, and a hidden one (or the
// clicked button's own name and value) must already hold the value. An
// element absent or not usable is an error wrapping [ErrUnavailable].
// Like Perform, Operate does not ask whether a should be performed.
func (p *Page) Operate(ctx context.Context, a aal.Affordance, input map[string]any, each func(what string) error) (*Response, error) {
	o, err := p.prepare(ctx, a, input, each)
	if err != nil {
		return nil, err
	}
	resp, err := p.loading(ctx, "operating "+a.ID, o.trigger)
	if err != nil {
		return nil, err
	}
	if each != nil {
		if err := each("click " + a.ID); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

// Prepare is [Page.Operate] without the click: it fills in the fields of
// a's form from input, as a person does before deciding to submit it, and
// calls each after each interaction.
func (p *Page) Prepare(ctx context.Context, a aal.Affordance, input map[string]any, each func(what string) error) error {
	_, err := p.prepare(ctx, a, input, each)
	return err
}

// An operation is what prepare found out about an affordance and did:
// the click that submits it is left.
type operation struct {
	trigger chromedp.Action[chromedp.Void]
	// submitter is the index, in the form's elements, of the button that
	// submits the form instead of the element, or -1.
	submitter int
}

// jsFormOf is a JavaScript function returning the form of the element el:
// el itself when it is a <form>, else its form owner or enclosing form.
const jsFormOf = `(el) => el.tagName === "FORM" ? el : (el.form || el.closest("form"))`

// jsLabels is a JavaScript function returning what labels the control c,
// each as a key: the text of its <label> elements (without the controls
// in them) and its aria-label, whitespace collapsed, a trailing ":" or
// "*" dropped, in lower case.
const jsLabels = `(c) => {
	const key = s => s.replace(/\s+/g, " ").trim().replace(/\s*[:*]$/, "").toLowerCase();
	const out = [];
	for (const l of c.labels || []) {
		const copy = l.cloneNode(true);
		copy.querySelectorAll("input, textarea, select, button").forEach(n => n.remove());
		out.push(key(copy.textContent));
	}
	if (c.hasAttribute("aria-label")) out.push(key(c.getAttribute("aria-label")));
	return out;
}`

// jsOperation is a JavaScript function that works out how to fill in the
// form of the element el with fields ({name, text, value} each) and click
// it. A field is the control of its name, else the one its label or
// aria-label names (case aside); two fields for one control are a
// problem. It returns JSON: the problems, or the interactions (a
// control's index in the form's elements, its kind and whether it must
// change) and the submit button among the form's elements (-1: el
// itself).
const jsOperation = `(el, fields) => {
	const isSubmit = c => (c.tagName === "BUTTON" && (c.type || "submit") === "submit") || (c.tagName === "INPUT" && (c.type === "submit" || c.type === "image"));
	const form = (` + jsFormOf + `)(el);
	const out = {problems: [], steps: [], submitter: -1};
	if (!form) {
		if (fields.length) out.problems.push("the element is in no form, and the input has fields: " + fields.map(f => f.name).join(", "));
		return JSON.stringify(out);
	}
	const controls = [...form.elements];
	const labelKey = s => s.replace(/\s+/g, " ").trim().replace(/\s*[:*]$/, "").toLowerCase();
	const values = c => [...new Set(c.map(x => JSON.stringify(x.value)))].join(", ");
	const push = step => {
		const other = out.steps.find(s => s.index === step.index);
		if (other) out.problems.push(other.name + " and " + step.name + " both name the field " + controls[step.index].name);
		else out.steps.push(step);
	};
	for (const f of fields) {
		const q = JSON.stringify(f.text);
		if (el !== form && el.name === f.name && isSubmit(el)) {
			if (el.value !== f.text) out.problems.push("the element submits " + f.name + "=" + JSON.stringify(el.value) + ", not " + q);
			continue;
		}
		let named = controls.filter(c => c.name === f.name);
		if (named.length === 0) named = controls.filter(c => c.name && (` + jsLabels + `)(c).includes(labelKey(f.name)));
		if (named.length === 0) {
			out.problems.push("the form has no field " + f.name + " (its fields: " + [...new Set(controls.filter(c => c.name).map(c => c.name))].join(", ") + ")");
			continue;
		}
		const hidden = named.filter(c => c.type === "hidden");
		if (hidden.length) {
			if (!hidden.some(c => c.value === f.text)) out.problems.push("the hidden field " + f.name + " holds " + values(hidden) + ", not " + q);
			continue;
		}
		const radios = named.filter(c => c.type === "radio");
		if (radios.length) {
			const r = radios.find(c => c.value === f.text);
			if (!r) out.problems.push("no radio button " + f.name + " has the value " + q + " (the values: " + values(radios) + ")");
			else push({name: f.name, kind: "radio", index: controls.indexOf(r), change: !r.checked});
			continue;
		}
		const boxes = named.filter(c => c.type === "checkbox");
		if (boxes.length) {
			if (boxes.length !== 1) out.problems.push("the form has " + boxes.length + " checkboxes " + f.name + ", want one");
			else if (typeof f.value !== "boolean") out.problems.push("the checkbox " + f.name + " takes true or false, not " + q);
			else push({name: f.name, kind: "checkbox", index: controls.indexOf(boxes[0]), change: boxes[0].checked !== f.value, on: f.value});
			continue;
		}
		const submits = named.filter(isSubmit);
		if (submits.length) {
			const s = submits.find(c => c.value === f.text);
			if (el !== form) out.problems.push("another button submits " + f.name + ", not the element");
			else if (!s) out.problems.push("no button submits " + f.name + "=" + q + " (the values: " + values(submits) + ")");
			else if (out.submitter >= 0) out.problems.push("the input picks two buttons to submit the form with");
			else out.submitter = controls.indexOf(s);
			continue;
		}
		const typed = named.filter(c => ["INPUT", "TEXTAREA", "SELECT"].includes(c.tagName) && !["button", "reset", "file"].includes(c.type));
		if (typed.length !== 1) {
			out.problems.push("the form has " + typed.length + " fields " + f.name + " to fill, want one");
			continue;
		}
		const c = typed[0];
		if (c.tagName === "SELECT" && ![...c.options].some(o => o.value === f.text)) {
			out.problems.push("no option of " + f.name + " has the value " + q + " (the values: " + values([...c.options]) + ")");
			continue;
		}
		push({name: f.name, kind: c.tagName === "SELECT" ? "select" : "fill", index: controls.indexOf(c), change: c.value !== f.text});
	}
	return JSON.stringify(out);
}`

// prepare finds a's element, checks input against its form, and fills the
// form in; it returns the click that is left.
func (p *Page) prepare(ctx context.Context, a aal.Affordance, input map[string]any, each func(what string) error) (*operation, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("browser: operating %q: %s", a.ID, fmt.Sprintf(format, args...))
	}
	if a.Selector == "" {
		return nil, fail("the affordance has no selector")
	}
	type field struct {
		Name  string `json:"name"`
		Text  string `json:"text"`  // the value as a form holds it
		Value any    `json:"value"` // the value as the input has it
	}
	fields := make([]field, 0, len(input))
	texts := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(input)) {
		text, err := FormValue(input[name])
		if err != nil {
			return nil, fail("the field %s: %v", name, err)
		}
		fields = append(fields, field{name, text, input[name]})
		texts[name] = text
	}

	t, err := p.target(ctx, a, input)
	if errors.Is(err, errNoElement) {
		return nil, fmt.Errorf("browser: operating %q: %v: %w", a.ID, err, ErrUnavailable)
	}
	if err != nil {
		return nil, fail("%v", err)
	}
	if t.problem != "" {
		return nil, fmt.Errorf("browser: operating %q: %s: %s: %w", a.ID, a.Selector, t.problem, ErrUnavailable)
	}

	el := t.js
	form := "(" + jsFormOf + ")(" + el + ")"
	planned, err := p.eval(ctx, `(fields) => (`+jsOperation+`)(`+el+`, fields)`, fields)
	if err != nil {
		return nil, fail("%v", err)
	}
	var plan struct {
		Problems []string `json:"problems"`
		Steps    []struct {
			Name   string `json:"name"`
			Kind   string `json:"kind"` // fill, select, radio, checkbox
			Index  int    `json:"index"`
			Change bool   `json:"change"`
			On     bool   `json:"on"`
		} `json:"steps"`
		Submitter int `json:"submitter"`
	}
	if err := jsonUnmarshal(planned, &plan); err != nil {
		return nil, fail("%v", err)
	}
	if len(plan.Problems) > 0 {
		return nil, fail("%s", strings.Join(plan.Problems, "; "))
	}

	for _, s := range plan.Steps {
		if !s.Change {
			continue
		}
		control := fmt.Sprintf("%s.elements[%d]", form, s.Index)
		var problem, what string
		switch s.Kind {
		case "radio", "checkbox":
			problem, err = p.eval(ctx, `(on) => (`+jsCheck+`)(`+control+`, on)`, s.Kind == "radio" || s.On)
			what = "choose " + s.Name
			if s.Kind == "checkbox" {
				what = map[bool]string{true: "check ", false: "uncheck "}[s.On] + s.Name
			}
		default:
			problem, err = p.eval(ctx, `(value) => (`+jsFill+`)(`+control+`, value)`, texts[s.Name])
			what = "fill " + s.Name
			if s.Kind == "select" {
				what = "select " + s.Name
			}
		}
		if err != nil {
			return nil, fail("the field %s: %v", s.Name, err)
		}
		if problem != "" {
			return nil, fail("the field %s: %s", s.Name, problem)
		}
		if each != nil {
			if err := each(what); err != nil {
				return nil, err
			}
		}
	}

	// The click: the element, or the button of its form that submits a
	// field's value, or (for a <form>) its submission.
	switch {
	case plan.Submitter >= 0:
		return &operation{chromedp.Click(chromedp.JSPath(fmt.Sprintf("%s.elements[%d]", form, plan.Submitter))), plan.Submitter}, nil
	case t.form:
		return &operation{chromedp.Evaluate[chromedp.Void](el + ".requestSubmit()"), -1}, nil
	}
	return &operation{chromedp.Click(chromedp.JSPath(el)), -1}, nil
}

// FormValue returns v, the value of one field of a call's input, as a
// form field holds it ([Page.Operate] fills it in so): a string as it is,
// a number in decimal, a boolean as true or false. Anything else is an
// error.
func FormValue(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case float32:
		return strconv.FormatFloat(float64(v), 'f', -1, 32), nil
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(v), nil
	case json.Number:
		return v.String(), nil
	}
	return "", fmt.Errorf("a form holds a string, a number or a boolean, not %T", v)
}
