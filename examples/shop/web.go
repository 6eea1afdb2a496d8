package shop

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/oauth"
)

//go:embed templates/*.html static/shop.css
var assets embed.FS

// views holds one parsed template set per page.
type views struct {
	pages map[string]*template.Template
	css   []byte
}

var pageNames = []string{"catalog", "product", "reviews", "cart", "shipping", "payment", "checkout", "order", "orders", "login", "error"}

func mustParseViews() *views {
	funcs := affordances.TemplateFuncs()
	funcs["money"] = money
	funcs["items"] = items
	funcs["date"] = func(rfc3339 string) string {
		t, err := time.Parse(time.RFC3339, rfc3339)
		if err != nil {
			return rfc3339
		}
		return t.Format("2 January 2006, 15:04 UTC")
	}
	base := template.Must(template.New("base.html").Funcs(funcs).ParseFS(assets, "templates/base.html"))
	v := &views{pages: map[string]*template.Template{}}
	for _, name := range pageNames {
		v.pages[name] = template.Must(template.Must(base.Clone()).ParseFS(assets, "templates/"+name+".html"))
	}
	css, err := assets.ReadFile("static/shop.css")
	if err != nil {
		panic("shop: " + err.Error())
	}
	v.css = css
	return v
}

// pageData is what every template gets.
type pageData struct {
	Title     string
	User      *User
	CartCount int
	Graph     bool           // the page has a graph: link it
	GraphURL  string         // this page's graph, for the footer
	E         map[string]any // the page's entities, as its graph shows them
	// Path is the page's path and query, where its forms post: the way
	// back from a confirmation, and where signing in returns to.
	Path string

	// Head is what the head of a page with a graph carries for agents
	// (affordances.Page.Head): the links to its graph (its query kept, a
	// search's graph is the search's, docs/protocol.md decision 3), to llms.txt and
	// to its AAL fragment, the fragment inline (docs/protocol.md §30), and its WebMCP
	// tools (docs/protocol.md decision 12).
	Head template.HTML

	// Step is the page's step in the checkout flow, 1 to 4; 0 outside it.
	Step int

	// Form is what became of the form the person just posted
	// (affordances.Page.Form): base.html shows its message or its error,
	// and the page each issue at its field and the values typed.
	Form *affordances.Form
	// Confirm is what the confirmation of Form's confirm action says; the
	// page is then that confirmation (base.html).
	Confirm *confirmation

	// Actions are the page's actions as its graph lists them for this
	// person (affordances.Page.Actions), which Unavailable reads; the
	// forms take their attributes and inputs from Action.
	Actions affordances.Actions
	page    *affordances.Page

	// Page-specific.
	Message    string         // error pages
	Next       string         // login: where to go after signing in
	FirstSKU   string         // product: the variant selected first
	Catalog    catalogQuery   // catalog
	CatName    string         // catalog: the category's name
	Categories []categoryView // catalog
	Pages      int            // admin
	NextURL    string         // admin
	PrevURL    string         // admin
	NewToken   string         // account tokens: the token just created, shown once
	Assistants string         // account: the page of connected assistants, "" without OAuth
}

// Unavailable returns why the page's action is unavailable to the person,
// as the page's graph says (docs/protocol.md decision 1), or "" when it is available:
// the page renders its element disabled with the reason beside it.
func (d *pageData) Unavailable(action string) (string, error) {
	a, ok := d.Actions.Find(action)
	if !ok {
		return "", fmt.Errorf("shop: the page lists no action %q", action)
	}
	if a.Available {
		return "", nil
	}
	return a.Reason, nil
}

// Action returns the page's action as its template renders it: its
// hidden field, its tool's attributes and its inputs.
func (d *pageData) Action(name string) affordances.PageAction { return d.page.Action(name) }

// Issue returns what is wrong with field in the form of action the person
// just sent, "" when nothing is.
func (d *pageData) Issue(action, field string) string {
	return d.page.Action(action).Field(field).Issue
}

// Value returns what the person typed in field of the form of action, when
// that form comes back to them (it failed), else def.
func (d *pageData) Value(action, field, def string) string {
	if f := d.Form.For(action); f != nil && f.Values != nil {
		return f.Values.Get(field)
	}
	return def
}

// A confirmation is what the page of a confirm action says before the
// action runs: its heading, the button that confirms, and the link back.
type confirmation struct {
	Title, Button, Back string
	Danger              bool // the button looks dangerous: it deletes
}

// confirmations are the pages of the shop's confirm actions
// (docs/protocol.md §19, step 6), by action; the summary comes from the action.
var confirmations = map[string]confirmation{
	"placeOrder": {Title: "Confirm your order", Button: "Place order", Back: "Back to the review"},
	"deleteUser": {Title: "Delete an account?", Button: "Delete the account", Back: "Keep it", Danger: true},
}

// A flowStep is one step of the checkout as the steps bar shows it.
type flowStep struct {
	N             int
	Name, Path    string
	Current, Done bool
}

// Steps returns the checkout's steps, placed relative to the page's.
func (d *pageData) Steps() []flowStep {
	steps := []flowStep{{1, "Cart", routeCart, false, false}, {2, "Shipping", routeShipping, false, false},
		{3, "Payment", routePayment, false, false}, {4, "Review", routeCheckout, false, false}}
	for i := range steps {
		steps[i].Current, steps[i].Done = steps[i].N == d.Step, steps[i].N < d.Step
	}
	return steps
}

// Q and Cat expose the catalog query to templates.
func (d *pageData) Q() string   { return d.Catalog.q }
func (d *pageData) Cat() string { return d.Catalog.category }

// pages returns the HTML side of the shop: the pages people read and the
// stylesheet. People's forms post to their page, where the site runs the
// action they name (affordances.Page.Form); a form that reaches the pages
// names no action of its page.
func (s *Shop) pages() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+routeCatalog, s.show("catalog", s.catalogPage))
	mux.HandleFunc("GET "+routeProduct, s.show("product", s.productPage))
	mux.HandleFunc("GET "+routeReviews, s.show("reviews", func(d *pageData, r *http.Request) {
		st, _ := affordances.PageFrom(r.Context()).State()
		d.Title = "Reviews of " + affordances.Entity[map[string]string](st, "product")["name"]
	}))
	mux.HandleFunc("GET "+routeCart, s.show("cart", func(d *pageData, _ *http.Request) { d.Title, d.Step = "Your cart", 1 }))
	mux.HandleFunc("GET "+routeShipping, s.show("shipping", func(d *pageData, _ *http.Request) { d.Title, d.Step = "Shipping", 2 }))
	mux.HandleFunc("GET "+routePayment, s.show("payment", func(d *pageData, _ *http.Request) { d.Title, d.Step = "Payment", 3 }))
	mux.HandleFunc("GET "+routeCheckout, s.show("checkout", func(d *pageData, _ *http.Request) { d.Title, d.Step = "Review your order", 4 }))
	mux.HandleFunc("GET "+routeOrder, s.show("order", func(d *pageData, r *http.Request) { d.Title = "Order " + r.PathValue("id") }))
	mux.HandleFunc("GET "+routeLogin, s.show("login", func(d *pageData, r *http.Request) {
		d.Title = "Sign in"
		if d.User != nil {
			d.Title = "Your account"
		}
		if next := r.URL.Query().Get("next"); localPath(next) {
			d.Next = next
		}
	}))
	mux.HandleFunc("GET /static/shop.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Write(s.views.css)
	})
	s.orderPages(mux)
	s.accountPages(mux)
	s.adminPages(mux)
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		s.errorPage(w, r, http.StatusBadRequest, "Bad request", "The shop did not understand that form. Nothing changed.")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { s.notFound(w, r) })
	return mux
}

// withHeaders sets the headers every answer of the shop carries, the
// site's (a form's 303, a graph) and the pages' alike.
func withHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "same-origin")
		h.ServeHTTP(w, r)
	})
}

// show renders a page with a graph from the state the site loaded for it
// (the same load as the graph), or the 404 or 500 page when there is none.
// After a form, the page shows what became of it: base.html the message,
// the error or the confirmation, the page each issue at its field.
func (s *Shop) show(name string, fill func(d *pageData, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		page := affordances.PageFrom(ctx)
		st, err := page.State()
		if affordances.CodeOf(err) == affordances.NotFound {
			s.notFound(w, r)
			return
		}
		if err != nil {
			s.errorPage(w, r, http.StatusInternalServerError, "Something went wrong", "The shop could not load this page. Try again in a moment.")
			return
		}
		d := s.data(ctx, page.Principal(), st)
		d.Graph = true
		q := r.URL.Query()
		q.Set("affordances", "1")
		d.GraphURL = r.URL.Path + "?" + q.Encode()
		d.Path = r.URL.RequestURI()
		d.Head = page.Head()
		d.Form = page.Form()
		d.Actions = page.Actions()
		d.page = page
		fill(d, r)
		if d.Form != nil && d.Form.Confirm != "" {
			c, ok := confirmations[d.Form.Action]
			if !ok {
				c = confirmation{Title: "Confirm", Button: "Confirm", Back: "Cancel"}
			}
			d.Confirm, d.Title = &c, c.Title
		}
		s.render(w, http.StatusOK, name, d)
	}
}

func (s *Shop) catalogPage(d *pageData, r *http.Request) {
	d.Catalog = parseCatalogQuery(r.URL.Query())
	d.Title = "Catalog"
	if d.Catalog.q != "" {
		d.Title = "Search: " + d.Catalog.q
	}
	// The graph lists category slugs; people read their names too.
	d.Categories = s.store.categories()
	d.CatName = s.store.categoryName(d.Catalog.category)
}

func (s *Shop) productPage(d *pageData, r *http.Request) {
	st, _ := affordances.PageFrom(r.Context()).State() // show rendered the error page when there is none
	p := affordances.Entity[*productView](st, "product")
	d.Title = p.Name
	for _, v := range p.Variants {
		if v.Stock > 0 {
			d.FirstSKU = v.SKU
			break
		}
	}
}

// data fills what every page shows: who is signed in, and the cart count
// in the header.
func (s *Shop) data(ctx context.Context, p affordances.Principal, st *affordances.State) *pageData {
	d := &pageData{User: userOf(p)}
	if s.oauth != nil {
		d.Assistants = oauth.AssistantsPath
	}
	if st != nil {
		d.E = st.Entities
		switch c := st.Entities["cart"].(type) {
		case cartSummary:
			d.CartCount = c.Count
			return d
		case *cartView:
			d.CartCount = c.Count
			return d
		}
	}
	if d.User != nil {
		if c, err := s.store.cart(ctx, d.User.ID); err == nil {
			d.CartCount = c.Count
		}
	}
	return d
}

// render writes a page; a template failure is a plain 500.
func (s *Shop) render(w http.ResponseWriter, status int, name string, d *pageData) {
	var buf bytes.Buffer
	if err := s.views.pages[name].ExecuteTemplate(&buf, "base", d); err != nil {
		s.logger.Error("shop: render "+name, "err", err)
		http.Error(w, "Something went wrong.", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	if h.Get("Cache-Control") == "" { // a page with a secret says no-store
		h.Set("Cache-Control", "private, no-cache")
	}
	// Scripts only from the shop itself, WebMCP's (its data block is JSON,
	// which runs nothing), and its calls only to the shop.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (s *Shop) notFound(w http.ResponseWriter, r *http.Request) {
	msg := "There is no page here."
	switch {
	case strings.HasPrefix(r.URL.Path, "/products/"):
		msg = "No such product."
	case strings.HasPrefix(r.URL.Path, "/orders/"):
		msg = "No such order. Orders are only visible to the customer who placed them; are you signed in?"
	}
	s.errorPage(w, r, http.StatusNotFound, "Not found", msg)
}

func (s *Shop) errorPage(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	p, _ := s.authenticate(r)
	d := s.data(r.Context(), p, nil)
	d.Title, d.Message = title, msg
	s.render(w, status, "error", d)
}
