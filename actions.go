package affordances

import (
	"html/template"
)

// Actions are a page's actions as its graph lists them for one request
// ([Page.Actions]), with what its template asks of them. The methods are
// safe on a nil Actions.
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

// Reason returns "" when the action is available, and otherwise why not,
// for a person: its graph's reason, or "Not available here." (in their
// language, for the Actions of a [Page]) when the page does not list it
// for them. A template disables the action's control when there is one.
func (as Actions) Reason(name string) string {
	a, ok := as.Find(name)
	switch {
	case !ok:
		// [Page.Actions] keeps it past the slice's end, said in the
		// person's language: the one thing an Actions does not hold.
		if len(as) < cap(as) {
			if x := as[:len(as)+1][len(as)]; x.Name == "" && x.Reason != "" {
				return x.Reason
			}
		}
		return notHere.format
	case !a.Available:
		return a.Reason
	}
	return ""
}

// Tool returns the attributes that make a form of the action a declarative
// WebMCP tool (docs/protocol.md decision 12): toolname and tooldescription, the
// same tool [Page.Head]'s script registers, for a browser without script; "" when
// the action is not available.
func (as Actions) Tool(name string) template.HTMLAttr {
	tool, desc := as.tool(name)
	if tool == "" {
		return ""
	}
	return template.HTMLAttr(`toolname="` + template.HTMLEscapeString(tool) + `" tooldescription="` + template.HTMLEscapeString(desc) + `"`)
}

// ToolAttributes returns the attributes of [Actions.Tool] as a map, a
// templ.Attributes for templ's spread, empty when the action is not
// available: <form method="post" { templ.Attributes(pg.Actions().ToolAttributes("addNote"))... }>.
// Each call returns a new map.
func (as Actions) ToolAttributes(name string) map[string]any {
	tool, desc := as.tool(name)
	if tool == "" {
		return map[string]any{}
	}
	return map[string]any{"toolname": tool, "tooldescription": desc}
}

// tool returns the name and description of the declarative tool of the
// action name, or "" when it is not available.
func (as Actions) tool(name string) (string, string) {
	a, ok := as.Find(name)
	if !ok || !a.Available {
		return "", ""
	}
	return a.Name, toolDescription(a.Description, a.Expose)
}
