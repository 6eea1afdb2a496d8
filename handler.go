package affordances

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/mediatype"
)

// Handler serves the site's documents and hands every other request to next
// (docs/protocol.md decision 3):
//   - on a route's page: its graph (Accept: [MediaType], or ?affordances=1),
//     calls (a POST of MediaType, or a form with [FormActionField]) and
//     Markdown (Accept: text/markdown above text/html);
//   - [IndexPath], [aal.ManifestPath], a page's [aal.FragmentPath],
//     [LLMsTxtPath], [WebMCPScriptPath] and the pages under [ApprovalsPath];
//   - anything else: next, with its [Page] ([PageFrom]).
//
// A path the app's mux has a more specific pattern for ([SiteOptions.Mux]) is
// the app's; a document asked for where no route matches is a not_found
// delta. Handler freezes the declarations: a later [Site.Route] or
// [AddAction] panics.
func (s *Site) Handler(next http.Handler) http.Handler {
	s.mu.Lock()
	s.frozen = true
	s.mu.Unlock()
	if next == nil {
		next = http.NotFoundHandler()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, ApprovalsPath) {
			s.serveApproval(w, r)
			return
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			switch page, fragment := pageOfFragment(r.URL.EscapedPath()); {
			case r.URL.Path == IndexPath:
				s.serveIndex(w, r)
				return
			case r.URL.Path == aal.ManifestPath:
				s.serveManifest(w, r)
				return
			case r.URL.Path == LLMsTxtPath:
				s.serveLLMsTxt(w, r)
				return
			case r.URL.Path == WebMCPScriptPath:
				serveWebMCPScript(w, r)
				return
			case fragment:
				s.serveFragment(w, r, next, page)
				return
			}
			if r2, alias := withoutAlias(r); alias || mediatype.Accepts(r.Header.Values("Accept"), MediaType) {
				s.serveGraph(w, r2, next)
				return
			}
			if wantsMarkdown(r) {
				s.serveMarkdown(w, r, next)
				return
			}
			s.servePage(w, next, &Page{site: s, http: r})
		case http.MethodPost:
			switch {
			case mediatype.Is(r.Header.Get("Content-Type"), MediaType):
				r, _ = withoutAlias(r)
				s.serveCall(w, r, next) // which finds the route itself
			case isForm(r):
				if rt, params := s.route(r, next, r.URL.EscapedPath()); rt != nil {
					s.serveForm(w, r, next, rt, params)
					return
				}
				s.servePage(w, next, &Page{site: s, http: r})
			default:
				s.servePage(w, next, &Page{site: s, http: r})
			}
		default:
			s.servePage(w, next, &Page{site: s, http: r})
		}
	})
}

// route returns the route of r's page at the escaped path, as [Site.lookup]
// finds it, unless the app's mux ([SiteOptions.Mux], or next when it is
// one) has a more specific pattern for a GET of the page, as
// [http.ServeMux] ranks them: the app's "/login" beats a declared
// "/{post}", and the path is then the app's alone.
func (s *Site) route(r *http.Request, next http.Handler, escaped string) (*Route, []param) {
	rt, params := s.lookup(escaped)
	app := s.opts.Mux
	if app == nil {
		app, _ = next.(appMux)
	}
	if rt == nil || app == nil || rt.literalOnly() {
		return rt, params // no pattern outranks a route of literals alone
	}
	u := &url.URL{Path: escaped, RawPath: escaped}
	if p, err := url.PathUnescape(escaped); err == nil {
		u.Path = p
	}
	_, pattern := app.Handler(&http.Request{Method: http.MethodGet, Host: r.Host, URL: u, Header: http.Header{}})
	if rank, ok := muxRank(pattern); ok && rank > rt.rank() {
		return nil, nil
	}
	return rt, params
}

// literalOnly reports whether every segment of the route is a literal: no
// pattern of the same path ranks higher.
func (rt *Route) literalOnly() bool {
	for _, sg := range rt.segments {
		if sg.literal == "" && !sg.slash {
			return false
		}
	}
	return true
}

// muxRank ranks a ServeMux pattern as [Route.rank] ranks a route: its
// method and host left out, a trailing slash a catch-all unless {$} ends
// it. It reads chi's and gorilla/mux's too: a "*" is a catch-all, a
// {name:regexp} one segment (even one of gorilla's that matches a slash),
// a segment of text and wildcard ("{id}.json") between a literal and a
// wildcard. ok is false for no pattern ("": the mux matched nothing).
func muxRank(pattern string) (rank int, ok bool) {
	if i := strings.IndexByte(pattern, ' '); i >= 0 {
		pattern = strings.TrimLeft(pattern[i+1:], " \t")
	}
	i := strings.IndexByte(pattern, '/')
	if i < 0 {
		return 0, false
	}
	var parts []string // split at the slashes outside braces
	depth, start := 0, i+1
	for j := start; j <= len(pattern); j++ {
		switch {
		case j == len(pattern) || pattern[j] == '/' && depth == 0:
			parts = append(parts, pattern[start:j])
			start = j + 1
		case pattern[j] == '{':
			depth++
		case pattern[j] == '}' && depth > 0:
			depth--
		}
	}
	exact := true
	for j, part := range parts {
		wild := false // the whole part is one {…}, regexp braces and all
		for k, d := 0, 0; k < len(part) && part[0] == '{'; k++ {
			if part[k] == '{' {
				d++
			} else if part[k] == '}' {
				if d--; d == 0 {
					wild = k == len(part)-1
					break
				}
			}
		}
		switch {
		case part == "" && j == len(parts)-1:
			exact = false // "/a/": a/ and everything below it
		case part == "{$}": // the page ending in /, as a route's slash
		case part == "*" || wild && strings.HasSuffix(part, "...}"):
			exact = false
		case wild:
		case strings.HasSuffix(part, "*"): // chi's "/a*"
			exact = false
			rank++
		case strings.Contains(part, "{"): // "{id}.json"
			rank++
		default:
			rank += 2
		}
	}
	if exact {
		rank++
	}
	return rank, true
}

// lookup returns the most specific route matching the escaped path (a
// URL's EscapedPath), as [http.ServeMux] would match it.
func (s *Site) lookup(escaped string) (*Route, []param) {
	parts, ok := splitPath(escaped)
	if !ok {
		return nil, nil
	}
	var best *Route
	var bestParams []param
	for _, rt := range s.routes {
		if ps, ok := rt.match(parts); ok && (best == nil || rt.rank() > best.rank()) {
			best, bestParams = rt, ps
		}
	}
	return best, bestParams
}

// hasRoute reports whether a route matches the escaped path.
func (s *Site) hasRoute(escaped string) bool {
	rt, _ := s.lookup(escaped)
	return rt != nil
}

// splitPath splits an escaped path into its segments, each unescaped, as
// [http.ServeMux] reads them: "/p/x%2Fy" is one segment "x/y", and a
// trailing slash ends the path with an empty one. It reports false for a
// path no route matches: not starting with /, an empty segment before the
// last, a bad escape.
func splitPath(escaped string) ([]string, bool) {
	if escaped == "/" {
		return nil, true
	}
	if !strings.HasPrefix(escaped, "/") {
		return nil, false
	}
	parts := strings.Split(escaped[1:], "/")
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil || (u == "" && i != len(parts)-1) {
			return nil, false
		}
		parts[i] = u
	}
	return parts, true
}

// match reports whether a path, split by splitPath, matches the route, and
// the parameters it binds.
func (rt *Route) match(parts []string) ([]param, bool) {
	if len(parts) == 0 || len(rt.segments) == 0 {
		return nil, len(parts) == len(rt.segments)
	}
	last := rt.segments[len(rt.segments)-1]
	if len(parts) != len(rt.segments) && !(last.rest && len(parts) > len(rt.segments)) {
		return nil, false
	}
	var params []param
	for i, sg := range rt.segments {
		switch {
		case sg.slash:
			if parts[i] != "" {
				return nil, false
			}
		case sg.rest:
			v := strings.Join(parts[i:], "/")
			if v == "" {
				return nil, false // a catch-all takes one segment at least
			}
			params = append(params, param{name: sg.param, value: v})
		case parts[i] == "":
			return nil, false // a trailing slash where the route has a segment
		case sg.literal == "":
			params = append(params, param{name: sg.param, value: parts[i]})
		case parts[i] != sg.literal:
			return nil, false
		}
	}
	return params, true
}

// rank orders the routes matching one path: more literal segments first,
// then a route without a catch-all.
func (rt *Route) rank() int {
	r := 2 * rt.literals
	if n := len(rt.segments); n == 0 || !rt.segments[n-1].rest {
		r++
	}
	return r
}

// withoutAlias returns r without affordances=1 in its query, and whether it
// was there. It reads the raw query pair by pair, so a malformed other
// parameter neither hides the alias nor gets rewritten.
func withoutAlias(r *http.Request) (*http.Request, bool) {
	raw := r.URL.RawQuery
	if !strings.Contains(raw, "affordances") {
		return r, false
	}
	var kept []string
	alias := false
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "affordances=1" {
			alias = true
			continue
		}
		kept = append(kept, pair)
	}
	if !alias {
		return r, false
	}
	return withURL(r, func(u *url.URL) { u.RawQuery = strings.Join(kept, "&") }), true
}

// withURL returns a shallow copy of r with its URL changed by edit.
func withURL(r *http.Request, edit func(*url.URL)) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	edit(&u)
	r2.URL = &u
	return r2
}

// servePage hands pg's request, which asks for no Affordances document, to
// next, with pg in its context; for a page of a route (a GET, or a form
// rendered again), what became of the form the person posted (pg's, or the
// success a flash cookie carries), the status of a form rendered again,
// and the headers the site adds to the page ([pageWriter]). Nothing is
// authenticated or loaded here: the Page does it when next asks.
func (s *Site) servePage(w http.ResponseWriter, next http.Handler, pg *Page) {
	r := pg.http
	if pg.route == nil {
		pg.route, pg.params = s.route(r, next, r.URL.EscapedPath())
	}
	if pg.route != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead || pg.form != nil) {
		if pg.form == nil {
			pg.form = s.takeFlash(w, r)
		}
		w = &pageWriter{ResponseWriter: w, page: pg, query: r.URL.RawQuery}
	}
	if pg.status != 0 {
		// Outside the pageWriter, which then sees the status the page
		// answers with: a failed form's page links no graph.
		w = &statusWriter{ResponseWriter: w, site: s, r: r, status: pg.status}
	}
	pg.http = r.WithContext(context.WithValue(r.Context(), pageKey{}, pg))
	next.ServeHTTP(w, pg.http)
}
