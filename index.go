package affordances

import "net/http"

// IndexPath is where a site serves its index (docs/protocol.md §3).
const IndexPath = "/.well-known/affordances.json"

// serveIndex answers GET /.well-known/affordances.json with the site index
// as the requester sees it (actions hidden from them are left out).
func (s *Site) serveIndex(w http.ResponseWriter, r *http.Request) {
	p, err := s.authenticate(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	idx := SiteIndex{V: Version, Name: s.opts.Name, Routes: []RouteSummary{}, Auth: s.opts.Auth, MCP: s.opts.MCP, OAuth: s.opts.OAuth}
	if idx.Auth == nil {
		idx.Auth = []AuthMethod{}
	}
	for _, rt := range s.routes {
		req := &Request{HTTP: r, Principal: p, route: rt}
		sum := RouteSummary{Route: rt.pattern, Description: rt.opts.Description, Actions: []ActionSummary{}}
		for _, a := range rt.actions {
			if a.listedFor(req) {
				sum.Actions = append(sum.Actions, a.summary)
			}
		}
		idx.Routes = append(idx.Routes, sum)
	}
	s.writeDocument(w, r, http.StatusOK, &idx)
}
