package conformance

import (
	"encoding/json"
	"net/http"
	"strings"

	affordances "github.com/affordances/affordances-go"
)

// discoveryChecks are the checks of how a client finds the site index and a
// page's graph: the index at its well-known path, the graph at the page's
// own URL by content negotiation (docs/protocol.md §2 and §3, decision 3)
// or through the ?affordances=1 alias, and the not_found delta of a page
// that has none.
func discoveryChecks() []check {
	return []check{
		{"v0.discovery.index", secIndex, "GET /.well-known/affordances.json returns a site index.", Must, func(s *suite) verdict {
			x := s.indexX
			if x.err != nil || x.status != 200 || s.index == nil {
				return fail(x, "no site index: status %d", x.status)
			}
			return pass(x, "%d routes", len(s.index.Routes))
		}},
		{"v0.discovery.graph", secDiscovery, "A client requests the page's own URL with Accept: application/vnd.affordances+json. The server responds with a graph for that page.", Must, func(s *suite) verdict {
			if v, ok := s.needPages(); !ok {
				return v
			}
			return pass(s.first().graphX, "%d pages discovered", len(s.order))
		}},
		{"v0.negotiation.content-type", secMedia, "All Affordances documents use application/vnd.affordances+json.", Must, func(s *suite) verdict {
			if !s.indexX.isDocument() {
				return fail(s.indexX, "the site index came as %q", s.indexX.header.Get("Content-Type"))
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				return fail(p.graphX, "graph came as %q", p.graphX.header.Get("Content-Type")), p.graphX.isDocument()
			})
		}},
		{"v0.negotiation.q-zero", secC3, "A request asks for an Affordances document when its Accept lists application/vnd.affordances+json with q > 0.", Must,
			negotiateNot("application/vnd.affordances+json;q=0, text/html")},
		{"v0.negotiation.wildcard", secC3, "Accept: */* and application/json do not ask.", Must, negotiateNot("*/*")},
		{"v0.negotiation.json", secC3, "Accept: */* and application/json do not ask.", Must, negotiateNot("application/json")},
		{"v0.negotiation.html", secMedia, "A server must not return an Affordances document for a request that did not ask for one.", Must, negotiateNot("text/html")},
		{"v0.negotiation.no-accept", secMedia, "A server must not return an Affordances document for a request that did not ask for one.", Must, negotiateNot("")},
		{"v0.negotiation.alias", secDiscovery, "A server that supports it must treat GET <url>?affordances=1 like GET <url> with the Affordances Accept header, and must leave affordances out of the searchParams it gives the page's state.", Must, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				if strings.Contains(p.path, "?") {
					return verdict{}, true
				}
				x := s.get(p.path+"?affordances=1", browserAccept, agent)
				var g affordances.Graph
				if !x.isDocument() || x.status != 200 || json.Unmarshal(x.body, &g) != nil {
					return fail(x, "the alias did not answer the graph"), false
				}
				a, _ := json.Marshal(g.Entities)
				b, _ := json.Marshal(p.graph.Entities)
				if g.Page != p.graph.Page || string(a) != string(b) {
					return fail(x, "the alias's graph differs from the one asked for by Accept"), false
				}
				return verdict{}, true
			})
		}},
		{"v0.negotiation.head", secC3, "GET and HEAD ask for a graph.", Must, func(s *suite) verdict {
			p := s.first()
			if p == nil {
				return none("no page with a graph")
			}
			x := s.do(http.MethodHead, p.path, agent, http.Header{"Accept": {affordances.MediaType}}, nil)
			if x.status != 200 || !x.isDocument() {
				return fail(x, "HEAD got status %d, %q", x.status, x.header.Get("Content-Type"))
			}
			if len(x.body) > 0 {
				return fail(x, "HEAD answered a body of %d bytes", len(x.body))
			}
			return pass(x, "200, no body")
		}},
		{"v0.negotiation.not-found", secDiscovery, "The server responds with a graph for that page, or a not_found delta with status 404 if the page has no Affordances graph.", Must, func(s *suite) verdict {
			x := s.notFound()[0]
			if !x.isDocument() || x.code() != affordances.NotFound {
				return fail(x, "a page with no graph answered %d %q, want a not_found delta", x.status, x.header.Get("Content-Type"))
			}
			return pass(x, "not_found delta")
		}},
		{"v0.negotiation.index-any-accept", secC3, "GET /.well-known/affordances.json asks by its path: it answers the site index with application/vnd.affordances+json whatever the Accept header says.", Must, func(s *suite) verdict {
			x := s.get(s.indexPath, browserAccept, agent)
			if x.status != 200 || !x.isDocument() {
				return fail(x, "with a browser's Accept the index answered %d %q", x.status, x.header.Get("Content-Type"))
			}
			return pass(x, "site index")
		}},
	}
}

// negotiateNot GETs the first page with accept and checks the answer is not
// an Affordances document.
func negotiateNot(accept string) func(*suite) verdict {
	return func(s *suite) verdict {
		p := s.first()
		if p == nil {
			return none("no page with a graph")
		}
		// As the person: a request that does not ask is a browser's, or
		// another client's.
		x := s.get(p.path, accept, person)
		if x.err != nil {
			return fail(x, "request failed: %v", x.err)
		}
		if x.isDocument() {
			return fail(x, "answered an Affordances document to a request that did not ask for one")
		}
		return pass(x, "answered %s", x.header.Get("Content-Type"))
	}
}
