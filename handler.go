package affordances

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/mediatype"
)

// IndexPath is where a site serves its index (seed 000, "Discovery").
const IndexPath = "/.well-known/affordances.json"

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
// A request asking for a document on a path no route matches gets a
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
				s.serveFragment(w, r, page)
				return
			}
			if r2, alias := withoutAlias(r); alias || mediatype.Accepts(r.Header.Values("Accept"), MediaType) {
				s.serveGraph(w, r2)
				return
			}
			s.servePage(w, next, &Page{site: s, http: r})
		case http.MethodPost:
			switch {
			case mediatype.Is(r.Header.Get("Content-Type"), MediaType):
				r, _ = withoutAlias(r)
				s.serveCall(w, r) // which finds the route itself
			case isForm(r):
				if rt, params := s.lookup(r.URL.EscapedPath()); rt != nil {
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
		pg.route, pg.params = s.lookup(r.URL.EscapedPath())
	}
	if pg.route != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead || pg.form != nil) {
		if pg.form == nil {
			pg.form = s.takeFlash(w, r)
		}
		w = &pageWriter{ResponseWriter: w, query: r.URL.RawQuery}
	}
	pg.http = r.WithContext(context.WithValue(r.Context(), pageKey{}, pg))
	next.ServeHTTP(w, pg.http)
}

// serveGraph answers a request that asked for the page's graph.
func (s *Site) serveGraph(w http.ResponseWriter, r *http.Request) {
	rt, params := s.lookup(r.URL.EscapedPath())
	if rt == nil {
		s.writeError(w, r, NewError(NotFound, "This page has no Affordances graph."))
		return
	}
	p, err := s.authenticate(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req, err := s.load(r.Context(), r, rt, params, p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sc := scratches.Get().(*graphScratch)
	defer scratches.Put(sc)
	var room [8]listed // the listing of most pages, on the stack
	ls := rt.appendListing(room[:0], r.Context(), req)
	sc.at = slices.Grow(sc.at[:0], len(ls))[:len(ls)]
	body, err := encodeGraph(sc.buf[:0], req, ls, sc.at)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("affordances: encoding the graph of %s: %w", req.Page, err))
		return
	}
	sc.buf = body
	// The graph's ETag names its bytes, so an agent that polls a page
	// sends If-None-Match and pays nothing while nothing changed.
	var etag []string // the ETag header
	if p.Anonymous() {
		etag = rt.lastAnonymous.lookup(body)
	}
	if etag == nil {
		etag = []string{sc.graphETag(body, ls, sc.at)}
		if p.Anonymous() {
			rt.lastAnonymous.put(body, etag)
		}
	}
	w.Header()["Etag"] = etag // Set's canonical key
	if etagMatches(r.Header.Values("If-None-Match"), etag[0]) {
		s.writeBody(w, &http.Request{Method: http.MethodHead}, http.StatusNotModified, nil)
		return
	}
	s.writeBody(w, r, http.StatusOK, body)
}

// etagMatches reports whether an If-None-Match header lists etag, or is
// "*" (RFC 9110, section 13.1.2: the weak comparison).
func etagMatches(lines []string, etag string) bool {
	for _, line := range lines {
		for tag := range strings.SplitSeq(line, ",") {
			tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
			if tag == etag || tag == "*" {
				return true
			}
		}
	}
	return false
}

// serveIndex answers GET /.well-known/affordances.json with the site index
// as the requester sees it (actions hidden from them are left out).
func (s *Site) serveIndex(w http.ResponseWriter, r *http.Request) {
	p, err := s.authenticate(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	idx := SiteIndex{V: Version, Name: s.opts.Name, Routes: []RouteSummary{}, Auth: s.opts.Auth, MCP: s.opts.MCP}
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

// authenticate says who is asking. A bearer request is authenticated with
// its cookies taken away, so a bad token is never rescued by a cookie and
// a cookie session never passes for a bearer call (CLARIFICATIONS 4). A
// panicking authenticator is an internal error.
func (s *Site) authenticate(r *http.Request) (p Principal, err error) {
	kind := kindOf(r)
	if s.opts.Authenticate == nil {
		if kind == bearerCall {
			return Principal{}, ErrInvalidToken
		}
		return Principal{}, nil
	}
	if kind == bearerCall {
		r = withoutCookies(r)
	}
	defer s.recoverTo(&err, "authenticate", "")
	p, err = s.opts.Authenticate(r)
	if err != nil {
		// An *Error is the requester's answer (ErrInvalidToken among
		// them); any other error is the site's failure, never the
		// requester's: internal, logged.
		return Principal{}, s.public(err, "authenticate")
	}
	if p.ID != "" && p.Method == "" {
		switch kind {
		case bearerCall:
			p.Method = AuthBearer
		case cookieCall:
			p.Method = AuthCookie
		}
	}
	if kind == bearerCall && (p.ID == "" || p.Method != AuthBearer) {
		return Principal{}, ErrInvalidToken
	}
	return p, nil
}

// withoutCookies returns a shallow copy of r with no Cookie header, or r
// when it has none.
func withoutCookies(r *http.Request) *http.Request {
	if _, ok := r.Header["Cookie"]; !ok {
		return r
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.Header = r.Header.Clone()
	r2.Header.Del("Cookie")
	return r2
}

// load makes the page's Request for p and loads its state.
func (s *Site) load(ctx context.Context, hr *http.Request, rt *Route, params []param, p Principal) (*Request, error) {
	req := &Request{HTTP: hr, Principal: p, Page: hr.URL.Path, route: rt, params: params}
	if err := s.loadState(ctx, req); err != nil {
		return nil, err
	}
	return req, nil
}

// loadState runs the route's state loader for req, setting req.State.
func (s *Site) loadState(ctx context.Context, req *Request) (err error) {
	req.State = nil
	rt := req.route
	if rt.opts.State == nil {
		req.State = &State{}
		return nil
	}
	defer s.recoverTo(&err, "state of ", rt.pattern)
	st, err := rt.opts.State(ctx, req)
	if err != nil {
		return s.public(err, "state of "+rt.pattern)
	}
	if st == nil {
		st = &State{}
	}
	if rt.hasEffects {
		for k := range st.Entities {
			if _, ok := rt.entities.Load(k); !ok {
				rt.entities.Store(k, true)
			}
		}
	}
	req.State = st
	return nil
}

// public returns err as a requester may see it: an [*Error] as it is, any
// other error as internal, logged.
func (s *Site) public(err error, where string) *Error {
	var e *Error
	if errors.As(err, &e) && e != nil {
		if e.Code == Internal && e.Err != nil {
			s.logger.Error("affordances: "+where, "err", e.Err)
		}
		return e
	}
	s.logger.Error("affordances: "+where, "err", err)
	return internalError
}

// recoverTo turns a panic into an internal error, logged as a panic in
// what, then name ("state of ", "/cart"): two strings, so that a request
// that does not panic does not join them.
func (s *Site) recoverTo(err *error, what, name string) {
	if v := recover(); v != nil {
		s.logger.Error("affordances: panic in "+what+name, "panic", v)
		*err = internalError
	}
}

// writeDocument writes an Affordances document with the headers of
// CLARIFICATIONS 3; HEAD gets the headers alone.
func (s *Site) writeDocument(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("affordances: encoding a document: %w", err))
		return
	}
	s.writeBody(w, r, status, body)
}

// writeBody writes an encoded Affordances document, with its length when
// there is one (body not nil; a HEAD gets the length its GET would): the
// client knows where the document ends without chunked framing, whatever
// its size (net/http sets Content-Length itself only for a body under 2
// kB written at once).
func (s *Site) writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	// What Set and Add would store, without their canonicalisation and a
	// new slice per header: the values are shared, read-only (Set and
	// Add replace or copy a slice of one, never write into it).
	h := w.Header()
	h["Content-Type"] = documentHeader.contentType
	if vary, ok := h["Vary"]; ok {
		h["Vary"] = append(vary, "Accept")
	} else {
		h["Vary"] = documentHeader.vary
	}
	h["Cache-Control"] = documentHeader.cacheControl
	h["X-Content-Type-Options"] = documentHeader.nosniff
	if body != nil {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// documentHeader holds the values of the headers of every document
// (CLARIFICATIONS 3), each a slice of one, its length its capacity.
var documentHeader = struct{ contentType, vary, cacheControl, nosniff []string }{
	[]string{MediaType}, []string{"Accept"}, []string{"private, no-store"}, []string{"nosniff"},
}

// writeError writes err as an error delta with its status.
func (s *Site) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeResponse(w, r, s.failure(err, "request"))
}

// Actions are a page's actions as its graph lists them for one request
// ([Page.Actions]), with what its template asks of them. The methods are
// safe on a nil Actions.
type Actions []ActionDescriptor

// Find returns the action of that name, and whether it is listed.
func (as Actions) Find(name string) (ActionDescriptor, bool) {
	for _, a := range as {
		if a.Name == name {
			return a, true
		}
	}
	return ActionDescriptor{}, false
}

// Reason returns "" when the action is available, and otherwise why not,
// for a person: its graph's reason, or "Not available here." when the page
// does not list it for them. A template disables the action's control when
// there is one.
func (as Actions) Reason(name string) string {
	a, ok := as.Find(name)
	switch {
	case !ok:
		return "Not available here."
	case !a.Available:
		return a.Reason
	}
	return ""
}

// Tool returns the attributes that make a form of the action a declarative
// WebMCP tool (CLARIFICATIONS 12): toolname and tooldescription, the
// same tool [Page.Head]'s script registers, for a browser without script; "" when
// the action is not available.
func (as Actions) Tool(name string) template.HTMLAttr {
	a, ok := as.Find(name)
	if !ok || !a.Available {
		return ""
	}
	desc := a.Description
	if a.Expose == ExposeConfirm {
		desc += confirmNote
	}
	return template.HTMLAttr(`toolname="` + template.HTMLEscapeString(a.Name) + `" tooldescription="` + template.HTMLEscapeString(desc) + `"`)
}

// ToolParam returns the toolparamdescription attribute of the form field of
// the action's input property field: its description in the input schema;
// "" when the action, the property or its description is not there (the
// browser then describes the field by its label).
func (as Actions) ToolParam(name, field string) template.HTMLAttr {
	a, ok := as.Find(name)
	if !ok {
		return ""
	}
	var in struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(a.Input, &in) != nil {
		return ""
	}
	p, ok := in.Properties[field]
	if !ok || p.Description == "" {
		return ""
	}
	return template.HTMLAttr(`toolparamdescription="` + template.HTMLEscapeString(p.Description) + `"`)
}
