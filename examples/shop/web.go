package shop

import (
	"bytes"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
)

//go:embed templates/*.html static/shop.css
var assets embed.FS

// views holds one parsed template set per page.
type views struct {
	pages map[string]*template.Template
	css   []byte
}

var pageNames = []string{"catalog", "product", "cart", "shipping", "payment", "checkout", "confirm", "order", "orders", "login", "error"}

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
	Flash     *flash
	Graph     bool           // the page has a graph: link it
	GraphURL  string         // this page's graph, for the footer
	E         map[string]any // the page's entities, as its graph shows them
	Status    int

	// AAL (seed 003): the page's <link rel="agent-affordances"> and its
	// fragment inline, for the head of a page with a graph.
	AALLink   template.HTML
	AALScript template.HTML

	// Step is the page's step in the checkout flow, 1 to 4; 0 outside it.
	Step int

	// why says why an action is unavailable here (see Unavailable).
	why func(action string) (string, error)

	// Page-specific.
	Message    string         // error pages
	Summary    string         // checkout, confirm
	Next       string         // login: where to go after signing in
	FirstSKU   string         // product: the variant selected first
	InStock    bool           // product
	Catalog    catalogQuery   // catalog
	CatName    string         // catalog: the category's name
	Categories []categoryView // catalog
	Pages      int            // catalog
	NextURL    string         // catalog
	PrevURL    string         // catalog
	NewToken   string         // account tokens: the token just created, shown once
	Email      string         // admin: the user a confirmation is about
}

// Unavailable returns why the page's action is unavailable to the person,
// as the page's graph says (CLARIFICATIONS 1), or "" when it is available:
// the page renders its element disabled with the reason beside it.
func (d *pageData) Unavailable(action string) (string, error) {
	if d.why == nil {
		return "", nil
	}
	return d.why(action)
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

// Q, Cat and Page expose the catalog query to templates.
func (d *pageData) Q() string   { return d.Catalog.q }
func (d *pageData) Cat() string { return d.Catalog.category }
func (d *pageData) Page() int   { return d.Catalog.page }

// pages returns the HTML side of the shop: the pages people read, the forms
// they post, and the stylesheet. Form posts must come from the site itself
// (http.CrossOriginProtection); they redirect (303) after they ran.
func (s *Shop) pages(origin string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.show("catalog", s.catalogPage))
	mux.HandleFunc("GET /products/{slug}", s.show("product", s.productPage))
	mux.HandleFunc("GET /cart", s.show("cart", func(d *pageData, _ *http.Request) { d.Title, d.Step = "Your cart", 1 }))
	mux.HandleFunc("GET /checkout/shipping", s.show("shipping", func(d *pageData, _ *http.Request) { d.Title, d.Step = "Shipping", 2 }))
	mux.HandleFunc("GET /checkout/payment", s.show("payment", func(d *pageData, _ *http.Request) { d.Title, d.Step = "Payment", 3 }))
	mux.HandleFunc("GET /checkout", s.show("checkout", func(d *pageData, r *http.Request) {
		d.Title, d.Step = "Review your order", 4
		st, _ := affordances.StateFrom(r.Context()) // show rendered the error page when there is none
		d.Summary = checkoutSummary(st)
	}))
	mux.HandleFunc("GET /orders/{id}", s.show("order", func(d *pageData, r *http.Request) { d.Title = "Order " + r.PathValue("id") }))
	mux.HandleFunc("GET /login", s.show("login", func(d *pageData, r *http.Request) {
		d.Title = "Sign in"
		if d.User != nil {
			d.Title = "Your account"
		}
		d.Next = localPath(r.URL.Query().Get("next"))
	}))
	mux.HandleFunc("GET /static/shop.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Write(s.views.css)
	})
	mux.HandleFunc("POST /products/{slug}", s.postProduct)
	mux.HandleFunc("POST /cart", s.postCart)
	mux.HandleFunc("POST /checkout/shipping", s.postShipping)
	mux.HandleFunc("POST /checkout/payment", s.postPayment)
	mux.HandleFunc("POST /checkout", s.postCheckout)
	mux.HandleFunc("POST /login", s.postLogin)
	s.orderPages(mux)
	s.accountPages(mux)
	s.adminPages(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { s.notFound(w, r) })

	cop := http.NewCrossOriginProtection()
	if origin != "" {
		if err := cop.AddTrustedOrigin(origin); err != nil {
			panic("shop: " + err.Error())
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.errorPage(w, r, http.StatusForbidden, "Refused", "This form was posted from another site, so the shop refused it. Nothing changed.")
	}))
	h := cop.Handler(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "same-origin")
		h.ServeHTTP(w, r)
	})
}

// show renders a page with a graph from the state the site loaded for it
// (the same load as the graph), or the 404 or 500 page when there is none.
func (s *Shop) show(name string, fill func(d *pageData, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		st, err := affordances.StateFrom(r.Context())
		if affordances.CodeOf(err) == affordances.NotFound {
			s.notFound(w, r)
			return
		}
		if err != nil {
			s.errorPage(w, r, http.StatusInternalServerError, "Something went wrong", "The shop could not load this page. Try again in a moment.")
			return
		}
		p := affordances.PrincipalFrom(r.Context())
		d := s.data(w, r, p, st)
		d.Graph = true
		q := r.URL.Query()
		q.Set("affordances", "1")
		d.GraphURL = r.URL.Path + "?" + q.Encode()
		d.AALLink, d.AALScript = affordances.AALLink(r.Context()), affordances.AALScript(r.Context())
		d.why = func(action string) (string, error) { return s.unavailable(action, p, st) }
		fill(d, r)
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
	cats, err := s.store.categories(r.Context())
	if err != nil {
		s.logger.Error("shop: categories", "err", err)
	}
	d.Categories = cats
	for _, c := range cats {
		if c.Slug == d.Catalog.category {
			d.CatName = c.Name
		}
	}
	if pages, ok := d.E["pages"].(int); ok {
		d.Pages = pages
		if d.Catalog.page < pages {
			next := d.Catalog
			next.page++
			d.NextURL = next.url()
		}
		if d.Catalog.page > 1 {
			prev := d.Catalog
			prev.page--
			d.PrevURL = prev.url()
		}
	}
}

func (s *Shop) productPage(d *pageData, r *http.Request) {
	st, _ := affordances.StateFrom(r.Context()) // show rendered the error page when there is none
	p := entity[*productView](st, "product")
	d.Title = p.Name
	d.InStock = p.inStock()
	for _, v := range p.Variants {
		if v.Stock > 0 {
			d.FirstSKU = v.SKU
			break
		}
	}
}

// data fills what every page shows: who is signed in, the cart count in the
// header, the flash message.
func (s *Shop) data(w http.ResponseWriter, r *http.Request, p affordances.Principal, st *affordances.State) *pageData {
	d := &pageData{User: userOf(p), Flash: takeFlash(w, r)}
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
		if c, err := s.store.cart(r.Context(), d.User.ID); err == nil {
			d.CartCount = c.Count
		}
	}
	return d
}

// render writes a page; a template failure is a plain 500.
func (s *Shop) render(w http.ResponseWriter, status int, name string, d *pageData) {
	d.Status = status
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
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
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
	d := s.data(w, r, p, nil)
	d.Title, d.Message = title, msg
	s.render(w, status, "error", d)
}

// Forms. Each runs the same domain code as the action of the same name.

// formUser returns the signed-in user of a form post, or redirects to the
// sign-in page and returns nil.
func (s *Shop) formUser(w http.ResponseWriter, r *http.Request) *User {
	p, err := s.authenticate(r)
	if u := userOf(p); err == nil && u != nil {
		return u
	}
	setFlash(w, false, signInReason)
	back := r.URL.Path
	http.Redirect(w, r, "/login?next="+url.QueryEscape(back), http.StatusSeeOther)
	return nil
}

// done redirects after a form post, with a message for the next page: the
// error's own message for a domain failure, a generic one otherwise.
func (s *Shop) done(w http.ResponseWriter, r *http.Request, to, ok string, err error) {
	if err != nil {
		var e *affordances.Error
		if errors.As(err, &e) {
			setFlash(w, false, e.Message)
		} else {
			s.logger.Error("shop: form "+r.URL.Path, "err", err)
			setFlash(w, false, "Something went wrong on our side. Nothing changed; try again.")
		}
	} else if ok != "" {
		setFlash(w, true, ok)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (s *Shop) badForm(w http.ResponseWriter, r *http.Request) {
	s.errorPage(w, r, http.StatusBadRequest, "Bad request", "The shop did not understand that form.")
}

// quantityField reads a form's quantity; absent is def.
func quantityField(r *http.Request, def int) (int, error) {
	return quantityOf(r.PostFormValue("quantity"), def)
}

// quantityOf reads a quantity a form posted; empty is def.
func quantityOf(v string, def int) (int, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, checkQuantity(0)
	}
	return n, checkQuantity(n)
}

func (s *Shop) postProduct(w http.ResponseWriter, r *http.Request) {
	slug := r.PathValue("slug")
	back := "/products/" + url.PathEscape(slug)
	switch r.PostFormValue("_action") {
	case "addToCart":
	case "writeReview", "deleteReview":
		s.postReview(w, r)
		return
	default:
		s.badForm(w, r)
		return
	}
	u := s.formUser(w, r)
	if u == nil {
		return
	}
	qty, err := quantityField(r, 1)
	if err != nil {
		s.done(w, r, back, "", err)
		return
	}
	line, err := s.store.addToCart(r.Context(), u.ID, slug, r.PostFormValue("sku"), qty)
	s.done(w, r, back, addedMessage(line, qty), err)
}

// postCart runs the cart's two forms: one sets the quantity of every line
// it lists (sku and quantity, repeated, in one transaction), the other
// removes the line of its sku.
func (s *Shop) postCart(w http.ResponseWriter, r *http.Request) {
	action := r.PostFormValue("_action")
	if action != "updateQuantity" && action != "removeFromCart" {
		s.badForm(w, r)
		return
	}
	u := s.formUser(w, r)
	if u == nil {
		return
	}
	if action == "removeFromCart" {
		sku := r.PostFormValue("sku")
		c, _ := s.store.cart(r.Context(), u.ID)
		name := lineName(c, sku)
		s.done(w, r, "/cart", "Removed "+name+" from your cart.", s.store.removeFromCart(r.Context(), u.ID, sku))
		return
	}
	skus, qtys := r.PostForm["sku"], r.PostForm["quantity"]
	if len(skus) == 0 || len(skus) != len(qtys) {
		s.badForm(w, r)
		return
	}
	c, err := s.store.cart(r.Context(), u.ID)
	if err != nil {
		s.done(w, r, "/cart", "", err)
		return
	}
	var want []lineQuantity
	for i, sku := range skus {
		qty, err := quantityOf(qtys[i], 0)
		if err != nil {
			s.done(w, r, "/cart", "", err)
			return
		}
		if !slices.ContainsFunc(c.Items, func(l cartLine) bool { return l.SKU == sku && l.Quantity == qty }) {
			want = append(want, lineQuantity{sku, qty})
		}
	}
	if len(want) == 0 {
		s.done(w, r, "/cart", "Nothing changed.", nil)
		return
	}
	lines, err := s.store.setQuantities(r.Context(), u.ID, want)
	msgs := make([]string, len(lines))
	for i, l := range lines {
		msgs[i] = quantityMessage(l)
	}
	s.done(w, r, "/cart", strings.Join(msgs, " "), err)
}

// postShipping chooses the address the order ships to, then goes on to
// the payment step.
func (s *Shop) postShipping(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("_action") != "chooseAddress" {
		s.badForm(w, r)
		return
	}
	u := s.formUser(w, r)
	if u == nil {
		return
	}
	a, err := s.store.chooseAddress(r.Context(), u.ID, r.PostFormValue("address"))
	if err != nil {
		s.done(w, r, routeShipping, "", err)
		return
	}
	s.done(w, r, routePayment, shipToMessage(a), nil)
}

// postPayment chooses the card the order is paid with, then goes on to
// the review.
func (s *Shop) postPayment(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("_action") != "choosePayment" {
		s.badForm(w, r)
		return
	}
	u := s.formUser(w, r)
	if u == nil {
		return
	}
	c, err := s.store.choosePayment(r.Context(), u.ID, r.PostFormValue("card"))
	if err != nil {
		s.done(w, r, routePayment, "", err)
		return
	}
	s.done(w, r, routeCheckout, payWithMessage(c), nil)
}

// postCheckout places the order when the form says confirm=yes; without
// it, it shows what will happen and asks (seed 000, Call step 6).
func (s *Shop) postCheckout(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("_action") != "placeOrder" {
		s.badForm(w, r)
		return
	}
	u := s.formUser(w, r)
	if u == nil {
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		st, err := s.checkoutState(r.Context(), principal(u, affordances.AuthCookie))
		if err != nil {
			s.done(w, r, "/checkout", "", err)
			return
		}
		if c := entity[*cartView](st, "cart"); c == nil || len(c.Items) == 0 {
			s.done(w, r, "/checkout", "", errEmptyCart)
			return
		}
		d := s.data(w, r, principal(u, affordances.AuthCookie), st)
		d.Title = "Confirm your order"
		d.Summary = checkoutSummary(st)
		s.render(w, http.StatusOK, "confirm", d)
		return
	}
	o, err := s.store.placeOrder(r.Context(), u.ID)
	if err != nil {
		s.done(w, r, "/checkout", "", err)
		return
	}
	s.done(w, r, "/orders/"+o.ID, orderMessage(o), nil)
}

func (s *Shop) postLogin(w http.ResponseWriter, r *http.Request) {
	switch r.PostFormValue("_action") {
	case "signIn":
		next := localPath(r.PostFormValue("next"))
		u, cookie, err := s.signIn(r.Context(), r, r.PostFormValue("email"), r.PostFormValue("password"))
		if affordances.CodeOf(err) == affordances.RateLimited {
			w.Header().Set("Retry-After", "60")
			s.errorPage(w, r, http.StatusTooManyRequests, "Too many attempts", "Too many sign-in attempts. Wait a minute and try again.")
			return
		}
		if err != nil {
			to := "/login"
			if next != "" {
				to += "?next=" + url.QueryEscape(next)
			}
			s.done(w, r, to, "", err)
			return
		}
		http.SetCookie(w, cookie)
		if next == "" {
			next = "/"
		}
		s.done(w, r, next, "Signed in as "+u.Email+".", nil)
	case "signOut":
		cookie, err := s.signOut(r.Context(), r)
		if err == nil {
			http.SetCookie(w, cookie)
		}
		s.done(w, r, "/", "Signed out.", err)
	default:
		s.badForm(w, r)
	}
}

// clientHost returns the address of the client, without the port.
func clientHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// localPath returns p when it is a path on this site, "" otherwise: a
// sign-in never sends a person elsewhere.
// Browsers drop tabs and newlines from URLs and read a backslash as a
// slash, so "/\t/evil.example" would leave the site: any control
// character or backslash refuses the path.
func localPath(p string) string {
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return ""
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return ""
	}
	return p
}

// A flash is a one-time message for the page after a form post, carried in
// a short-lived cookie.
type flash struct {
	OK   bool
	Text string
}

const flashCookie = "flash"

func setFlash(w http.ResponseWriter, ok bool, text string) {
	kind := "e"
	if ok {
		kind = "o"
	}
	http.SetCookie(w, &http.Cookie{
		Name: flashCookie, Value: kind + base64.RawURLEncoding.EncodeToString([]byte(text)),
		Path: "/", MaxAge: 60, HttpOnly: true, SameSite: http.SameSiteLaxMode,
	})
}

// takeFlash reads the flash message and clears it.
func takeFlash(w http.ResponseWriter, r *http.Request) *flash {
	c, err := r.Cookie(flashCookie)
	if err != nil || len(c.Value) < 2 {
		return nil
	}
	http.SetCookie(w, &http.Cookie{Name: flashCookie, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	text, err := base64.RawURLEncoding.DecodeString(c.Value[1:])
	if err != nil {
		return nil
	}
	return &flash{OK: c.Value[0] == 'o', Text: string(text)}
}
