package affordances

import (
	"context"
	"net/http"
)

// load makes the page's Request for p and loads its state.
func (s *Site) load(ctx context.Context, hr *http.Request, rt *Route, params []param, p Principal) (*Request, error) {
	req := &Request{HTTP: hr, Principal: p, Page: hr.URL.Path, route: rt, params: params}
	if err := s.loadState(ctx, req); err != nil {
		return nil, err
	}
	return req, nil
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
