package conformance

import (
	"net/http"
	"regexp"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/webmcp"
)

// headerChecks are the checks of the headers the site sends (docs/protocol.md
// §3 and decision 3): a graph's and a delta's Vary and Cache-Control, and a
// graph's ETag; on a page's HTML, the Vary: Accept that keeps caches apart
// and the Link header and <link> element that advertise its graph; and the
// headers that let a browser register the page's WebMCP tools (decision 12).
func headerChecks() []check {
	return []check{
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
				x, doc, v, ok := s.pageDoc(p)
				if !ok {
					return v, false
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
				x, doc, v, ok := s.pageDoc(p)
				if !ok {
					return v, false
				}
				if !doc.HasWebMCPTools() {
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
			x, _ := s.anonymousCall(nil, false)
			if x == nil {
				x = s.notFound()[0]
			}
			if !x.isDocument() || !hasToken(x.header.Values("Vary"), "Accept") || !cacheOK(x.header) {
				return fail(x, "a delta came without the media type, Vary: Accept or Cache-Control: private, no-store")
			}
			return pass(x, "delta headers")
		}},
	}
}

// hasToken reports whether token is one of the comma-separated tokens of
// the header values list, in any case.
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

// cacheOK reports whether h's Cache-Control is private and no-store, and
// not public.
func cacheOK(h http.Header) bool {
	return hasToken(h.Values("Cache-Control"), "private") && hasToken(h.Values("Cache-Control"), "no-store") &&
		!hasToken(h.Values("Cache-Control"), "public")
}

// graphHref is the relative URL of the graph that the HTML of the page at
// path links: its query kept, then affordances=1 (docs/protocol.md decision 3).
func graphHref(path string) string {
	if _, query, ok := strings.Cut(path, "?"); ok && query != "" {
		return "?" + query + "&affordances=1"
	}
	return "?affordances=1"
}

var (
	// linkValue matches one link-value of a Link header: its target and
	// its parameters.
	linkValue = regexp.MustCompile(`<([^>]*)>([^<]*)`)
	// relAffordances matches the parameter rel="affordances".
	relAffordances = regexp.MustCompile(`(?i);\s*rel\s*=\s*"?affordances"?\s*(;|,|$)`)
	// cssString escapes a value for a quoted CSS attribute selector.
	cssString = strings.NewReplacer(`\`, `\\`, `"`, `\"`)
)
