package affordances

import (
	"html/template"
	"slices"
)

// Actions are a page's actions as its graph lists them for one request
// ([Page.Actions]). Find is safe on a nil Actions.
type Actions []ActionDescriptor

// Find returns the action of that name, and whether it is listed.
func (as Actions) Find(name string) (ActionDescriptor, bool) {
	for _, a := range as {
		if a.Name == name {
			return a, true
		}
	}
	return ActionDescriptor{}, false
}

// A PageAction is an action of a page as its template renders it
// ([Page.Action]): whether it may run, and its form and controls.
type PageAction struct {
	page   *Page
	name   string
	listed *listed // nil when the page does not list the action
}

// Action returns the action named name as the page's graph lists it; one
// the page does not list is returned too, its Reason saying so.
func (p *Page) Action(name string) PageAction {
	pa := PageAction{page: p, name: name}
	ls := p.listing()
	if i := slices.IndexFunc(ls, func(l listed) bool { return l.a.Name == name }); i >= 0 {
		pa.listed = &ls[i]
	}
	return pa
}

// Reason returns why the person may not run the action now, in their
// language: its guard's reason, or "Not available here." when the page does
// not list it; "" when they may.
func (a PageAction) Reason() string {
	switch {
	case a.listed == nil && a.page == nil:
		return notHere.format
	case a.listed == nil:
		return a.page.site.say(a.page.http, a.page.Principal(), notHere)
	case !a.listed.available:
		return a.listed.reason
	}
	return ""
}

// Hidden returns the [FormActionField] input binding a form to the action.
func (a PageAction) Hidden() template.HTML {
	return template.HTML(hiddenInput(FormActionField, a.name))
}

// Tool returns the attributes that make the form a declarative WebMCP tool
// (docs/protocol.md decision 12); "" when the action is not available.
func (a PageAction) Tool() template.HTMLAttr {
	desc, ok := a.toolDescription()
	if !ok {
		return ""
	}
	return template.HTMLAttr(`toolname="` + template.HTMLEscapeString(a.name) + `" tooldescription="` + template.HTMLEscapeString(desc) + `"`)
}

// ToolAttributes returns Tool's attributes as a map (templ.Attributes).
func (a PageAction) ToolAttributes() map[string]any {
	desc, ok := a.toolDescription()
	if !ok {
		return map[string]any{}
	}
	return map[string]any{"toolname": a.name, "tooldescription": desc}
}

// toolDescription returns the description of the action's declarative
// tool, and false when it has none: the page does not list the action, or
// not as available.
func (a PageAction) toolDescription() (string, bool) {
	if a.listed == nil || !a.listed.available {
		return "", false
	}
	return a.listed.a.toolDesc, true
}

// AAL writes the attributes [AAL] returns (data-aal and, from name/value
// pairs, data-aal-input); misused pairs are the template's error.
func (a PageAction) AAL(pairs ...any) (template.HTMLAttr, error) {
	return aalAttrs(a.name, pairs...)
}

// Form returns [Page.Form] when it is the action's, else nil.
func (a PageAction) Form() *Form { return a.page.Form().For(a.name) }
