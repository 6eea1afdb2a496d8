package affordances

import (
	"context"
	"net/http"
)

// State is one load of a page's state.
type State struct {
	// Entities is the page's state by name, encoded with encoding/json; only
	// what the HTML page shows the same requester (docs/protocol.md §7).
	Entities map[string]any
	Nav      []NavLink // the links a person sees on the page
	MD       string    // an optional Markdown rendering of the page
}

// Entity returns the entity name of st as a T, or T's zero value when st is
// nil or its entity is missing or of another type.
func Entity[T any](st *State, name string) T {
	var zero T
	if st == nil {
		return zero
	}
	v, ok := st.Entities[name].(T)
	if !ok {
		return zero
	}
	return v
}

// load makes the page's Request for p and loads its state.
func (s *Site) load(ctx context.Context, hr *http.Request, rt *Route, params []param, p Principal) (*Request, error) {
	req := &Request{HTTP: hr, Principal: p, Page: hr.URL.Path, route: rt, params: params}
	if err := s.loadState(ctx, req); err != nil {
		return nil, err
	}
	return req, nil
}

// see loads req's page as its requester sees it: its state
// ([Site.loadState]), then its actions as its graph lists them, appended
// to ls. gone says a page that no longer exists (NotFound) is seen empty,
// its actions listed against no entities: the page of an item its action
// removed.
func (s *Site) see(ctx context.Context, req *Request, ls []listed, gone bool) ([]listed, error) {
	if err := s.loadState(ctx, req); err != nil {
		if !gone || CodeOf(err) != NotFound {
			return nil, err
		}
		req.State = &State{}
	}
	return req.route.appendListing(ls, ctx, req), nil
}

// loadState runs the route's state loader for req, setting req.State.
func (s *Site) loadState(ctx context.Context, req *Request) (err error) {
	req.State = nil
	rt := req.route
	if rt.opts.State == nil {
		req.State = &State{}
		return nil
	}
	defer s.recoverTo(&err, "state of ", rt.pattern)
	st, err := rt.opts.State(ctx, req)
	if err != nil {
		return s.public(err, "state of "+rt.pattern)
	}
	if st == nil {
		st = &State{}
	}
	if rt.hasEffects && !rt.effectsSeen.Load() {
		rt.noteEntities(st.Entities)
	}
	req.State = st
	return nil
}

// noteEntities records the keys of entities, a state's, and once every
// key that an action's Effects names has been seen, says so: the route
// stops recording, and calls stop checking their Effects (runAction).
func (rt *Route) noteEntities(entities map[string]any) {
	added := false
	for k := range entities {
		if _, ok := rt.entities.Load(k); !ok {
			rt.entities.Store(k, true)
			added = true
		}
	}
	if !added {
		return
	}
	for _, a := range rt.actions {
		for _, k := range a.Effects {
			if _, ok := rt.entities.Load(k); !ok {
				return
			}
		}
	}
	rt.effectsSeen.Store(true)
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
