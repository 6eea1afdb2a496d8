package affordances

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/mediatype"
)

// Handler serves the site's Affordances documents and hands every other
// request to next (CLARIFICATIONS 3):
//
//   - GET or HEAD of a route's page asking for a graph (Accept lists
//     [MediaType] with q > 0, or the query has affordances=1): the graph;
//   - POST with Content-Type [MediaType]: a call, answered with a [Delta];
//   - POST of an HTML form to a route's page with the field
//     [FormActionField]: the same call, for a person (see [Page.Form]); a
//     form naming no action of the route goes to next, its body parsed;
//   - GET or HEAD of [IndexPath]: the site index, whatever the Accept;
//   - GET or HEAD of [aal.ManifestPath] or of a page's [aal.FragmentPath]: the
//     AAL manifest, or the page's fragment computed from its state;
//   - GET, HEAD or POST under [ApprovalsPath]: the approval pages of
//     human-verified confirmation ([Action.Verify]);
//   - GET or HEAD of [LLMsTxtPath]: the site's llms.txt, the index in
//     Markdown; of [WebMCPScriptPath]: the script [Page.Head] loads;
//   - anything else: next, with the request's [Page] in its context
//     ([PageFrom]), untouched but for Vary: Accept and the Link headers to
//     the graph and llms.txt on pages of a route. The page's state is
//     loaded when next asks for it, from the same loader as the graph, and
//     at most once.
//
// When next is an [http.ServeMux] whose pattern for a page's GET is more
// specific than the route's (its "/login" under a declared "/{post}"), the
// path is next's and no route's. A request asking for a document on a path
// no route matches gets a
// not_found delta (404). A request that did not ask never gets one.
//
// Handler freezes the site's declarations: a [Site.Route] or [AddAction]
// after it panics.
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
// rendered again), what became of the form the person posted (pg's, or
// the success a flash cookie carries), and the headers the site adds to
// the page ([pageWriter]). Nothing is authenticated or loaded here: the
// Page does it when next asks.
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
	pg.http = r.WithContext(context.WithValue(r.Context(), pageKey{}, pg))
	next.ServeHTTP(w, pg.http)
}
