// Package crawl finds the pages of a site the way an agent does: from the
// pages it starts at, through the links of each page it reads (a graph's
// nav, a page's HTML), and from the routes the site declares (its site
// index, its AAL manifest) that need no parameter. `affordances lint` and
// the conformance suite read sites with it; each reads the pages itself,
// and says what it finds its own way, with the credentials of a test
// account as [Credentials] says: the agent's token for what agents read,
// the person's session for what people read, and a redirect never
// followed. A request that got no answer is an [UnreachableError], the
// one sentence the checkers, the agent client and internal/aalpage say of
// a site they cannot reach.
package crawl

import (
	"net/url"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/htmlcheck"
)

// Walk visits pages breadth-first: first start, in order, then the links
// of each page visited, each page once and at most max pages in all. visit
// reads the page at path (a path of the site, with its query) and returns
// the links on it; the links that are paths of this site are visited in
// turn, without their fragments, others are ignored. Walk reports whether
// it stopped at max with pages left to visit.
func Walk(start []string, max int, visit func(path string) (links []string)) (bounded bool) {
	seen := map[string]bool{}
	var queue []string
	add := func(to string) {
		if p := Local(to); p != "" && !seen[p] {
			seen[p] = true
			queue = append(queue, p)
		}
	}
	for _, p := range start {
		add(p)
	}
	for n := 0; len(queue) > 0 && n < max; n++ {
		path := queue[0]
		queue = queue[1:]
		for _, to := range visit(path) {
			add(to)
		}
	}
	return len(queue) > 0
}

// IsPath reports whether s is a URL path of the site's own: one leading
// slash, no backslash (which browsers read as a slash) or control
// character, nothing before it that could name another host
// ("@bank.example/pay", "https://x"): a path a client may follow with
// the site's credentials.
func IsPath(s string) bool {
	return strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") && !strings.ContainsAny(s, "\\\x00\t\n\r")
}

// Local returns to when it is a path of this site ("/x", "/x?y"), without
// its fragment, and "" otherwise.
func Local(to string) string {
	if !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") {
		return ""
	}
	to, _, _ = strings.Cut(to, "#")
	return to
}

// Routes returns the routes that need no parameter (no [param] segment) of
// a site index and an AAL manifest, the index's first, each once: pages a
// walk can start at. Either may be nil.
func Routes(idx *affordances.SiteIndex, m *aal.Manifest) []string {
	var routes []string
	seen := map[string]bool{}
	add := func(r string) {
		if !strings.Contains(r, "[") && !seen[r] {
			seen[r] = true
			routes = append(routes, r)
		}
	}
	if idx != nil {
		for _, r := range idx.Routes {
			add(r.Route)
		}
	}
	if m != nil {
		for _, r := range m.Routes {
			add(r.Route)
		}
	}
	return routes
}

// Nav returns the targets of a graph's nav, for [Walk].
func Nav(g *affordances.Graph) []string {
	links := make([]string, len(g.Nav))
	for i, n := range g.Nav {
		links[i] = n.To
	}
	return links
}

// Fragment returns the path of the AAL fragment of the page at path (with
// its query, which the fragment keeps: the page's state, and so its
// fragment, may depend on it), whose route is route, by the manifest's
// first entry for that route; "" when the manifest has none.
func Fragment(m *aal.Manifest, route, path string) string {
	if m == nil {
		return ""
	}
	for _, r := range m.Routes {
		if r.Route != route {
			continue
		}
		page, query, _ := strings.Cut(path, "?")
		u := aal.FragmentFor(r.Fragment, r.Route, page)
		if query != "" {
			u += "?" + query
		}
		return u
	}
	return ""
}

// HTMLLinks returns where the a[href] elements of the HTML of the page at
// base (an absolute URL) lead within its origin, as paths with their
// queries ("/x?y"), in document order; nil when body is not HTML.
func HTMLLinks(base *url.URL, body []byte) []string {
	doc, err := htmlcheck.Parse(body)
	if err != nil {
		return nil
	}
	hrefs, _ := doc.Attrs("a[href]", "href")
	var links []string
	for _, h := range hrefs {
		u, err := base.Parse(h)
		if err != nil || u.Scheme != base.Scheme || u.Host != base.Host {
			continue
		}
		to := u.EscapedPath()
		if to == "" {
			to = "/"
		}
		if u.RawQuery != "" {
			to += "?" + u.RawQuery
		}
		links = append(links, to)
	}
	return links
}
