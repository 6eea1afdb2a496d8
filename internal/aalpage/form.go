package aalpage

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/affordances/affordances-go/aal"
)

// An Element is what a page's HTML has for one affordance: the elements
// its selector finds and, for the first, where it leads and the fields of
// its form. Its strings are the site's text.
type Element struct {
	// Matches is how many elements the selector finds in the HTML; 0
	// means the page does not offer the affordance now (docs/protocol.md decision 11).
	Matches int
	// Items holds the data-aal-input of each element found, when the
	// selector finds several: the input fields that pick one.
	Items []map[string]any
	// Problems say how the elements break docs/protocol.md decision 11 (an element
	// among several without data-aal-input, two alike), or that the
	// selector is not valid CSS.
	Problems []string
	// Tag is the first element's tag name: "button", "a", "form"...
	Tag string
	// Href is where a link leads, resolved against the page.
	Href string
	// Method and Action are the first element's form's method (GET or
	// POST) and where it sends its fields, resolved; empty without a form.
	Method, Action string
	// Fields are that form's fields, hidden ones included, in document
	// order.
	Fields []Field
	// Input is a JSON Schema (2020-12) of the input a call gives: one
	// property per field a person fills in (by its name; its label is the
	// title), enums for a select and radio buttons, a boolean for a
	// checkbox, and, when the selector finds several elements, the fields
	// of their data-aal-input, which pick one.
	Input json.RawMessage
}

// A Field is one field of a form, as the HTML declares it.
type Field struct {
	Name string
	// Label is the text of its <label> (without the controls in it), or
	// its aria-label, whitespace collapsed.
	Label string
	// Type is the input's type ("text", "email", "checkbox", "radio",
	// "hidden", "password"...), or "textarea" or "select".
	Type     string
	Required bool
	// Value is a hidden field's value, or a checkbox's.
	Value string
	// Options are the values of a select's options or of a radio group.
	Options []string
	// MaxLength is the maxlength attribute; 0 when absent.
	MaxLength int
}

// elementFor reads what the page's HTML has for the affordance a.
func elementFor(root *html.Node, base *url.URL, a aal.Affordance) *Element {
	e := &Element{}
	sel, err := cascadia.Parse(a.Selector)
	if err != nil {
		e.Problems = []string{"the selector is not valid CSS: " + aal.Visible(err.Error())}
		e.Input = schemaFor(e)
		return e
	}
	found := cascadia.QueryAll(root, sel)
	e.Matches = len(found)
	if len(found) > 1 {
		inputs := make([]*string, len(found))
		for i, n := range found {
			if v, ok := attr(n, aal.InputAttribute); ok {
				inputs[i] = &v
				if m, err := aal.ParseInput(v); err == nil {
					e.Items = append(e.Items, m)
				}
			}
		}
		e.Problems = aal.CheckMatches(true, inputs)
	}
	if len(found) > 0 {
		first := found[0]
		e.Tag = first.Data
		if a := closest(first, atom.A); a != nil {
			if href, ok := attr(a, "href"); ok {
				if u, err := base.Parse(strings.TrimSpace(href)); err == nil {
					e.Href = u.String()
				}
			}
		}
		if form := formOf(root, first); form != nil {
			e.Method, e.Action = formTarget(base, form, first)
			e.Fields = fieldsOf(root, form)
		}
	}
	e.Input = schemaFor(e)
	return e
}

func closest(n *html.Node, a atom.Atom) *html.Node {
	for ; n != nil; n = n.Parent {
		if n.Type == html.ElementNode && n.DataAtom == a {
			return n
		}
	}
	return nil
}

// formOf returns the form of n: n itself when it is a form, else its form
// owner (its form attribute, else the form around it).
func formOf(root, n *html.Node) *html.Node {
	if n.DataAtom == atom.Form {
		return n
	}
	if id, ok := attr(n, "form"); ok {
		return byID(root, id)
	}
	return closest(n, atom.Form)
}

func byID(root *html.Node, id string) *html.Node {
	for n := range root.Descendants() {
		if v, ok := attr(n, "id"); ok && n.Type == html.ElementNode && v == id {
			return n
		}
	}
	return nil
}

// formTarget returns the method and action the element el submits form
// with: a button's formmethod and formaction override the form's.
func formTarget(base *url.URL, form, el *html.Node) (method, action string) {
	method, _ = attr(form, "method")
	action, _ = attr(form, "action")
	if m, ok := attr(el, "formmethod"); ok && el != form {
		method = m
	}
	if a, ok := attr(el, "formaction"); ok && el != form {
		action = a
	}
	method = strings.ToUpper(strings.TrimSpace(method))
	if method != "POST" && method != "DIALOG" {
		method = "GET"
	}
	u, err := base.Parse(strings.TrimSpace(action))
	if err != nil {
		return method, ""
	}
	return method, u.String()
}

// fieldsOf returns the fields of form, radio buttons of one name as one
// field, disabled and button-like controls left out.
func fieldsOf(root, form *html.Node) []Field {
	var out []Field
	radios := map[string]int{} // name -> index in out
	for n := range root.Descendants() {
		if n.Type != html.ElementNode || (n.DataAtom != atom.Input && n.DataAtom != atom.Textarea && n.DataAtom != atom.Select) {
			continue
		}
		if formOf(root, n) != form {
			continue
		}
		if _, disabled := attr(n, "disabled"); disabled {
			continue
		}
		name, _ := attr(n, "name")
		if name == "" {
			continue
		}
		f := Field{Name: name, Type: n.Data, Label: labelOf(root, n)}
		_, f.Required = attr(n, "required")
		if ml, ok := attr(n, "maxlength"); ok {
			f.MaxLength, _ = strconv.Atoi(strings.TrimSpace(ml))
		}
		switch n.DataAtom {
		case atom.Input:
			t, _ := attr(n, "type")
			f.Type = strings.ToLower(strings.TrimSpace(t))
			if f.Type == "" {
				f.Type = "text"
			}
			switch f.Type {
			case "submit", "button", "reset", "image":
				continue
			case "hidden":
				f.Value, _ = attr(n, "value")
			case "checkbox":
				f.Value, _ = attr(n, "value")
				if f.Value == "" {
					f.Value = "on"
				}
			case "radio":
				v, ok := attr(n, "value")
				if !ok {
					v = "on"
				}
				if i, seen := radios[name]; seen {
					out[i].Options = append(out[i].Options, v)
					out[i].Required = out[i].Required || f.Required
					continue
				}
				f.Label, f.Options = "", []string{v}
				radios[name] = len(out)
			}
		case atom.Select:
			for o := range n.Descendants() {
				if o.Type == html.ElementNode && o.DataAtom == atom.Option {
					v, ok := attr(o, "value")
					if !ok {
						v = collapse(textOf(o))
					}
					f.Options = append(f.Options, v)
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// labelOf returns what labels the control n: the text of its <label>
// elements without the controls in them, else its aria-label.
func labelOf(root, n *html.Node) string {
	var labels []*html.Node
	if id, ok := attr(n, "id"); ok && id != "" {
		for l := range root.Descendants() {
			if l.Type == html.ElementNode && l.DataAtom == atom.Label {
				if f, ok := attr(l, "for"); ok && f == id {
					labels = append(labels, l)
				}
			}
		}
	}
	if l := closest(n, atom.Label); l != nil && !slices.Contains(labels, l) {
		if _, hasFor := attr(l, "for"); !hasFor {
			labels = append(labels, l)
		}
	}
	var parts []string
	for _, l := range labels {
		if t := collapse(labelText(l)); t != "" {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		v, _ := attr(n, "aria-label")
		return collapse(v)
	}
	return strings.Join(parts, " ")
}

// labelText is the text of a label without the controls inside it.
func labelText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Input, atom.Select, atom.Textarea, atom.Button, atom.Script, atom.Style:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// schemaFor writes e's Input schema.
func schemaFor(e *Element) json.RawMessage {
	type prop = map[string]any
	props := map[string]any{}
	var order []string // the properties in the order a person meets them
	required := []string{}
	picks := map[string]bool{}
	if len(e.Items) > 0 {
		values := map[string][]any{}
		var keys []string
		for _, item := range e.Items {
			for k, v := range item {
				if _, seen := values[k]; !seen {
					keys = append(keys, k)
				}
				values[k] = append(values[k], v)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			props[k] = prop{"description": "picks one of the elements the selector finds (their " + aal.InputAttribute + ")", "enum": values[k]}
			order = append(order, k)
			required = append(required, k)
			picks[k] = true
		}
	}
	for _, f := range e.Fields {
		if f.Type == "hidden" || f.Type == "file" || picks[f.Name] {
			continue
		}
		if _, dup := props[f.Name]; dup {
			continue
		}
		p := prop{"type": "string"}
		switch f.Type {
		case "checkbox":
			p = prop{"type": "boolean"}
		case "number", "range":
			p = prop{"type": "number"}
		case "email":
			p["format"] = "email"
		case "url":
			p["format"] = "uri"
		}
		if len(f.Options) > 0 {
			p["enum"] = f.Options
		}
		if f.MaxLength > 0 && p["type"] == "string" {
			p["maxLength"] = f.MaxLength
		}
		if f.Label != "" {
			p["title"] = f.Label
		}
		if f.Required {
			required = append(required, f.Name)
			if p["type"] == "string" {
				p["minLength"] = 1
			}
		}
		props[f.Name] = p
		order = append(order, f.Name)
	}
	// Properties in the order a person meets them: encoding/json sorts a
	// map's keys, so the object is written by hand.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i, k := range order {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(props[k])
		b.Write(kb)
		b.WriteString(":")
		b.Write(vb)
	}
	b.WriteString("}")
	if len(required) > 0 {
		rb, _ := json.Marshal(required)
		b.WriteString(`,"required":`)
		b.Write(rb)
	}
	if len(order) == 0 {
		b.WriteString(`,"additionalProperties":false`)
	}
	b.WriteString("}")
	return json.RawMessage(b.String())
}
