package conformance

import (
	"slices"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/wirecheck"
	"github.com/affordances/affordances-go/schemas"
)

// shapeChecks are the checks of the documents' shapes (docs/protocol.md §7,
// §13, §24 and §27): the site index and each graph against their JSON
// Schemas, their version, a graph's page and route, and the names, reasons
// and expose of its actions.
func shapeChecks() []check {
	return []check{
		{"v0.shape.index", secIndex, "The JSON Schemas in schemas/ are authoritative for shapes (site-index.json).", Must, func(s *suite) verdict {
			if s.indexX.status != 200 {
				return fail(s.indexX, "no site index")
			}
			if err := wirecheck.Validate(schemas.SiteIndex, s.indexX.body); err != nil {
				return fail(s.indexX, "%v", err)
			}
			return pass(s.indexX, "valid")
		}},
		{"v0.shape.graph", secGraph, "The JSON Schemas in schemas/ are authoritative for shapes (graph.json).", Must, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				err := wirecheck.Validate(schemas.Graph, p.graphX.body)
				return fail(p.graphX, "%v", err), err == nil
			})
		}},
		{"v0.shape.version", secVersion, "v is the protocol's major version: \"0\" in graphs and site indexes.", Must, func(s *suite) verdict {
			if s.index != nil && s.index.V != "0" {
				return fail(s.indexX, "the index's v is %q", s.index.V)
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				return fail(p.graphX, "the graph's v is %q", p.graph.V), p.graph.V == "0"
			})
		}},
		{"v0.shape.page", secGraph, "page: concrete path; route: pattern.", Must, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				if p.graph.Page != pathOnly(p.path) {
					return fail(p.graphX, "page is %q for a request of %q", p.graph.Page, p.path), false
				}
				if !routeMatches(p.graph.Route, p.graph.Page) {
					return fail(p.graphX, "route %q does not match page %q", p.graph.Route, p.graph.Page), false
				}
				return verdict{}, true
			})
		}},
		{"v0.shape.unique-names", secAction, "name: unique per route, stable across releases.", Must, func(s *suite) verdict {
			if s.index != nil {
				for _, r := range s.index.Routes {
					if d := duplicate(r.Actions, func(a affordances.ActionSummary) string { return a.Name }); d != "" {
						return fail(s.indexX, "route %s lists action %q twice", r.Route, d)
					}
				}
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				d := duplicate(p.graph.Actions, func(a affordances.ActionDescriptor) string { return a.Name })
				return fail(p.graphX, "action %q is listed twice", d), d == ""
			})
		}},
		{"v0.shape.reason", secGraph, "Actions the requester can't call right now are still listed, with available: false and a reason.", Must, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				for _, a := range p.graph.Actions {
					if !a.Available && strings.TrimSpace(a.Reason) == "" {
						return fail(p.graphX, "action %q is unavailable without a reason", a.Name), false
					}
				}
				return verdict{}, true
			})
		}},
		{"v0.shape.no-unexposed", secAction, "An action with no expose is not part of the protocol. It must not appear in graphs.", Must, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				for _, a := range p.graph.Actions {
					if !slices.Contains([]affordances.Expose{affordances.ExposePublic, affordances.ExposeSession, affordances.ExposeConfirm}, a.Expose) {
						return fail(p.graphX, "action %q has expose %q", a.Name, a.Expose), false
					}
				}
				return verdict{}, true
			})
		}},
	}
}

// duplicate returns the first name that two of xs share, or "".
func duplicate[T any](xs []T, name func(T) string) string {
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[name(x)] {
			return name(x)
		}
		seen[name(x)] = true
	}
	return ""
}
