package shop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
)

// Route patterns.
const (
	routeCatalog  = "/"
	routeProduct  = "/products/[slug]"
	routeCart     = "/cart"
	routeCheckout = "/checkout"
	routeOrder    = "/orders/[id]"
	routeLogin    = "/login"
)

// declare declares the shop's routes and actions on its site.
func (s *Shop) declare() {
	catalog := s.site.Route(routeCatalog, &affordances.RouteOptions{
		Description: "The catalog: products by category, and search",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.catalogState(ctx, r.Principal, r.HTTP.URL.Query())
		},
	})
	affordances.AddAction(catalog, &affordances.Action{
		Name:        "search",
		Description: "Search products; the redirect shows the results",
		Expose:      affordances.ExposePublic,
		ReadOnly:    true,
		Output:      searchOutputSchema,
	}, s.search)

	product := s.site.Route(routeProduct, &affordances.RouteOptions{
		Description: "One product: variants, price, stock",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.productState(ctx, r.Principal, r.Param("slug"))
		},
	})
	affordances.AddAction(product, &affordances.Action{
		Name:        "addToCart",
		Description: "Add a variant of this product to the cart",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"cart"},
		Guard: func(ctx context.Context, r *affordances.Request) (bool, string) {
			if p := entity[*productView](r.State, "product"); p == nil || !p.inStock() {
				return false, "Out of stock."
			}
			return true, ""
		},
		GuardText: "the product is in stock",
	}, s.addToCart)

	cart := s.site.Route(routeCart, &affordances.RouteOptions{
		Description: "The cart: items, quantities, total",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.cartState(ctx, r.Principal)
		},
	})
	affordances.AddAction(cart, &affordances.Action{
		Name:        "updateQuantity",
		Description: "Set the quantity of an item in the cart",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"cart"},
		Guard:       cartNotEmpty,
		GuardText:   "the cart is not empty",
	}, s.updateQuantity)
	affordances.AddAction(cart, &affordances.Action{
		Name:        "removeFromCart",
		Description: "Remove an item from the cart",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"cart"},
		Guard:       cartNotEmpty,
		GuardText:   "the cart is not empty",
	}, s.removeFromCart)

	checkout := s.site.Route(routeCheckout, &affordances.RouteOptions{
		Description: "Checkout: the cart, shipping address and card, and placing the order",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.checkoutState(ctx, r.Principal)
		},
	})
	affordances.AddAction(checkout, &affordances.Action{
		Name:        "placeOrder",
		Description: "Order the cart, pay with the card on file and ship to the address shown",
		Expose:      affordances.ExposeConfirm,
		Effects:     []string{"cart"},
		Guard:       cartNotEmpty,
		GuardText:   "the cart is not empty",
		Summary: func(ctx context.Context, r *affordances.Request) (string, error) {
			return checkoutSummary(r.State), nil
		},
	}, s.placeOrder)

	s.site.Route(routeOrder, &affordances.RouteOptions{
		Description: "One of your orders",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.orderState(ctx, r.Principal, r.Param("id"))
		},
	})

	login := s.site.Route(routeLogin, &affordances.RouteOptions{
		Description: "Sign in and out",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.loginState(ctx, r.Principal)
		},
	})
	affordances.AddAction(login, &affordances.Action{
		Name:        "signIn",
		Description: "Sign in with email and password; starts a cookie session",
		Expose:      affordances.ExposePublic,
		Limit:       &signInLimit,
	}, s.signInAction)
	affordances.AddAction(login, &affordances.Action{
		Name:        "signOut",
		Description: "End this browser session",
		Expose:      affordances.ExposeSession,
		Visible:     func(r *affordances.Request) bool { return !r.Principal.Anonymous() },
		Guard: func(ctx context.Context, r *affordances.Request) (bool, string) {
			if r.Principal.Method != affordances.AuthCookie {
				return false, "Only a browser session can be signed out; a bearer token stays valid."
			}
			return true, ""
		},
		GuardText: "signed in with a session cookie",
	}, s.signOutAction)
}

// signInLimit bounds password guesses, by the action and by the form.
var signInLimit = affordances.Limit{Calls: 10, Per: time.Minute, Burst: 5}

// entity returns the entity key of st as a T, or T's zero value.
func entity[T any](st *affordances.State, key string) T {
	var zero T
	if st == nil {
		return zero
	}
	v, ok := st.Entities[key].(T)
	if !ok {
		return zero
	}
	return v
}

func cartNotEmpty(ctx context.Context, r *affordances.Request) (bool, string) {
	if c := entity[*cartView](r.State, "cart"); c == nil || len(c.Items) == 0 {
		return false, "Your cart is empty."
	}
	return true, ""
}

// nav returns extra, then the links of the header every page shows but
// the one to the page itself.
func nav(p affordances.Principal, page string, count int, extra ...affordances.NavLink) []affordances.NavLink {
	links := slices.Clip(extra)
	header := []affordances.NavLink{{To: "/", Label: "Catalog"}, {To: "/cart", Label: "Cart"}, {To: "/checkout", Label: "Checkout"}}
	if count == 0 {
		header[2].When = "the cart is not empty"
	}
	if p.Anonymous() {
		header = append(header, affordances.NavLink{To: "/login", Label: "Sign in"})
	} else {
		header = append(header, affordances.NavLink{To: "/login", Label: "Account"})
	}
	for _, l := range header {
		if l.To != page {
			links = append(links, l)
		}
	}
	return links
}

// catalogQuery is the catalog's query: its words, category and page.
type catalogQuery struct {
	q, category string
	page        int
}

func parseCatalogQuery(v url.Values) catalogQuery {
	c := catalogQuery{q: strings.TrimSpace(v.Get("q")), category: v.Get("category"), page: 1}
	if n, err := strconv.Atoi(v.Get("page")); err == nil && n > 1 {
		c.page = n
	}
	return c
}

// url returns the catalog's URL for c.
func (c catalogQuery) url() string {
	v := url.Values{}
	if c.q != "" {
		v.Set("q", c.q)
	}
	if c.category != "" {
		v.Set("category", c.category)
	}
	if c.page > 1 {
		v.Set("page", strconv.Itoa(c.page))
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// catalogState loads the catalog page: the query, one page of results and
// their count, the categories, and the cart's summary.
func (s *Shop) catalogState(ctx context.Context, p affordances.Principal, v url.Values) (*affordances.State, error) {
	cq := parseCatalogQuery(v)
	results, total, err := s.store.catalog(ctx, cq.q, cq.category, cq.page)
	if err != nil {
		return nil, err
	}
	cats, err := s.store.categories(ctx)
	if err != nil {
		return nil, err
	}
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	e := map[string]any{
		"query":      cq.q,
		"results":    results,
		"total":      total,
		"categories": slugs(cats),
		"cart":       cart.summary(),
	}
	if cq.category != "" {
		e["category"] = cq.category
	}
	var links []affordances.NavLink
	for _, r := range results {
		links = append(links, affordances.NavLink{To: "/products/" + r.Slug})
	}
	if pages := (total + catalogPageSize - 1) / catalogPageSize; pages > 1 {
		e["page"], e["pages"] = cq.page, pages
		if cq.page < pages {
			next := cq
			next.page++
			links = append(links, affordances.NavLink{To: next.url(), Label: "Next page"})
		}
		if cq.page > 1 {
			prev := cq
			prev.page--
			links = append(links, affordances.NavLink{To: prev.url(), Label: "Previous page"})
		}
	}
	return &affordances.State{Entities: e, Nav: nav(p, "/", cart.Count, links...)}, nil
}

func slugs(cs []categoryView) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Slug
	}
	return out
}

// productState loads a product page: the product with its variants and
// stock, and the cart's summary.
func (s *Shop) productState(ctx context.Context, p affordances.Principal, slug string) (*affordances.State, error) {
	prod, err := s.store.product(ctx, slug)
	if err != nil {
		return nil, err
	}
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	return &affordances.State{
		Entities: map[string]any{"product": prod, "cart": cart.summary()},
		Nav:      nav(p, "", cart.Count, affordances.NavLink{To: "/?category=" + prod.CategorySlug, Label: "More " + prod.Category}),
	}, nil
}

// cartState loads the cart page: every line and the total; an empty cart
// for nobody.
func (s *Shop) cartState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	return &affordances.State{Entities: map[string]any{"cart": cart}, Nav: nav(p, "/cart", cart.Count)}, nil
}

// checkoutState loads the checkout page: the cart, and for a signed-in
// user the shipping address and the card the order will use.
func (s *Shop) checkoutState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	e := map[string]any{"cart": cart}
	if u := userOf(p); u != nil {
		prof, err := s.store.profile(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		e["shipTo"] = prof.address
		e["payment"] = payment(prof.cardLast4)
	}
	return &affordances.State{Entities: e, Nav: nav(p, "/checkout", cart.Count)}, nil
}

// checkoutSummary is what placing the order will do, for the person who
// approves it: "Place order: 3 items, total $87.40, card ending 4242, ship
// to 1 Main St, Springfield."
func checkoutSummary(st *affordances.State) string {
	c := entity[*cartView](st, "cart")
	a := entity[addressView](st, "shipTo")
	pay := entity[string](st, "payment")
	if c == nil {
		return "Place order."
	}
	return fmt.Sprintf("Place order: %s, total %s, %s, ship to %s.", items(c.Count), money(c.Total), pay, a.oneLine())
}

// orderState loads one of the requester's orders; anyone else's is not
// found.
func (s *Shop) orderState(ctx context.Context, p affordances.Principal, id string) (*affordances.State, error) {
	u := userOf(p)
	if u == nil {
		return nil, errNoOrder
	}
	o, err := s.store.order(ctx, u.ID, id)
	if err != nil {
		return nil, err
	}
	cart, err := s.store.cart(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return &affordances.State{Entities: map[string]any{"order": o}, Nav: nav(p, "", cart.Count)}, nil
}

// loginState loads the sign-in page: whether the requester is signed in,
// and as whom.
func (s *Shop) loginState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	e := map[string]any{"signedIn": !p.Anonymous()}
	count := 0
	if u := userOf(p); u != nil {
		e["email"] = u.Email
		cart, err := s.store.cart(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		count = cart.Count
	}
	return &affordances.State{Entities: e, Nav: nav(p, "/login", count)}, nil
}

// searchOutputSchema is the search's output schema, given by hand to keep
// the catalog's graph small: results are the catalog's results.
var searchOutputSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"results":{"type":"array"},"total":{"type":"integer"}}}`)

// Inputs and outputs of the actions; their JSON Schemas are inferred.
type (
	searchInput struct {
		Q        string `json:"q" affordances:"minLength=1,maxLength=100"`
		Category string `json:"category,omitempty" affordances:"maxLength=40"`
	}
	searchOutput struct {
		Query   string        `json:"query"`
		Results []productCard `json:"results"`
		Total   int           `json:"total"`
	}
	addToCartInput struct {
		SKU      string `json:"sku" jsonschema:"the variant's sku" affordances:"minLength=1,maxLength=40"`
		Quantity int    `json:"quantity,omitempty" jsonschema:"default 1" affordances:"minimum=1,maximum=99"`
	}
	cartLineOutput struct {
		SKU      string `json:"sku"`
		Quantity int    `json:"quantity" jsonschema:"how many are in the cart now"`
	}
	updateQuantityInput struct {
		SKU      string `json:"sku" affordances:"minLength=1,maxLength=40"`
		Quantity int    `json:"quantity" affordances:"minimum=1,maximum=99"`
	}
	removeFromCartInput struct {
		SKU string `json:"sku" affordances:"minLength=1,maxLength=40"`
	}
	placeOrderOutput struct {
		OrderID string `json:"orderId"`
		Count   int    `json:"count"`
		Total   int    `json:"total" jsonschema:"in cents"`
	}
	signInInput struct {
		Email    string `json:"email" affordances:"minLength=3,maxLength=254"`
		Password string `json:"password" affordances:"minLength=1,maxLength=200"`
	}
	signInOutput struct {
		Email string `json:"email"`
	}
)

func (s *Shop) search(ctx context.Context, r *affordances.Request, in searchInput) (searchOutput, error) {
	cq := catalogQuery{q: strings.TrimSpace(in.Q), category: in.Category, page: 1}
	results, total, err := s.store.catalog(ctx, cq.q, cq.category, 1)
	if err != nil {
		return searchOutput{}, err
	}
	r.Redirect(cq.url())
	r.SetMessage(fmt.Sprintf("%s for %q.", countOf(total, "product", "products"), cq.q))
	return searchOutput{Query: cq.q, Results: results, Total: total}, nil
}

func (s *Shop) addToCart(ctx context.Context, r *affordances.Request, in addToCartInput) (cartLineOutput, error) {
	if in.Quantity == 0 {
		in.Quantity = 1
	}
	line, err := s.store.addToCart(ctx, userID(r.Principal), r.Param("slug"), in.SKU, in.Quantity)
	if err != nil {
		return cartLineOutput{}, err
	}
	r.SetMessage(addedMessage(line, in.Quantity))
	return cartLineOutput{SKU: line.SKU, Quantity: line.Quantity}, nil
}

func (s *Shop) updateQuantity(ctx context.Context, r *affordances.Request, in updateQuantityInput) (cartLineOutput, error) {
	line, err := s.store.setQuantity(ctx, userID(r.Principal), in.SKU, in.Quantity)
	if err != nil {
		return cartLineOutput{}, err
	}
	r.SetMessage(quantityMessage(line))
	return cartLineOutput{SKU: line.SKU, Quantity: line.Quantity}, nil
}

func (s *Shop) removeFromCart(ctx context.Context, r *affordances.Request, in removeFromCartInput) (struct{}, error) {
	name := lineName(entity[*cartView](r.State, "cart"), in.SKU)
	if err := s.store.removeFromCart(ctx, userID(r.Principal), in.SKU); err != nil {
		return struct{}{}, err
	}
	r.SetMessage("Removed " + name + " from your cart.")
	return struct{}{}, nil
}

func (s *Shop) placeOrder(ctx context.Context, r *affordances.Request, _ struct{}) (placeOrderOutput, error) {
	o, err := s.store.placeOrder(ctx, userID(r.Principal))
	if err != nil {
		return placeOrderOutput{}, err
	}
	r.Redirect("/orders/" + o.ID)
	r.SetMessage(orderMessage(o))
	return placeOrderOutput{OrderID: o.ID, Count: o.Count, Total: o.Total}, nil
}

func (s *Shop) signInAction(ctx context.Context, r *affordances.Request, in signInInput) (signInOutput, error) {
	u, cookie, err := s.signIn(ctx, in.Email, in.Password)
	if err != nil {
		return signInOutput{}, err
	}
	r.Header().Add("Set-Cookie", cookie.String())
	r.SetPrincipal(principal(u, affordances.AuthCookie))
	r.SetMessage("Signed in as " + u.Email + ".")
	return signInOutput{Email: u.Email}, nil
}

func (s *Shop) signOutAction(ctx context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
	cookie, err := s.signOut(ctx, r.HTTP)
	if err != nil {
		return struct{}{}, err
	}
	r.Header().Add("Set-Cookie", cookie.String())
	r.SetPrincipal(affordances.Principal{})
	r.SetMessage("Signed out.")
	return struct{}{}, nil
}

// signIn checks the password and starts a session: the one sign-in of the
// action and the form.
func (s *Shop) signIn(ctx context.Context, email, password string) (*User, *http.Cookie, error) {
	u, err := s.store.checkPassword(ctx, email, password)
	if err != nil {
		return nil, nil, err
	}
	sid, err := s.store.createSession(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	return u, s.sessionCookieFor(sid), nil
}

// signOut ends the request's session and returns the cookie that expires
// it: the one sign-out of the action and the form.
func (s *Shop) signOut(ctx context.Context, r *http.Request) (*http.Cookie, error) {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		if err := s.store.deleteSession(ctx, c.Value); err != nil {
			return nil, err
		}
	}
	return s.sessionCookieFor(""), nil
}

// Messages shared by the actions and the forms.

func addedMessage(l cartLine, added int) string {
	return fmt.Sprintf("Added %d × %s (%s) to your cart.", added, l.Name, l.Label)
}

func quantityMessage(l cartLine) string {
	return fmt.Sprintf("%s (%s): quantity %d.", l.Name, l.Label, l.Quantity)
}

func orderMessage(o *orderView) string {
	return fmt.Sprintf("Order %s placed: %s, total %s.", o.ID, items(o.Count), money(o.Total))
}

// lineName names the cart line of sku ("Canvas Tote (Natural)"), or the sku.
func lineName(c *cartView, sku string) string {
	if c != nil {
		for _, l := range c.Items {
			if l.SKU == sku {
				return l.Name + " (" + l.Label + ")"
			}
		}
	}
	return sku
}

// money formats cents as dollars: 8740 is "$87.40".
func money(cents int) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	d := strconv.Itoa(cents / 100)
	for i := len(d) - 3; i > 0; i -= 3 {
		d = d[:i] + "," + d[i:]
	}
	return fmt.Sprintf("%s$%s.%02d", sign, d, cents%100)
}

func items(n int) string { return countOf(n, "item", "items") }

func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
