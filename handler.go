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
// request to next (docs/protocol.md decision 3):
//
//   - a route's page asking for its graph (Accept: [MediaType], or
//     ?affordances=1): the graph; a POST of MediaType: a call, answered
//     with a [Delta]; a form posted to it with [FormActionField]: the same
//     call, for a person ([Page.Form]);
//   - a route's page asking for Markdown (Accept: text/markdown, named at
//     least as high as text/html): what the page shows, in Markdown, for
//     the same requester (its State.MD, else a rendering of its entities,
//     actions and nav);
//   - [IndexPath], [aal.ManifestPath], a page's [aal.FragmentPath],
//     [LLMsTxtPath], [WebMCPScriptPath] and the approval pages under
//     [ApprovalsPath];
//   - anything else: next, with the request's [Page] ([PageFrom]), and on
//     a route's page Vary: Accept and the Link headers to its graph.
//
// A path the app's mux has a more specific pattern for ([SiteOptions.Mux])
// is the app's. A request for a document on a path no route matches gets a
// not_found delta; one that did not ask, never. Handler freezes the
// declarations: a later [Site.Route] or [AddAction] panics.
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
