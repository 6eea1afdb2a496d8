package conformance

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/crawl"
)

// indexChecks are the checks of the site index against the graphs
// (docs/protocol.md §24): every graph's route is in the index, every route
// of the index has graphs an agent can reach, and its action summaries are
// the graphs' descriptors.
func indexChecks() []check {
	return []check{
		{"v0.consistency.graph-routes", secIndex, "The site index lists the route patterns that have graphs and their action names.", Must, func(s *suite) verdict {
			if s.index == nil {
				return skip("no site index")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				return fail(p.graphX, "route %q is not in the site index", p.graph.Route), s.route(p.graph.Route) != nil
			})
		}},
		{"v0.consistency.index-routes", secIndex, "Every route of the index has graphs: a route without parameters answers its graph (or not_found to a requester who may not see it).", Must, func(s *suite) verdict {
			if s.index == nil {
				return skip("no site index")
			}
			// A route for signed-in people that asks the suite to sign
			// in, when it has no credentials, is a route it cannot check.
			var needed []string
			var neededX *exchange
			for _, r := range s.index.Routes {
				if strings.Contains(r.Route, "[") {
					continue
				}
				if p := s.pages[r.Route]; p != nil {
					continue
				}
				x := s.get(r.Route, affordances.MediaType, agent)
				var g affordances.Graph
				if x.status == 200 && x.isJSON() && json.Unmarshal(x.body, &g) == nil && g.Route == r.Route {
					continue // not discovered: past MaxPages
				}
				if n := s.needs(x); n != "" {
					needed = append(needed, x.answered(s.base))
					neededX = x
					continue
				}
				if x.code() != affordances.NotFound && x.status != 404 {
					return fail(x, "route %s of the index answered neither its graph nor not_found", r.Route)
				}
			}
			if len(needed) > 0 {
				n := s.lacks(agent)
				return verdict{outcome: Pass, reason: fmt.Sprintf("%s: needs %s; every other route without parameters answered", strings.Join(needed, ", "), n), ex: neededX, needs: n}
			}
			return pass(s.indexX, "every route without parameters answered")
		}},
		{"v0.consistency.routes-reached", secIndex, "Every route of the index has reachable graphs (through the nav from /): a page of a route that the HTML links to is in some graph's nav too.", Should, routesReached},
		{"v0.consistency.actions-in-index", secIndex, "The index is enough to plan a task: every action of a graph is in the index summary of its route.", Must, func(s *suite) verdict {
			return eachIndexedAction(s, func(p *page, a affordances.ActionDescriptor, r *affordances.RouteSummary) (verdict, bool) {
				if !slices.ContainsFunc(r.Actions, func(x affordances.ActionSummary) bool { return x.Name == a.Name }) {
					return fail(p.graphX, "action %q of %s is not in the index", a.Name, r.Route), false
				}
				return verdict{}, true
			})
		}},
		{"v0.consistency.summaries", secIndex, "ActionSummary = Omit<ActionDescriptor, 'available' | 'reason'>: the summaries match the descriptors.", Must, func(s *suite) verdict {
			return eachIndexedAction(s, func(p *page, a affordances.ActionDescriptor, r *affordances.RouteSummary) (verdict, bool) {
				for _, x := range r.Actions {
					if x.Name == a.Name && !sameSummary(x, a.ActionSummary) {
						return fail(p.graphX, "the descriptor of %q differs from its summary in the index", a.Name), false
					}
				}
				return verdict{}, true
			})
		}},
	}
}

// eachIndexedAction runs fn on each action of each page's graph, with the
// index's summary of the page's route, until fn fails: a skip without an
// index; a page whose route the index lacks is another check's failure.
func eachIndexedAction(s *suite, fn func(p *page, a affordances.ActionDescriptor, r *affordances.RouteSummary) (verdict, bool)) verdict {
	if s.index == nil {
		return skip("no site index")
	}
	return eachPage(s, func(p *page) (verdict, bool) {
		r := s.route(p.graph.Route)
		if r == nil {
			return verdict{}, true
		}
		for _, a := range p.graph.Actions {
			if v, ok := fn(p, a, r); !ok {
				return v, false
			}
		}
		return verdict{}, true
	})
}

// maxLinkedProbes bounds the pages of one unreached route that
// routesReached asks for the graph of.
const maxLinkedProbes = 3

// routesReached looks for the routes with parameters that no discovered
// page is of. A route is unreached when the site has no such page for this
// requester (a fresh account has no order): that is a skip. It is a
// failure when the HTML of a discovered page links to a page of the route
// that answers its graph: a person can get there, an agent following the
// nav cannot.
func routesReached(s *suite) verdict {
	if s.index == nil {
		return skip("no site index")
	}
	reached := map[string]bool{}
	for _, p := range s.each() {
		reached[p.graph.Route] = true
	}
	var missing []string
	for _, r := range s.index.Routes {
		if !reached[r.Route] && strings.Contains(r.Route, "[") {
			missing = append(missing, r.Route)
		}
	}
	if len(missing) == 0 {
		return pass(s.indexX, "every route with parameters reached")
	}
	if s.bounded {
		return skip("no page of %s was reached within the %d pages discovered", strings.Join(missing, ", "), s.opts.MaxPages)
	}
	for _, route := range missing {
		tried := map[string]bool{}
		for _, p := range s.each() {
			base, err := url.Parse(s.base + p.path)
			if err != nil {
				continue
			}
			for _, to := range crawl.HTMLLinks(base, s.html(p).body) {
				if tried[to] || len(tried) == maxLinkedProbes || !routeMatches(route, pathOnly(to)) {
					continue
				}
				tried[to] = true
				x := s.get(to, affordances.MediaType, agent)
				var g affordances.Graph
				if x.status == 200 && json.Unmarshal(x.body, &g) == nil && g.Route == route {
					return fail(x, "the HTML of %s links to %s, a page of %s with a graph, but no graph's nav leads to a page of %s", p.path, to, route, route)
				}
			}
		}
	}
	return none("no page of %s was reached from / as this requester, and no page's HTML links to one", strings.Join(missing, ", "))
}

// route returns the index's summary of the route pattern, or nil.
func (s *suite) route(pattern string) *affordances.RouteSummary {
	if s.index == nil {
		return nil
	}
	for i := range s.index.Routes {
		if s.index.Routes[i].Route == pattern {
			return &s.index.Routes[i]
		}
	}
	return nil
}

// sameSummary reports whether two summaries of an action are the same.
func sameSummary(a, b affordances.ActionSummary) bool {
	return a.Name == b.Name && a.Description == b.Description && a.Expose == b.Expose && a.Guard == b.Guard &&
		a.ReadOnly == b.ReadOnly && slices.Equal(a.Effects, b.Effects) &&
		rawEqual(a.Input, b.Input) && rawEqual(a.Output, b.Output)
}
