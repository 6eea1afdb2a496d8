package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/crawl"
	"github.com/affordances/affordances-go/internal/graphsize"
	"github.com/affordances/affordances-go/internal/webmcp"
	"github.com/affordances/affordances-go/internal/wirecheck"
	"github.com/affordances/affordances-go/schemas"
	"github.com/affordances/affordances-go/store"
)

// A check is one rule of the specs, and how to test it.
type check struct {
	id, section, rule string
	level             Level
	run               func(*suite) verdict
}

// A verdict is what one check found, and the exchange that decided it.
type verdict struct {
	outcome Outcome
	reason  string
	ex      *exchange
	needs   string // the credentials it lacked, as Result.Needs
	// none says the check skipped for finding nothing to check: pages
	// that asked the suite to sign in may hold it (Run says so).
	none bool
}

func pass(ex *exchange, format string, args ...any) verdict {
	return verdict{outcome: Pass, reason: fmt.Sprintf(format, args...), ex: ex}
}

func fail(ex *exchange, format string, args ...any) verdict {
	return verdict{outcome: Fail, reason: fmt.Sprintf(format, args...), ex: ex}
}

func skip(format string, args ...any) verdict {
	return verdict{outcome: Skip, reason: fmt.Sprintf(format, args...)}
}

// none is the verdict of a check that found nothing to check ("no
// confirm action is available to this requester").
func none(format string, args ...any) verdict {
	return verdict{outcome: Skip, reason: fmt.Sprintf(format, args...), none: true}
}

// needsSkip is the verdict of a check that could not run for want of the
// credentials needs names; ex, when not nil, is the answer that said so.
func needsSkip(needs string, ex *exchange, format string, args ...any) verdict {
	return verdict{outcome: Skip, reason: fmt.Sprintf(format, args...), ex: ex, needs: needs}
}

// needsAccount is the verdict of a check that needs an authenticated
// requester, when the suite has no credentials; ok is true when it has.
func (s *suite) needsAccount() (verdict, bool) {
	if n := s.lacks(agent); n != "" {
		return needsSkip(n, nil, "needs %s", n), false
	}
	return verdict{}, true
}

// Sections of the specs the checks quote.
const (
	secMedia     = "docs/protocol.md §2 (Media type)"
	secDiscovery = "docs/protocol.md §3 (Discovery)"
	secGraph     = "docs/protocol.md §7 (Graph)"
	secAction    = "docs/protocol.md §13 (Action descriptor)"
	secCall      = "docs/protocol.md §18 (Call)"
	secSecurity  = "docs/protocol.md §26 (Security)"
	secIndex     = "docs/protocol.md §24 (Site index)"
	secVersion   = "docs/protocol.md §27 (Versioning)"
	secAAL       = "seed 003; docs/protocol.md decision 7"
	secAALMeet   = "docs/protocol.md decision 9"
	secC1        = "docs/protocol.md decision 1"
	secC2        = "docs/protocol.md decision 2"
	secC3        = "docs/protocol.md decision 3"
	secC4        = "docs/protocol.md decision 4"
	secC5        = "docs/protocol.md decision 5"
	secC10       = "docs/protocol.md decision 10"
	secC11       = "docs/protocol.md decision 11"
	secC12       = "docs/protocol.md decision 12"
)

// needPages is the verdict of a check that needs a discovered graph. When
// none was found and the pages asked the suite to sign in, the check
// needs credentials; else it fails.
func (s *suite) needPages() (verdict, bool) {
	if len(s.order) > 0 {
		return verdict{}, true
	}
	if x := s.signInLacking(); x != nil {
		n := s.needs(x)
		return needsSkip(n, x, "no graph was found: %s: needs %s", x.answered(s.base), n), false
	}
	return fail(s.get("/", affordances.MediaType, agent), "no graph was found at / or through the index"), false
}

// eachPage runs f on every discovered page and fails at the first failure.
// A page whose answer asked the suite for credentials it lacks is no
// failure: the check passes on the others and says what it needs, or
// skips when it checked none.
func eachPage(s *suite, f func(p *page) (verdict, bool)) verdict {
	if v, ok := s.needPages(); !ok {
		return v
	}
	var needed *verdict
	checked := 0
	for _, p := range s.each() {
		v, ok := f(p)
		if ok {
			checked++
			continue
		}
		if n := s.needs(v.ex); n != "" {
			if needed == nil {
				needed = &verdict{ex: v.ex, needs: n, reason: fmt.Sprintf("%s: needs %s", v.ex.answered(s.base), n)}
			}
			continue
		}
		return v
	}
	if needed == nil {
		return pass(nil, "%d pages", len(s.order))
	}
	needed.outcome = Skip
	if checked > 0 {
		needed.outcome = Pass
		needed.reason = fmt.Sprintf("%d of %d pages; %s", checked, len(s.order), needed.reason)
	}
	return *needed
}

// negotiate GETs the first page with accept and checks the answer is not
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

func hasToken(list []string, token string) bool {
	for _, l := range list {
		for part := range strings.SplitSeq(l, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

func cacheOK(h http.Header) bool {
	return hasToken(h.Values("Cache-Control"), "private") && hasToken(h.Values("Cache-Control"), "no-store") &&
		!hasToken(h.Values("Cache-Control"), "public")
}

// refused is one kind of call that must be refused, sent once and kept.
func (s *suite) probe(key string, send func() (*exchange, string)) (*exchange, string) {
	if s.probes == nil {
		s.probes = map[string]probeResult{}
	}
	if r, ok := s.probes[key]; ok {
		return r.x, r.why
	}
	x, why := send()
	s.probes[key] = probeResult{x, why}
	return x, why
}

type probeResult struct {
	x   *exchange
	why string
}

// originTarget is an action whose input the suite can make invalid, so a
// call that passes the origin rule by mistake still runs nothing.
func (s *suite) originTarget() (*target, any) {
	var in any
	pick := func(pub bool) *target {
		return s.find(func(_ *page, a affordances.ActionDescriptor) bool {
			v, ok := invalidInput(a.Input)
			if ok && (a.Expose == affordances.ExposePublic) == pub {
				in = v
				return true
			}
			return false
		})
	}
	t := pick(true)
	if t == nil {
		t = pick(false)
	}
	return t, in
}

func (s *suite) cookieCall(origin string) (*exchange, string) {
	t, in := s.originTarget()
	if t == nil {
		return nil, "no action whose input the suite can make invalid"
	}
	h := http.Header{"Cookie": {"conformance=1"}}
	if origin != "" {
		h.Set("Origin", origin)
	}
	return s.call(t.page.path, nobody, h, map[string]any{"action": t.action.Name, "input": in}), ""
}

func refusedByOrigin(origin string) func(*suite) verdict {
	return func(s *suite) verdict {
		x, why := s.probe("origin "+origin, func() (*exchange, string) { return s.cookieCall(origin) })
		if x == nil {
			return none("%s", why)
		}
		if c := x.code(); c != affordances.Unauthorized {
			return fail(x, "a cookie call with Origin %q got code %q, want unauthorized", origin, c)
		}
		return pass(x, "refused with unauthorized")
	}
}

// unavailableTarget is an unavailable action of the given expose with a
// valid input, so only its guard can refuse it.
func (s *suite) unavailableTarget(expose affordances.Expose) *target {
	return s.findCall(func(_ *page, a affordances.ActionDescriptor) bool {
		return !a.Available && a.Expose == expose
	})
}

// sessionTarget is a session or confirm action with a valid input.
func (s *suite) sessionTarget() *target {
	return s.findCall(func(_ *page, a affordances.ActionDescriptor) bool { return authed(a) })
}

func (s *suite) anonymousCall(extra map[string]any, invalid bool) (*exchange, string) {
	var t *target
	if invalid {
		t = s.find(func(_ *page, a affordances.ActionDescriptor) bool {
			_, ok := invalidInput(a.Input)
			return ok && authed(a)
		})
		if t != nil {
			t.input, _ = invalidInput(t.action.Input)
		}
	} else {
		t = s.sessionTarget()
	}
	if t == nil {
		return nil, "no session action the suite can build an input for"
	}
	return s.callAs(t, nobody, extra), ""
}

func wantCode(x *exchange, why string, want affordances.Code, what string) verdict {
	if x == nil {
		return none("%s", why)
	}
	if c := x.code(); c != want {
		return fail(x, "%s: got code %q, want %s", what, c, want)
	}
	return pass(x, "%s", want)
}

// userCall calls t's action with its input as the agent (the token, or
// the session with the site's Origin), with confirm: true when confirm.
func (s *suite) userCall(t *target, confirm bool) *exchange {
	var extra map[string]any
	if confirm {
		extra = map[string]any{"confirm": true}
	}
	return s.callAs(t, agent, extra)
}

// callAs calls t's action with its input as who, with the fields of extra
// added to the call; the exchange says where the input came from.
func (s *suite) callAs(t *target, who crawl.Reader, extra map[string]any) *exchange {
	body := map[string]any{"action": t.action.Name, "input": t.input}
	for k, v := range extra {
		body[k] = v
	}
	x := s.call(t.page.path, who, nil, body)
	x.inputFrom = t.from
	return x
}

// statusOf checks the status of every delta with code, seen so far.
func statusOf(code affordances.Code, want ...int) func(*suite) verdict {
	return func(s *suite) verdict {
		var seen *exchange
		for _, x := range s.deltas {
			if x.code() != code {
				continue
			}
			seen = x
			if !slices.Contains(want, x.status) {
				return fail(x, "a %s delta came with status %d, want %v", code, x.status, want)
			}
		}
		for _, p := range s.notFound() {
			if code == affordances.NotFound && p.status != 404 {
				return fail(p, "a not_found delta came with status %d, want 404", p.status)
			}
		}
		if seen == nil && code == affordances.NotFound && len(s.notFound()) > 0 {
			// Whether it must be a delta is v0.negotiation.not-found's to say.
			return pass(s.notFound()[0], "a page no site has answered 404")
		}
		if seen == nil {
			return skip("no %s delta was seen", code)
		}
		return pass(seen, "every %s delta had status %v", code, want)
	}
}

// notFound GETs a path no site has, once: under the path prefix every
// route of the index shares, for a site mounted under one
// (docs/protocol.md decision 13), where the site, not its host, answers.
func (s *suite) notFound() []*exchange {
	x, _ := s.probe("not found", func() (*exchange, string) {
		return s.get(s.prefix()+"/.conformance/no-such-page-7d1f", affordances.MediaType, agent), ""
	})
	return []*exchange{x}
}

// prefix returns the first path segment every route of the index starts
// with, "/app", or "" when they share none.
func (s *suite) prefix() string {
	if s.index == nil || len(s.index.Routes) == 0 {
		return ""
	}
	var prefix string
	for i, rt := range s.index.Routes {
		first, _, found := strings.Cut(strings.TrimPrefix(rt.Route, "/"), "/")
		if !found || strings.HasPrefix(first, "[") || (i > 0 && first != prefix) {
			return ""
		}
		prefix = first
	}
	return "/" + prefix
}

var checks []check

func init() {
	checks = []check{
		// Discovery and negotiation.
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

		// Headers.
		{"v0.headers.graph-vary", secC3, "Graph and delta responses: Content-Type: application/vnd.affordances+json, Vary: Accept, Cache-Control: private, no-store.", Must, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				return fail(p.graphX, "no Vary: Accept on the graph"), hasToken(p.graphX.header.Values("Vary"), "Accept")
			})
		}},
		{"v0.headers.graph-cache", secDiscovery, "Graphs send Vary: Accept and Cache-Control: private, no-store.", Must, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				return fail(p.graphX, "the graph's Cache-Control is %q", p.graphX.header.Get("Cache-Control")), cacheOK(p.graphX.header)
			})
		}},
		{"v0.headers.html-vary", secDiscovery, "A server must make sure cached HTML is keyed on Accept too (with Vary: Accept, or by routing Affordances requests before the cache).", Must, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				x, v, ok := s.pageHTML(p)
				if !ok {
					return v, false
				}
				return fail(x, "no Vary: Accept on the HTML of a page with a graph"), x.isDocument() || hasToken(x.header.Values("Vary"), "Accept")
			})
		}},
		{"v0.headers.link", secDiscovery, `HTML responses for pages with a graph should advertise it in both places: Link: <?affordances=1>; rel="affordances"; on a page whose URL has a query, the link keeps it: <?q=tote&affordances=1> (docs/protocol.md decision 3)`, Should, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				x, v, ok := s.pageHTML(p)
				if !ok {
					return v, false
				}
				want := graphHref(p.path)
				for _, l := range x.header.Values("Link") {
					for _, m := range linkValue.FindAllStringSubmatch(l, -1) {
						if m[1] == want && relAffordances.MatchString(m[2]) {
							return verdict{}, true
						}
					}
				}
				return fail(x, "no Link header to the graph, <%s>; rel=\"affordances\"", want), false
			})
		}},
		{"v0.headers.link-element", secDiscovery, `HTML responses for pages with a graph should advertise it in both places: <link rel="affordances" href="?affordances=1" />; on a page whose URL has a query, the link keeps it: href="?q=tote&affordances=1" (docs/protocol.md decision 3)`, Should, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				x, v, ok := s.pageHTML(p)
				if !ok {
					return v, false
				}
				doc, err := parseHTML(x.body)
				if err != nil {
					return fail(x, "HTML: %v", err), false
				}
				want := graphHref(p.path)
				if n, _ := doc.Count(`link[rel="affordances"][href="` + cssString.Replace(want) + `"]`); n == 0 {
					return fail(x, `no <link rel="affordances" href="%s"> in the HTML`, want), false
				}
				return verdict{}, true
			})
		}},
		{"v0.webmcp.headers", secC12, "A page with WebMCP tools (its script's data block, or a form with toolname) should be served with headers that let the browser register them: no Origin-Agent-Cluster: ?0 (registerTool needs an origin-keyed agent cluster), and no Permissions-Policy that leaves the page's origin out of the tools feature.", Should, func(s *suite) verdict {
			tools := 0
			v := eachPage(s, func(p *page) (verdict, bool) {
				x, v, ok := s.pageHTML(p)
				if !ok {
					return v, false
				}
				doc, err := parseHTML(x.body)
				if err != nil {
					return fail(x, "HTML: %v", err), false
				}
				scripted, _ := doc.Count(`script#affordances-webmcp`)
				declared, _ := doc.Count(`form[toolname]`)
				if scripted+declared == 0 {
					return verdict{}, true
				}
				tools++
				if why := webmcp.Headers(x.header, s.base); why != nil {
					return fail(x, "%s has WebMCP tools, and the browser registers none of them: %s", p.path, strings.Join(why, "; ")), false
				}
				return verdict{}, true
			})
			if v.outcome == Pass && tools == 0 {
				return none("no page has WebMCP tools")
			}
			return v
		}},
		{"v0.headers.etag", "RFC 9110, 13.1.2", "A graph should carry an ETag, and a GET with If-None-Match listing it should answer 304 with no body: an agent that polls a page then pays nothing while nothing changed.", Should, func(s *suite) verdict {
			pages := s.each()
			if len(pages) == 0 {
				return none("no page with a graph")
			}
			p := pages[0]
			first := s.get(p.path, affordances.MediaType, agent)
			etag := first.header.Get("ETag")
			if etag == "" {
				return fail(first, "the graph of %s has no ETag", p.path)
			}
			x := s.do(http.MethodGet, p.path, agent, http.Header{"Accept": {affordances.MediaType}, "If-None-Match": {etag}}, nil)
			if x.status != http.StatusNotModified || len(x.body) != 0 {
				return fail(x, "a GET with If-None-Match: %s got %d and %d bytes, want 304 and none", etag, x.status, len(x.body))
			}
			return pass(x, "ETag %s, 304 on If-None-Match", etag)
		}},
		{"v0.headers.delta", secC3, "Graph and delta responses: Content-Type: application/vnd.affordances+json, Vary: Accept, Cache-Control: private, no-store.", Must, func(s *suite) verdict {
			x, why := s.anonymousCall(nil, false)
			if x == nil {
				x = s.notFound()[0]
				why = ""
			}
			_ = why
			if !x.isDocument() || !hasToken(x.header.Values("Vary"), "Accept") || !cacheOK(x.header) {
				return fail(x, "a delta came without the media type, Vary: Accept or Cache-Control: private, no-store")
			}
			return pass(x, "delta headers")
		}},

		// Shapes.
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

		// Consistency of the index and the graphs.
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
			if s.index == nil {
				return skip("no site index")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				r := s.route(p.graph.Route)
				if r == nil {
					return verdict{}, true
				}
				for _, a := range p.graph.Actions {
					if !slices.ContainsFunc(r.Actions, func(x affordances.ActionSummary) bool { return x.Name == a.Name }) {
						return fail(p.graphX, "action %q of %s is not in the index", a.Name, r.Route), false
					}
				}
				return verdict{}, true
			})
		}},
		{"v0.consistency.summaries", secIndex, "ActionSummary = Omit<ActionDescriptor, 'available' | 'reason'>: the summaries match the descriptors.", Must, func(s *suite) verdict {
			if s.index == nil {
				return skip("no site index")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				r := s.route(p.graph.Route)
				if r == nil {
					return verdict{}, true
				}
				for _, a := range p.graph.Actions {
					for _, x := range r.Actions {
						if x.Name == a.Name && !sameSummary(x, a.ActionSummary) {
							return fail(p.graphX, "the descriptor of %q differs from its summary in the index", a.Name), false
						}
					}
				}
				return verdict{}, true
			})
		}},

		// Calls: codes and the order of the steps.
		{"v0.call.not-json", secC2, "invalid_input: body is not JSON, not a Call object.", Must, func(s *suite) verdict {
			p := s.first()
			if p == nil {
				return none("no page with a graph")
			}
			return wantCode(s.call(p.path, nobody, nil, []byte("{not json")), "", affordances.InvalidInput, "a body that is not JSON")
		}},
		{"v0.call.too-large", secC2, "invalid_input (413): body larger than the limit (default 1 MiB).", Must, func(s *suite) verdict {
			p := s.first()
			if p == nil {
				return none("no page with a graph")
			}
			body := []byte(`{"action":"x","input":"` + strings.Repeat("a", 1<<20+1024) + `"}`)
			x := s.call(p.path, nobody, nil, body)
			if x.code() != affordances.InvalidInput {
				return fail(x, "a body over 1 MiB got code %q, want invalid_input", x.code())
			}
			if x.status != 413 {
				return fail(x, "a body over 1 MiB got status %d, want 413", x.status)
			}
			return pass(x, "413 invalid_input")
		}},
		{"v0.call.not-found", secCall, "Resolve the action by name on the page's route. Failure: not_found.", Must, func(s *suite) verdict {
			p := s.first()
			if p == nil {
				return none("no page with a graph")
			}
			return wantCode(s.call(p.path, nobody, nil, map[string]any{"action": "conformanceNoSuchAction"}), "", affordances.NotFound, "an action the route does not have")
		}},
		{"v0.call.unauthorized", secC1, "session: an authenticated requester; a call that falls short gets unauthorized.", Must, func(s *suite) verdict {
			x, why := s.probe("anonymous", func() (*exchange, string) { return s.anonymousCall(nil, false) })
			return wantCode(x, why, affordances.Unauthorized, "an anonymous call of a session action")
		}},
		{"v0.call.www-authenticate", secC2, "unauthorized (401): the action needs a session and the call has none, or a bad bearer token; send WWW-Authenticate: Bearer.", Must, func(s *suite) verdict {
			x, why := s.probe("anonymous", func() (*exchange, string) { return s.anonymousCall(nil, false) })
			if x == nil {
				return none("%s", why)
			}
			if x.status == 401 && !strings.HasPrefix(strings.ToLower(x.header.Get("WWW-Authenticate")), "bearer") {
				return fail(x, "a 401 without WWW-Authenticate: Bearer")
			}
			return pass(x, "WWW-Authenticate: %s", x.header.Get("WWW-Authenticate"))
		}},
		{"v0.call.bad-token", secC4, "A bad token is unauthorized (401).", Must, func(s *suite) verdict {
			t := s.sessionTarget()
			if t == nil {
				return none("no session action the suite can build an input for")
			}
			x := s.call(t.page.path, nobody, http.Header{"Authorization": {"Bearer conformance-not-a-token"}}, map[string]any{"action": t.action.Name, "input": t.input})
			x.inputFrom = t.from
			return wantCode(x, "", affordances.Unauthorized, "a call with a bad bearer token")
		}},
		{"v0.call.unknown-fields", secC5, "Unknown fields in a Call are ignored.", Must, func(s *suite) verdict {
			x, why := s.anonymousCall(map[string]any{"conformanceUnknown": true}, false)
			return wantCode(x, why, affordances.Unauthorized, "an anonymous call of a session action with an unknown field")
		}},
		{"v0.order.unauthorized-before-input", secCall, "Check the CSRF rule and expose against the caller (step 2) before validating input (step 4).", Must, func(s *suite) verdict {
			x, why := s.anonymousCall(nil, true)
			return wantCode(x, why, affordances.Unauthorized, "an anonymous call of a session action with invalid input")
		}},
		{"v0.security.cookie-no-origin", secC4, "A cookie call must carry an Origin header equal to the site's origin. Missing, null or different: unauthorized (403), and nothing else runs.", Must, refusedByOrigin("")},
		{"v0.security.cookie-null-origin", secC4, "A cookie call must carry an Origin header equal to the site's origin. Missing, null or different: unauthorized (403), and nothing else runs.", Must, refusedByOrigin("null")},
		{"v0.security.cookie-other-origin", secC4, "A cookie call must carry an Origin header equal to the site's origin. Missing, null or different: unauthorized (403), and nothing else runs.", Must, refusedByOrigin("https://conformance.invalid")},
		{"v0.security.cookie-same-origin", secC4, "A cookie call with an Origin equal to the site's origin passes the origin rule.", Must, func(s *suite) verdict {
			x, why := s.probe("origin same", func() (*exchange, string) { return s.cookieCall(s.base) })
			if x == nil {
				return none("%s", why)
			}
			if x.code() == affordances.Unauthorized && x.status == 403 {
				return fail(x, "a cookie call with Origin %s was refused as cross-origin", s.base)
			}
			return pass(x, "got %q", x.code())
		}},
		{"v0.security.bearer-no-origin", secC4, "A call with Authorization: Bearer is exempt (from the Origin rule).", Must, func(s *suite) verdict {
			t, in := s.originTarget()
			if t == nil {
				return none("no action whose input the suite can make invalid")
			}
			h := http.Header{"Cookie": {"conformance=1"}}
			who := nobody
			if s.opts.Token != "" {
				who = agent
			} else {
				h.Set("Authorization", "Bearer conformance-not-a-token")
			}
			x := s.call(t.page.path, who, h, map[string]any{"action": t.action.Name, "input": in})
			if x.code() == affordances.Unauthorized && x.status == 403 {
				return fail(x, "a bearer call without Origin was refused as cross-origin")
			}
			return pass(x, "got %q", x.code())
		}},
		{"v0.order.input-before-guard", secSecurity, "Input is validated before the guard runs, and the guard runs before the action.", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			t := s.find(func(_ *page, a affordances.ActionDescriptor) bool {
				_, ok := invalidInput(a.Input)
				return ok && !a.Available && authed(a)
			})
			if t == nil {
				return none("no unavailable session action with an input the suite can make invalid")
			}
			t.input, _ = invalidInput(t.action.Input)
			return wantCode(s.userCall(t, false), "", affordances.InvalidInput, "invalid input to an unavailable action")
		}},
		{"v0.call.issues", secC2, "invalid_input: issues is a list of { path: JSON Pointer, message: text }.", Must, func(s *suite) verdict {
			n := 0
			for _, x := range s.deltas {
				var call struct {
					Input json.RawMessage `json:"input"`
				}
				if x.code() != affordances.InvalidInput || len(x.reqBody) > 1<<20 || json.Unmarshal(x.reqBody, &call) != nil || call.Input == nil {
					continue // issues are for input that fails the schema
				}
				var d struct {
					Error struct {
						Issues []struct {
							Path    *string `json:"path"`
							Message string  `json:"message"`
						} `json:"issues"`
					} `json:"error"`
				}
				json.Unmarshal(x.body, &d)
				n++
				if len(d.Error.Issues) == 0 {
					return fail(x, "an invalid_input delta without issues")
				}
				for _, is := range d.Error.Issues {
					if is.Path == nil || (*is.Path != "" && !strings.HasPrefix(*is.Path, "/")) || is.Message == "" {
						return fail(x, "an issue without a JSON Pointer path or a message")
					}
				}
			}
			if n == 0 {
				return none("no call was answered invalid_input for its input")
			}
			return pass(nil, "%d invalid_input deltas, each with issues", n)
		}},
		{"v0.call.unavailable", secCall, "Evaluate the guard. Failure: unavailable, with the guard's reason as message.", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			t := s.unavailableTarget(affordances.ExposeSession)
			if t == nil {
				return none("no unavailable session action the suite can build an input for")
			}
			x := s.userCall(t, false)
			if v := wantCode(x, "", affordances.Unavailable, "a valid call of an unavailable action"); v.outcome != Pass {
				return v
			}
			if d := x.delta(); d.Error.Message == "" {
				return fail(x, "unavailable without a message")
			}
			return pass(x, "unavailable")
		}},
		{"v0.order.guard-before-confirm", secCall, "Evaluate the guard (step 5) before confirm_required (step 6).", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			t := s.unavailableTarget(affordances.ExposeConfirm)
			if t == nil {
				return none("no unavailable confirm action the suite can build an input for")
			}
			return wantCode(s.userCall(t, false), "", affordances.Unavailable, "a confirm action whose guard is false, without confirm")
		}},
		{"v0.readonly.state-unchanged", secCall, "A call that fails stops at the first failure: nothing runs, and the pages do not change.", Must, func(s *suite) verdict {
			if len(s.order) == 0 {
				return none("no page with a graph was found")
			}
			var readChanges []string
			for _, p := range s.each() {
				now, x := s.entitiesNow(p.path)
				b, _ := json.Marshal(p.graph.Entities)
				if now == string(b) {
					continue
				}
				// Before blaming the calls: does reading the page change
				// it (an entry marked read when it is viewed)? Then the
				// suite's own GETs did it, and it cannot tell.
				if again, _ := s.entitiesNow(p.path); again != now {
					readChanges = append(readChanges, p.path)
					continue
				}
				return fail(x, "the entities of %s changed after calls that must all have been refused", p.path)
			}
			if len(readChanges) > 0 {
				return skip("reading %s changes it (a GET with side effects, such as marking what it shows as read): the suite cannot tell what refused calls did there; its requests say who they are in their User-Agent (%s)",
					strings.Join(readChanges, ", "), s.opts.UserAgent)
			}
			return pass(nil, "%d pages unchanged", len(s.order))
		}},

		// Writes, with --allow-writes and an account.
		{"v0.write.read-action", secCall, "Run the action, reload the page's state, and respond with a delta (a public read-only action).", Must, func(s *suite) verdict {
			if !s.opts.AllowWrites {
				return skip("needs --allow-writes")
			}
			t := s.findCall(func(_ *page, a affordances.ActionDescriptor) bool {
				return a.Available && a.ReadOnly && a.Expose == affordances.ExposePublic
			})
			if t == nil {
				return none("no public read-only action the suite can build an input for")
			}
			// With the credentials the page was read with: a page found with
			// the token may not exist for nobody (a private board).
			x := s.userCall(t, false)
			if d := x.delta(); d == nil || !d.OK {
				return fail(x, "a valid call of the public read-only action %q did not succeed", t.action.Name)
			}
			return pass(x, "%s ran", t.action.Name)
		}},
		{"v0.write.session-action", secCall, "Run the action, reload the page's state, and respond with a delta (a harmless session action).", Must, func(s *suite) verdict {
			if n := s.lacks(agent); !s.opts.AllowWrites || n != "" {
				needs := []string{}
				if !s.opts.AllowWrites {
					needs = append(needs, "--allow-writes")
				}
				if n != "" {
					needs = append(needs, n)
				}
				return needsSkip(n, nil, "needs %s", strings.Join(needs, ", and "))
			}
			t := s.findCall(func(p *page, a affordances.ActionDescriptor) bool {
				return a.Available && !a.ReadOnly && a.Expose == affordances.ExposeSession && s.harmless(p, a.Name)
			})
			if t == nil {
				return none("no available session action that AAL says is harmless and reversible, with an input the suite can build")
			}
			x := s.userCall(t, false)
			w := &write{page: t.page, action: t.action, x: x}
			s.writes = append(s.writes, w)
			d := x.delta()
			if d == nil || !d.OK {
				return fail(x, "a valid call of the available action %q did not succeed", t.action.Name)
			}
			_, w.after = s.entitiesNow(t.page.path)
			return pass(x, "%s ran on %s", t.action.Name, t.page.path)
		}},
		{"v0.write.changed", secC5, "changed: with effects, the new value of every key in effects; without, every top-level entity whose JSON value differs.", Must, func(s *suite) verdict {
			if len(s.writes) == 0 || s.writes[0].after == nil {
				return skip("no action ran")
			}
			w := s.writes[0]
			d := w.x.delta()
			var g affordances.Graph
			json.Unmarshal(w.after.body, &g)
			keys := w.action.Effects
			if keys == nil {
				keys = slices.Collect(mapKeys(d.Changed))
			}
			for _, k := range keys {
				got, ok := d.Changed[k]
				if !ok {
					return fail(w.x, "changed has no %q, an effect of %s", k, w.action.Name)
				}
				if !jsonEqual(got, g.Entities[k]) {
					return fail(w.x, "changed[%q] is not the page's %q after the call", k, k)
				}
			}
			return pass(w.x, "changed matches the page after the call")
		}},
		{"v0.order.input-before-confirm", secCall, "Validate input (step 4) before confirm_required (step 6).", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			// An available confirm action, so that the guard cannot answer
			// first; else an unavailable one, whose guard comes after the
			// input too.
			t := s.freshConfirm(true)
			if t == nil {
				t = s.freshConfirm(false)
			}
			if t == nil {
				return none("no confirm action whose input the suite can make invalid")
			}
			in, ok := invalidInput(t.action.Input)
			if !ok {
				return skip("the input of %s cannot be made invalid", t.action.Name)
			}
			t.input, t.from = in, ""
			return wantCode(s.userCall(t, false), "", affordances.InvalidInput, "invalid input to a confirm action, without confirm")
		}},
		{"v0.call.confirm-required", secCall, "For confirm actions without confirm: true: confirm_required, with a summary of what will happen as message. Nothing runs.", Must, func(s *suite) verdict {
			if v, ok := s.needsAccount(); !ok {
				return v
			}
			t := s.freshConfirm(true)
			if t == nil {
				return none("no confirm action is available to this requester")
			}
			before, _ := json.Marshal(t.page.graph.Entities)
			x := s.userCall(t, false)
			after, ax := s.entitiesNow(t.page.path)
			if d := x.delta(); d == nil || d.Error == nil || d.Error.Code != affordances.ConfirmRequired {
				return fail(x, "a confirm action called without confirm: true got code %q, want confirm_required", x.code())
			}
			if x.delta().Error.Message == "" {
				return fail(x, "confirm_required without a summary as message")
			}
			if after != string(before) {
				return fail(ax, "the page changed after confirm_required: something ran")
			}
			return pass(x, "confirm_required, nothing ran")
		}},

		{"v0.ext.human-verified", secC10, "Human-verified confirmation: a confirm_required delta's approval is a page of the site under /.well-known/affordances/approvals/ with a future expiry; the caller reads its status; the person opens the page in their own browser session; confirm: true before the person approved is refused and runs nothing; the caller's token cannot approve.", Must, func(s *suite) verdict {
			if s.opts.Token == "" {
				// A cookie session is the person's, who may approve.
				return needsSkip("--token", nil, "needs --token: the rule is that an agent's token cannot approve")
			}
			t := s.freshConfirm(true)
			if t == nil {
				return none("no confirm action is available to this requester")
			}
			x := s.userCall(t, false)
			d := x.delta()
			if d == nil || d.Approval == nil {
				return skip("the site does not ask for human-verified confirmation")
			}
			ap := d.Approval
			if !wirecheck.ApprovalPage(ap.URL) {
				return fail(x, "the approval URL %q is not a page under %s", ap.URL, affordances.ApprovalsPath)
			}
			if until := time.Until(ap.Expires); until <= 0 || until > 24*time.Hour {
				return fail(x, "the approval expires at %s, want within the next 24 hours", ap.Expires.Format(time.RFC3339))
			}
			state := func() (string, *exchange) {
				sx := s.get(ap.URL, affordances.MediaType, agent)
				var st affordances.ApprovalStatus
				if sx.status != 200 || json.Unmarshal(sx.body, &st) != nil {
					return "", sx
				}
				return string(st.State), sx
			}
			if st, sx := state(); st != string(store.ApprovalPending) {
				return fail(sx, "the approval's status as the caller: got %d %q, want 200 and state pending", sx.status, st)
			}
			if len(s.opts.Cookies) > 0 {
				// The person reads it signed in; they do not approve it here.
				if hx := s.get(ap.URL, browserAccept, person); hx.err != nil || hx.status != http.StatusOK {
					return fail(hx, "the approval page in the person's session (--cookie-jar): %s; is it the session of the token's account?", hx.answered(s.base))
				}
			}
			before, _ := s.entitiesNow(t.page.path)
			cx := s.userCall(t, true)
			if cd := cx.delta(); cd == nil || cd.Error == nil || cd.Error.Code != affordances.ConfirmRequired {
				return fail(cx, "confirm: true before the person approved got code %q, want confirm_required", cx.code())
			}
			h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {affordances.MediaType}, "Origin": {s.base}}
			px := s.do(http.MethodPost, ap.URL, agent, h, []byte("decision=approve"))
			// A redirect (to sign in, or back to the page) is judged by the
			// state it leaves, below.
			if px.err == nil && px.status < 300 {
				return fail(px, "the caller's own token approved the call (status %d)", px.status)
			}
			if after, ax := s.entitiesNow(t.page.path); after != before {
				return fail(ax, "the page changed: something ran without the person's approval")
			}
			if st, sx := state(); st != string(store.ApprovalPending) {
				return fail(sx, "after the token's attempt to approve, the state is %q, want pending", st)
			}
			return pass(cx, "approval page pending; confirm: true refused; the token cannot approve")
		}},

		// Statuses of every code seen, and the shape of every delta.
		{"v0.status.not-found", secC2, "not_found: 404.", Must, statusOf(affordances.NotFound, 404)},
		{"v0.status.unauthorized", secC2, "unauthorized: 401 (no session, bad bearer token) or 403 (a cookie call without a matching Origin).", Must, statusOf(affordances.Unauthorized, 401, 403)},
		{"v0.status.invalid-input", secC2, "invalid_input: 400, or 413 for a body larger than the limit.", Must, statusOf(affordances.InvalidInput, 400, 413)},
		{"v0.status.unavailable", secC2, "unavailable: 409.", Must, statusOf(affordances.Unavailable, 409)},
		{"v0.status.confirm-required", secC2, "confirm_required: 428.", Must, statusOf(affordances.ConfirmRequired, 428)},
		{"v0.status.internal", secC2, "internal: 500.", Must, statusOf(affordances.Internal, 500)},
		{"v0.status.origin-403", secC2, "unauthorized (403): a cookie call without a matching Origin.", Must, func(s *suite) verdict {
			n := 0
			for _, o := range []string{"", "null", "https://conformance.invalid"} {
				r, ok := s.probes["origin "+o]
				if !ok || r.x == nil || r.x.code() != affordances.Unauthorized {
					continue
				}
				n++
				if r.x.status != 403 {
					return fail(r.x, "a cookie call refused for its Origin got status %d, want 403", r.x.status)
				}
			}
			if n == 0 {
				return none("no cookie call was refused unauthorized for its Origin")
			}
			return pass(nil, "403")
		}},
		{"v0.shape.delta", secC2, "Every error body is a Delta: { ok: false, error: { code, message, issues? } }, media type application/vnd.affordances+json.", Must, func(s *suite) verdict {
			all := slices.Clone(s.deltas)
			if nf := s.notFound()[0]; nf.isDocument() {
				all = append(all, nf) // whether it must be one is v0.negotiation.not-found
			}
			if len(all) == 0 {
				return none("no call was answered")
			}
			for _, x := range all {
				if !x.isDocument() {
					return fail(x, "the answer to a call is not an Affordances document")
				}
				if err := wirecheck.Validate(schemas.Delta, x.body); err != nil {
					return fail(x, "%v", err)
				}
				d := x.delta()
				if d.Error != nil && d.OK {
					return fail(x, "an error delta with ok true")
				}
				if x.status >= 400 && d.Error == nil {
					return fail(x, "status %d with no error in the delta", x.status)
				}
			}
			return pass(nil, "%d deltas valid", len(all))
		}},

		// AAL.
		{"aal.manifest.valid", secAAL, "A site serves a manifest at /.well-known/agent-affordances.json, pointing to per-route fragments; every affordance is checked against a JSON Schema.", Must, func(s *suite) verdict {
			if s.manX.status == 404 {
				return skip("the site publishes no AAL manifest")
			}
			if s.manX.status != 200 {
				return fail(s.manX, "the manifest answered %d", s.manX.status)
			}
			if ps := aal.ValidateManifest(s.manX.body); len(ps) > 0 {
				return fail(s.manX, "%s", problems(ps))
			}
			return pass(s.manX, "valid")
		}},
		{"aal.manifest.routes", secAALMeet, "One declaration serves both: every route with a graph has a fragment in the manifest.", Must, func(s *suite) verdict {
			if s.aalOnly {
				return aalOnlyManifestRoutes(s)
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				ok := slices.ContainsFunc(s.manifest.Routes, func(r aal.ManifestRoute) bool { return r.Route == p.graph.Route })
				return fail(s.manX, "the manifest has no fragment for route %s", p.graph.Route), ok
			})
		}},
		{"aal.fragment.valid", secAAL, "Every affordance is checked against a JSON Schema before an agent acts on it (schema/aal-0.1.json, and the caps in code).", Must, func(s *suite) verdict {
			if s.aalOnly {
				return aalOnlyFragmentValid(s)
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				x := s.fragmentOf(p)
				if x == nil {
					return verdict{}, true
				}
				if x.status != 200 {
					return fail(x, "the fragment of %s answered %d", p.path, x.status), false
				}
				if ps := aal.ValidateFragment(x.body); len(ps) > 0 {
					return fail(x, "%s", problems(ps)), false
				}
				return verdict{}, true
			})
		}},
		{"aal.fragment.page", secAAL, "A fragment describes one concrete page: its page is that page's path.", Must, func(s *suite) verdict {
			if s.aalOnly {
				return aalOnlyFragmentPage(s)
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				if s.fragmentOf(p); p.fragment == nil {
					return verdict{}, true
				}
				return fail(p.fragX, "the fragment's page is %q for %s", p.fragment.Page, p.path), p.fragment.Page == pathOnly(p.path)
			})
		}},
		{"aal.fragment.affordances", secAALMeet, "A seed 000 action addToCart is the AAL affordance add-to-cart (kebab case of the name).", Must, func(s *suite) verdict {
			if s.aalOnly {
				return skip("the site publishes no graph: there is no seed 000 action to map to an affordance")
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				if s.fragmentOf(p); p.fragment == nil {
					return verdict{}, true
				}
				for _, a := range p.graph.Actions {
					id := aal.ID(a.Name)
					if !slices.ContainsFunc(p.fragment.Affordances, func(f aal.Affordance) bool { return f.ID == id }) {
						return fail(p.fragX, "action %q of %s has no affordance %q", a.Name, p.path, id), false
					}
				}
				return verdict{}, true
			})
		}},
		{"aal.selector.unique", secC11, "While an action is available on a page, its affordance's selector matches at least one element of that page's HTML. A selector may match several elements when the action acts on one of several items: then every matched element carries data-aal-input, a JSON object with the input fields that pick its item, and no two matched elements carry the same object.", Must, func(s *suite) verdict {
			if s.aalOnly {
				return aalOnlySelectors(s)
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				if s.fragmentOf(p); p.fragment == nil {
					return verdict{}, true
				}
				x, v, ok := s.pageHTML(p)
				if !ok {
					return v, false
				}
				doc, err := parseHTML(x.body)
				if err != nil {
					return fail(x, "HTML: %v", err), false
				}
				if sps := doc.CheckSelectors(p.graph.Actions, p.fragment); len(sps) > 0 {
					sp := sps[0]
					return fail(x, "page %s, affordance %q, selector %s: %s", p.path, sp.ID, aal.Visible(sp.Selector), strings.Join(sp.Problems, "; ")), false
				}
				return verdict{}, true
			})
		}},

		// Size and privacy.
		{"v0.size.tokens", secGraph, "A graph should stay small. About 2,000 tokens is a good ceiling (o200k).", Should, func(s *suite) verdict {
			max, where := 0, ""
			v := eachPage(s, func(p *page) (verdict, bool) {
				w, err := graphsize.Weigh(p.graphX.body)
				if err != nil {
					return skip("%v", err), false
				}
				if w.Tokens > max {
					max, where = w.Tokens, p.path
				}
				return fail(p.graphX, "the graph of %s passes about %s tokens: %s; page or summarize it, with nav to the rest", p.path, graphsize.Comma(graphsize.Ceiling), w), !w.Over()
			})
			if v.outcome == Pass {
				v.reason = fmt.Sprintf("largest %d tokens (%s)", max, where)
			}
			return v
		}},
		{"v0.privacy.urls", secSecurity, "URLs must not carry personal data (no email addresses, phone numbers or long secret-looking strings in page paths and nav targets).", Should, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				if what := personal(p.graph.Page); what != "" {
					return fail(p.graphX, "page %q carries %s", p.graph.Page, what), false
				}
				for _, n := range p.graph.Nav {
					if what := personal(n.To); what != "" {
						return fail(p.graphX, "nav target %q carries %s", n.To, what), false
					}
				}
				return verdict{}, true
			})
		}},
		{"v0.privacy.entities-in-html", secGraph, "entities must not contain anything the page would not show the same user in HTML (each string entity appears in the page's HTML).", Should, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				x, v, ok := s.pageHTML(p)
				if !ok {
					return v, false
				}
				text := htmlText(x.body)
				for _, str := range leafStrings(p.graph.Entities) {
					if !strings.Contains(text, str) {
						return fail(x, "entity string %q of %s is not in its HTML", str, p.path), false
					}
				}
				return verdict{}, true
			})
		}},

		// Last, as it spends this client's quota on one route.
		{"v0.status.rate-limited", secC2, "rate_limited: 429, Retry-After header in whole seconds.", Must, rateLimited},
	}
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

// maxRateProbes bounds the calls rateLimited sends to reach a limit.
const maxRateProbes = 120

// rateLimited checks every rate_limited delta seen, and when none was,
// provokes one: anonymous calls with input the schema refuses, which run
// nothing but count (docs/protocol.md §19, step 3 comes before step 4; docs/protocol.md decision 5),
// until the site answers rate_limited or maxRateProbes calls went through.
func rateLimited(s *suite) verdict {
	if v := statusOf(affordances.RateLimited, 429)(s); v.outcome != Skip {
		return v
	}
	t, in := s.originTarget()
	if t == nil || t.action.Expose != affordances.ExposePublic {
		return none("no public action whose input the suite can make invalid")
	}
	s.provoking = true
	defer func() { s.provoking = false }()
	for range maxRateProbes {
		x := s.call(t.page.path, nobody, nil, map[string]any{"action": t.action.Name, "input": in})
		switch x.code() {
		case affordances.InvalidInput:
			continue
		case affordances.RateLimited:
			if x.status != 429 {
				return fail(x, "a rate_limited delta came with status %d, want 429", x.status)
			}
			if ra := x.header.Get("Retry-After"); !wholeSeconds(ra) {
				return fail(x, "rate_limited with Retry-After %q, want whole seconds", ra)
			}
			return pass(x, "rate_limited after refused calls, 429 with Retry-After %s", x.header.Get("Retry-After"))
		default:
			return fail(x, "an anonymous call with invalid input to %s got code %q, want invalid_input until rate_limited", t.action.Name, x.code())
		}
	}
	return skip("no limit reached within %d calls", maxRateProbes)
}

func wholeSeconds(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

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

func routeMatches(pattern, path string) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if strings.HasPrefix(ps[i], "[") && strings.HasSuffix(ps[i], "]") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if ps[i] != xs[i] {
			return false
		}
	}
	return true
}

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

func sameSummary(a, b affordances.ActionSummary) bool {
	return a.Name == b.Name && a.Description == b.Description && a.Expose == b.Expose && a.Guard == b.Guard &&
		a.ReadOnly == b.ReadOnly && slices.Equal(a.Effects, b.Effects) &&
		rawEqual(a.Input, b.Input) && rawEqual(a.Output, b.Output)
}

func rawEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return rawEqual(x, y)
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func problems(ps []aal.Problem) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return strings.Join(out, "; ")
}

// freshConfirm reads again the pages with a confirm action (the writes may
// have changed them) and returns the first confirm action whose available
// is as asked, with a valid input; nil when there is none.
func (s *suite) freshConfirm(available bool) *target {
	for _, p := range s.each() {
		if !slices.ContainsFunc(p.graph.Actions, func(a affordances.ActionDescriptor) bool { return a.Expose == affordances.ExposeConfirm }) {
			continue
		}
		x := s.get(p.path, affordances.MediaType, agent)
		var g affordances.Graph
		if json.Unmarshal(x.body, &g) != nil {
			continue
		}
		for _, a := range g.Actions {
			if a.Expose != affordances.ExposeConfirm || a.Available != available {
				continue
			}
			if in, from, ok := s.inputFor(p, &g, a); ok {
				return &target{page: &page{path: p.path, graphX: x, graph: &g}, action: a, input: in, from: from}
			}
		}
	}
	return nil
}
