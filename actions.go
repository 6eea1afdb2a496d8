package affordances

import (
	"context"
	"html/template"
	"slices"
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

// listed is one action of a graph as a requester sees it.
type listed struct {
	a         *action
	available bool
	reason    string
	broken    bool // its guard panicked: a call gets internal
}

// descriptor returns the wire form of l.
func (l listed) descriptor() ActionDescriptor {
	return ActionDescriptor{ActionSummary: l.a.summary, Available: l.available, Reason: l.reason}
}

// listing evaluates the route's actions for req: those listed, in
// declaration order, with their availability (docs/protocol.md decision 1).
func (rt *Route) listing(ctx context.Context, req *Request) []listed {
	return rt.appendListing(make([]listed, 0, len(rt.actions)), ctx, req)
}

// appendListing appends the listing of req to ls.
func (rt *Route) appendListing(ls []listed, ctx context.Context, req *Request) []listed {
	for _, a := range rt.actions {
		if !a.listedFor(req) {
			continue
		}
		l := listed{a: a, available: true}
		if a.Expose != ExposePublic && req.Principal.Anonymous() {
			l.available, l.reason = false, rt.site.localize(req.HTTP, req.Principal, rt.site.signIn()).Message
		} else if a.Guard != nil {
			if ok, reason, panicked := a.guard(ctx, rt.site, req); !ok {
				if reason == "" {
					reason = rt.site.say(req.HTTP, req.Principal, phrase("Not available right now."))
				}
				l.available, l.reason, l.broken = false, reason, panicked
			}
		}
		ls = append(ls, l)
	}
	return ls
}

// guarded is step 5 of a call (seed 000): the action as the page's
// listing before it shows it, available or refused with its reason. An
// action no longer listed once the state is loaded (Visible changed its
// mind) is refused, never run unguarded; one whose guard panicked is the
// site's failure.
func guarded(before []listed, a *action) error {
	i := slices.IndexFunc(before, func(l listed) bool { return l.a == a })
	switch {
	case i < 0:
		return forbidden(phrase("You may not do this."))
	case before[i].broken:
		return internalError
	case !before[i].available:
		return NewError(Unavailable, before[i].reason)
	}
	return nil
}

// listedFor reports whether the action appears in req's graph and index
// (docs/protocol.md decision 1).
// A panicking Visible hides the action.
func (a *action) listedFor(req *Request) (listed bool) {
	if a.Expose == "" {
		return false
	}
	if a.Visible == nil {
		return true
	}
	defer func() {
		if v := recover(); v != nil {
			req.route.site.logger.Error("affordances: panic in Visible of "+a.Name, "panic", v)
			listed = false
		}
	}()
	return a.Visible(req)
}

// guard runs the action's guard; a panicking guard says no.
func (a *action) guard(ctx context.Context, s *Site, req *Request) (ok bool, reason string, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("affordances: panic in guard of "+a.Name, "panic", v)
			ok, reason, panicked = false, "", true // the listing's reason
		}
	}()
	ok, reason = a.Guard(ctx, req)
	return ok, reason, false
}
