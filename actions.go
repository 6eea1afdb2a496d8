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

// A PageAction is one action of a page as its template renders it
// ([Page.Action]): whether the person may run it, and why not, and what
// its form and controls carry, all under the one name:
//
//	{{with .Page.Action "createTask"}}
//	{{if .Reason}}<button {{.AAL}} disabled>Add task</button> {{.Reason}}
//	{{else}}<form method="post" {{.Tool}}>{{.Hidden}}
//	  {{$title := .Field "title"}}
//	  <input {{$title.Attrs}} value="{{$title.Value}}"> {{$title.Issue}}
//	  <button {{.AAL}}>Add task</button>
//	</form>{{end}}
//	{{end}}
type PageAction struct {
	page   *Page
	name   string
	listed *listed // nil when the page does not list the action
}

// Action returns the action name of the page, as its graph lists it for
// this request; an action the page does not list has the Reason "Not
// available here.", in the person's language.
func (p *Page) Action(name string) PageAction {
	pa := PageAction{page: p, name: name}
	ls := p.listing()
	if i := slices.IndexFunc(ls, func(l listed) bool { return l.a.Name == name }); i >= 0 {
		pa.listed = &ls[i]
	}
	return pa
}

// Reason returns "" when the action is available, and otherwise why not,
// for the person: its guard's reason, or "Not available here." when the
// page does not list it for them. A template disables or leaves out the
// action's controls when there is one.
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

// Hidden returns the hidden input that makes a form posted to its page run
// the action (the form binding, [FormActionField]). In a templ component:
// @templ.Raw(a.Hidden()).
func (a PageAction) Hidden() template.HTML {
	return template.HTML(hiddenInput(FormActionField, a.name))
}

// Tool returns the attributes that make the action's form a declarative
// WebMCP tool (docs/protocol.md decision 12): toolname and tooldescription,
// the tool [Page.Head]'s script registers, for a browser without script;
// "" when the action is not available.
func (a PageAction) Tool() template.HTMLAttr {
	if a.Reason() != "" {
		return ""
	}
	return template.HTMLAttr(`toolname="` + template.HTMLEscapeString(a.name) + `" tooldescription="` + template.HTMLEscapeString(a.toolDescription()) + `"`)
}

// ToolAttributes returns the attributes of [PageAction.Tool] as a map, a
// templ.Attributes for templ's spread, empty when the action is not
// available: <form method="post" { templ.Attributes(a.ToolAttributes())... }>.
func (a PageAction) ToolAttributes() map[string]any {
	if a.Reason() != "" {
		return map[string]any{}
	}
	return map[string]any{"toolname": a.name, "tooldescription": a.toolDescription()}
}

func (a PageAction) toolDescription() string {
	return toolDescription(a.listed.a.Description, a.listed.a.Expose)
}

// AAL returns the data-aal attribute of the element that performs the
// action, which its affordance selects (docs/protocol.md decision 9), and
// from name/value pairs the data-aal-input that picks this element's item
// (docs/protocol.md decision 11): {{$delete.AAL "task" .ID}}. Misused
// pairs are the template's error. In templ, [AAL] gives the same as a map.
func (a PageAction) AAL(pairs ...any) (template.HTMLAttr, error) {
	return aalAttrs(a.name, pairs...)
}

// Form returns what became of the person's form of the action ([Page.Form]),
// nil when the request follows no form of it.
func (a PageAction) Form() *Form { return a.page.Form().For(a.name) }
