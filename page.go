package affordances

import (
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/webmcp"
)

// A Page is what [Site.Handler] knows of a request it hands to the
// application's handler ([PageFrom]): who asks, and for a page of a route
// its state, its actions, what became of a form the person posted, and
// what its head carries for agents. Each is computed when first asked for,
// once per request, so a handler that asks for nothing costs no
// authentication and no state load, and one that asks twice pays once.
//
// Its methods are safe for concurrent use, and on a nil *Page (a request
// the site did not hand on), as on a page without a route.
type Page struct {
	site   *Site
	http   *http.Request
	route  *Route // nil: no route matches the path
	params []param
	form   *Form
	status int // a form rendered again: the status its handler's 200 becomes

	who     sync.Once
	p       Principal
	authErr error

	load  sync.Once
	req   *Request // the page's Request, its State loaded
	state error    // why the state could not be loaded

	list   sync.Once
	listed []listed

	frag    sync.Once
	f       *aal.Fragment
	fragErr error

	nonce   atomic.Pointer[string] // SetNonce's
	notMine atomic.Bool            // the state loader said ErrNotMine
}

// pageKey is the context key of a request's [Page].
type pageKey struct{}

// PageFrom returns the [Page] of the request [Site.Handler] handed to the
// application's handler with ctx (its r.Context()), or nil for a request
// it did not.
func PageFrom(ctx context.Context) *Page {
	p, _ := ctx.Value(pageKey{}).(*Page)
	return p
}

// Principal returns who asks, as the site's Authenticate says: the same
// answer for the page, its graph and its calls, authenticated once. The
// zero Principal (anonymous) when nobody is signed in, and when
// Authenticate failed ([Page.Who] says why).
func (p *Page) Principal() Principal {
	who, _ := p.Who()
	return who
}

// Who returns who asks, as [Page.Principal] does, and why Authenticate
// failed, if it did: [ErrInvalidToken] for a bad bearer token, which a
// handler outside the site's routes (a download an action redirects to)
// refuses rather than serve to the anonymous.
func (p *Page) Who() (Principal, error) {
	if p == nil {
		return Principal{}, nil
	}
	p.who.Do(func() {
		p.p, p.authErr = p.site.authenticate(p.http)
		if p.authErr != nil {
			p.p = Principal{}
		}
	})
	return p.p, p.authErr
}

// SetPrincipal says who asks for the page, as the app's own session
// middleware found them, so that the site's Authenticate is not called
// again for it (the session read once). It serves the page the app
// renders, its head and forms; a call or graph request is authenticated
// by the site all the same. Once the page's principal is known, it does
// nothing: call it before the handler asks for the state.
func (p *Page) SetPrincipal(who Principal) {
	if p == nil {
		return
	}
	p.who.Do(func() {
		if who.ID != "" && who.Method == "" {
			who.Method = kindOf(p.http).method()
		}
		p.p = who
	})
}

// State returns the page's state, loaded as the page's graph is, for the
// same requester. When there is none it returns the reason as an [*Error]:
// code [NotFound] when the page does not exist (the loader said so, or no
// route matches the path), [Internal] when authentication or the loader
// failed, so the handler renders its 404 or 500 page without loading
// again.
func (p *Page) State() (*State, error) {
	if p == nil || p.route == nil {
		return nil, ErrNotMine
	}
	p.load.Do(func() {
		principal := p.Principal()
		if p.authErr != nil {
			p.state = p.site.public(p.authErr, "authenticate")
			return
		}
		p.req, p.state = p.site.load(p.http.Context(), p.http, p.route, p.params, principal)
		p.notMine.Store(errors.Is(p.state, ErrNotMine))
		if p.state != nil {
			p.state = p.site.public(p.state, "state of "+p.route.pattern)
		}
	})
	if p.state != nil {
		return nil, p.state
	}
	return p.req.State, nil
}

// SetState gives the page the state the handler loaded for itself, so
// that what the page asks of it (Head, Actions, Form, Field) needs no
// second load: a retrofit that renders its own data hands it over. st
// must be what the route's loader returns for this request (the graph
// an agent reads at this URL is the loader's). Once the page's state is
// loaded or set, SetState does nothing; nil is an empty state.
func (p *Page) SetState(st *State) {
	if p == nil || p.route == nil {
		return
	}
	p.load.Do(func() {
		principal := p.Principal()
		if p.authErr != nil {
			p.state = p.site.public(p.authErr, "authenticate")
			return
		}
		if st == nil {
			st = &State{}
		}
		if p.route.hasEffects && !p.route.effectsSeen.Load() {
			p.route.noteEntities(st.Entities)
		}
		p.req = &Request{HTTP: p.http, Principal: principal, Page: p.http.URL.Path, route: p.route, params: p.params, State: st}
	})
}

// loaded returns the page's Request with its state, or nil when there is
// none.
func (p *Page) loaded() *Request {
	if _, err := p.State(); err != nil {
		return nil
	}
	return p.req
}

// Actions returns the page's actions as its graph lists them for this
// request (available or not, and why), so the page shows what the graph
// says, its guards evaluated once; nil when [Page.State] has no state.
func (p *Page) Actions() Actions {
	ls := p.listing()
	if ls == nil {
		return nil
	}
	ds := make(Actions, len(ls))
	for i, l := range ls {
		ds[i] = l.descriptor()
	}
	return ds
}

// listing returns the page's listing, its guards evaluated once per
// request; nil without a state.
func (p *Page) listing() []listed {
	req := p.loaded()
	if req == nil {
		return nil
	}
	p.list.Do(func() { p.listed = req.route.listing(p.http.Context(), req) })
	return p.listed
}

// fragment returns the page's AAL fragment, computed once per request for
// the inline script and the WebMCP tools alike; nil without a state.
func (p *Page) fragment() *aal.Fragment {
	req := p.loaded()
	if req == nil {
		return nil
	}
	p.frag.Do(func() {
		if p.f, p.fragErr = p.site.fragment(req, p.listing()); p.fragErr != nil {
			p.site.logger.Error("affordances: the page's AAL fragment", "page", req.Page, "err", p.fragErr)
		}
	})
	return p.f
}

// Form returns what became of the form the person just posted: after a
// success (redirected, with the delta's message), a failure (the page
// rendered again with the error's status) or a confirm action awaiting the
// person's confirmation. Nil when the request follows no form.
func (p *Page) Form() *Form {
	if p == nil {
		return nil
	}
	return p.form
}

// A Field is one input of an action's form as the page renders it
// ([PageAction.Field]): one call a template makes per input.
type Field struct {
	Value string            // what the person sent, to fill the input again after a failed post
	Issue string            // why the input was refused, for a person; "" when it was not
	Attrs template.HTMLAttr // name, aria-invalid when Issue is set, toolparamdescription (docs/protocol.md decision 12)

	name, description string // of Attrs, for Attributes
}

// Attributes returns the attributes of Attrs as a map, a templ.Attributes
// for templ's spread: <input { templ.Attributes(title.Attributes())... }>.
// Each call returns a new map.
func (f Field) Attributes() map[string]any {
	attrs := map[string]any{"name": f.name}
	if f.Issue != "" {
		attrs["aria-invalid"] = "true"
	}
	if f.description != "" {
		attrs["toolparamdescription"] = f.description
	}
	return attrs
}

// Field returns the input name ("address.city" when nested) of the
// action's form, with what the person posted in it ([Form.For]); its
// description is the input schema's, when the page lists the action:
//
//	{{$title := .Field "title"}}
//	<input {{$title.Attrs}} value="{{$title.Value}}">{{$title.Issue}}
func (a PageAction) Field(name string) Field {
	f := a.Form()
	fd := Field{Value: f.value(name), Issue: f.issue(name), name: name}
	attrs := `name="` + template.HTMLEscapeString(name) + `"`
	if fd.Issue != "" {
		attrs += ` aria-invalid="true"`
	}
	if a.listed != nil {
		if d := a.listed.a.form.describe(name); d != "" {
			fd.description = webmcp.Cut(d, webmcp.MaxParamDescription, "…") // Chrome's guidance, for Attrs and Attributes alike
			attrs += ` toolparamdescription="` + template.HTMLEscapeString(fd.description) + `"`
		}
	}
	fd.Attrs = template.HTMLAttr(attrs)
	return fd
}

// Head returns what a route's page's <head> carries for agents: links to
// its graph (its query kept, docs/protocol.md decision 3), llms.txt and its AAL
// fragment, the fragment inline (docs/protocol.md decision 7), and its WebMCP tools
// with the script that registers them (docs/protocol.md decision 12; the page's CSP
// must allow script-src and connect-src 'self', or [Page.SetNonce]). ""
// without a state. In a templ component: @templ.Raw(pg.Head()). After a
// navigation that swaps the body and pushes a URL (htmx's hx-boost), the
// script puts the new page's links, fragment and tools in their place.
func (p *Page) Head() template.HTML {
	req := p.loaded()
	if req == nil {
		return ""
	}
	u := req.HTTP.URL
	var b strings.Builder
	b.WriteString(`<link rel="affordances" href="` + template.HTMLEscapeString(graphHref(u.RawQuery)) + `">`)
	b.WriteString(`<link rel="alternate" type="text/markdown" href="` + template.HTMLEscapeString(p.site.full(LLMsTxtPath)) + `" title="llms.txt">`)
	fragment := p.site.full(aal.FragmentPath(p.site.full(u.EscapedPath())))
	if u.RawQuery != "" {
		fragment += "?" + u.RawQuery
	}
	b.WriteString(`<link rel="agent-affordances" href="` + template.HTMLEscapeString(fragment) + `">`)
	f := p.fragment()
	if f == nil {
		return template.HTML(b.String())
	}
	script := "<script"
	if n := p.nonce.Load(); n != nil {
		script += ` nonce="` + template.HTMLEscapeString(*n) + `"`
	}
	if body, err := json.Marshal(f); err == nil { // escapes <, > and & as \u003c, \u003e, \u0026
		b.WriteString(script + ` type="` + aal.MediaType + `">` + string(body) + `</script>`)
	}
	if body, err := json.Marshal(struct {
		Tools []webmcpTool `json:"tools"`
	}{webmcpTools(p.listing(), f)}); err == nil {
		b.WriteString(script + ` type="application/json" id="affordances-webmcp">` + string(body) + `</script>` +
			script + ` src="` + template.HTMLEscapeString(p.site.full(WebMCPScriptPath)) + `" defer></script>`)
	}
	return template.HTML(b.String())
}

// SetNonce gives the page its Content-Security-Policy nonce, which every
// script element [Page.Head] writes then carries. Call it before the head
// renders: in the handler, or in a middleware inside the site's Handler.
func (p *Page) SetNonce(nonce string) {
	if p != nil {
		p.nonce.Store(&nonce)
	}
}

// ErrNotMine is what a state loader returns for a path its pattern matches
// that is none of its pages (a /favicon.ico under /{post}): the path is
// then as one no route matches, the app's alone. [Page.State] reports it.
var ErrNotMine = libError(NotFound, phrase("This page has no Affordances graph."))

// pageWriter adds to the answer of a page of a route, when its handler
// writes the header, what the site adds: Vary: Accept (the graph shares
// the page's URL), and on a page that rendered (2xx) the Link headers to
// its graph and to llms.txt. It merges them with what the handler set, once
// each, whatever the handler did to the header map before.
type pageWriter struct {
	http.ResponseWriter
	page  *Page
	query string // the page's raw query, for the graph's Link
	wrote bool
}

func (w *pageWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		h := w.Header()
		addToken(h, "Vary", "Accept")
		if code >= 200 && code < 300 && !w.page.notMine.Load() {
			addValue(h, "Link", "<"+graphHref(w.query)+`>; rel="affordances"`)
			addValue(h, "Link", w.page.site.llmsLink)
			for _, l := range w.page.site.prefixLinks {
				addValue(h, "Link", l)
			}
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *pageWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what was written, for a handler that streams its page.
func (w *pageWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap returns the ResponseWriter it wraps, for [http.ResponseController].
func (w *pageWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// addToken adds token to the comma-separated header name unless one of its
// values lists it already (case aside).
func addToken(h http.Header, name, token string) {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return
			}
		}
	}
	h.Add(name, token)
}

// addValue adds value to the header name unless it is there already.
func addValue(h http.Header, name, value string) {
	for _, v := range h.Values(name) {
		if v == value {
			return
		}
	}
	h.Add(name, value)
}
