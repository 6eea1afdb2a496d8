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

// A Page is what [Site.Handler] knows of a request it hands on ([PageFrom]):
// who asks and, on a route's page, its state, actions, form and head, each
// computed once, when first asked for. Its methods are safe for concurrent
// use and on a nil *Page.
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

// PageFrom returns the [Page] [Site.Handler] handed on with ctx, or nil.
func PageFrom(ctx context.Context) *Page {
	p, _ := ctx.Value(pageKey{}).(*Page)
	return p
}

// Principal returns who asks, as the site's Authenticate says, authenticated
// once; anonymous when Authenticate failed ([Page.Who] says why).
func (p *Page) Principal() Principal {
	who, _ := p.Who()
	return who
}

// Who returns who asks, as [Page.Principal] does, and why Authenticate
// failed, if it did ([ErrInvalidToken] for a bad bearer token).
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

// SetPrincipal says who asks for the page the app renders, as its session
// found them, instead of Authenticate (not for calls and graphs). It does
// nothing once the page's principal is known.
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

// State returns the page's state, loaded as its graph's is, or why there is
// none as an [*Error]: [NotFound] (the loader said so, or no route matches),
// or [Internal] when authentication or the loader failed.
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

// SetState gives the page the state the handler loaded itself, which must be
// what the route's loader returns, so that it is not loaded again. It does
// nothing once the state is known; nil is an empty state.
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
// request, its guards evaluated once; nil without a state.
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

// Form returns what became of the form the person just posted, or nil.
func (p *Page) Form() *Form {
	if p == nil {
		return nil
	}
	return p.form
}

// A Field is one input of an action's form ([PageAction.Field]).
type Field struct {
	Value string            // what the person sent, to fill the input again after a failed post
	Issue string            // why the input was refused, for a person; "" when it was not
	Attrs template.HTMLAttr // name, aria-invalid when Issue is set, toolparamdescription (docs/protocol.md decision 12)

	name, description string // of Attrs, for Attributes
}

// Attributes returns Attrs as a new map (templ.Attributes).
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

// Field returns the input name ("address.city" when nested) of the action's
// form, with what the person posted and the input schema's description.
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

// Head returns what a route's page's <head> carries for agents, "" without a
// state: links to its graph, llms.txt and AAL fragment (docs/protocol.md
// decision 3), the fragment inline (docs/protocol.md decision 7), and its
// WebMCP tools, whose script needs a CSP allowing script-src and connect-src
// 'self' or [Page.SetNonce] (docs/protocol.md decision 12).
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

// SetNonce gives the page its Content-Security-Policy nonce, for the script
// elements of [Page.Head]; call it before the head renders.
func (p *Page) SetNonce(nonce string) {
	if p != nil {
		p.nonce.Store(&nonce)
	}
}

// ErrNotMine is what a state loader returns for a path that is none of its
// pages (a /favicon.ico under /{post}), which is then the app's alone.
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
