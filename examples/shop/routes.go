package shop

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/collection"
)

// Route patterns, in http.ServeMux's syntax: each routes the site and, as
// "GET " + pattern, the HTML page's handler.
const (
	routeCatalog  = "/{$}"
	routeProduct  = "/products/{slug}"
	routeCart     = "/cart"
	routeShipping = "/checkout/shipping"
	routePayment  = "/checkout/payment"
	routeCheckout = "/checkout"
	routeOrder    = "/orders/{id}"
	routeLogin    = "/login"
)

// signInReason is why a session action is unavailable to nobody, in the
// graph (the site's SignInReason) and beside its disabled element.
const signInReason = "Sign in to use your cart, check out and write reviews."

// checkoutStep places a page in the checkout flow: the cart, the shipping
// address, the card, the review (an AAL flow, docs/protocol.md §37).
func checkoutStep(n int) *aal.Flow { return &aal.Flow{ID: "checkout", Step: n, Of: 4} }

// declare declares the shop's routes and actions on its site. Each action
// also declares its AAL affordance (docs/protocol.md decision 9): what kind of thing it
// does, what it touches, whether it can be undone and what it costs, so a
// consumer can gate it (docs/protocol.md decision 8).
func (s *Shop) declare() {
	catalog := s.site.Route(routeCatalog, &affordances.RouteOptions{
		Description: "The catalog: products by category, and search",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.catalogState(ctx, r.Principal, r.HTTP.URL)
		},
	})
	affordances.AddAction(catalog, &affordances.Action{
		Name:        "search",
		Description: "Search products; the redirect shows the results",
		Expose:      affordances.ExposePublic,
		ReadOnly:    true,
		Output:      searchOutputSchema,
		// A search changes nothing, so there is nothing to undo.
		AAL: &aal.Meta{Action: aal.Search, Trust: aal.TrustSafe, Reversible: true},
	}, s.search)

	product := s.site.Route(routeProduct, &affordances.RouteOptions{
		Description: "One product, as the catalog links it: variants, price, stock, reviews",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.productState(ctx, r.Principal, r.Param("slug"))
		},
	})
	s.declareReviewsPage()
	affordances.AddAction(product, &affordances.Action{
		Name:        "addToCart",
		Description: "Add a variant of this product to the cart",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"cart"},
		GuardText:   "the product is in stock",
		Guard:       guard(inStock),
		// The cart is the customer's own; removing the item undoes it.
		AAL: &aal.Meta{Action: aal.Submit, Trust: aal.TrustUser, Reversible: true},
	}, s.addToCart)

	cart := s.site.Route(routeCart, &affordances.RouteOptions{
		Description: "The cart: items, quantities, total",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.cartState(ctx, r.Principal)
		},
		Flow: checkoutStep(1),
	})
	affordances.AddAction(cart, &affordances.Action{
		Name:        "updateQuantity",
		Description: "Set the quantity of an item in the cart",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"cart"},
		GuardText:   "the cart is not empty",
		Guard:       guard(cartNotEmpty),
		AAL:         &aal.Meta{Action: aal.Update, Trust: aal.TrustUser, Reversible: true},
	}, s.updateQuantity)
	affordances.AddAction(cart, &affordances.Action{
		Name:        "removeFromCart",
		Description: "Remove an item from the cart",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"cart"},
		GuardText:   "the cart is not empty",
		Guard:       guard(cartNotEmpty),
		// An update of the cart, not a delete: adding the item again undoes
		// it, and AAL reads every delete as irreversible (docs/protocol.md decision 8).
		AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustUser, Reversible: true},
	}, s.removeFromCart)

	shipping := s.site.Route(routeShipping, &affordances.RouteOptions{
		Description: "Checkout, step 2: choose the shipping address",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.shippingState(ctx, r.Principal)
		},
		Flow: checkoutStep(2),
	})
	affordances.AddAction(shipping, &affordances.Action{
		Name:        "chooseAddress",
		Description: "Ship the order to one of your addresses",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"chosen"},
		// An address is personal data; choosing another one undoes it.
		AAL: &aal.Meta{Action: aal.Select, Trust: aal.TrustPersonal, Reversible: true, Label: "Ship to this address"},
	}, s.chooseAddress)

	payment := s.site.Route(routePayment, &affordances.RouteOptions{
		Description: "Checkout, step 3: choose the card to pay with",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.paymentState(ctx, r.Principal)
		},
		Flow: checkoutStep(3),
	})
	affordances.AddAction(payment, &affordances.Action{
		Name:        "choosePayment",
		Description: "Pay for the order with one of your cards on file",
		Expose:      affordances.ExposeSession,
		Effects:     []string{"chosen"},
		// Trust personal, not financial: choosing a card moves no money and
		// commits to nothing (docs/protocol.md decision 7 keeps financial for that);
		// it picks one of the person's own cards, known here by brand and
		// last four digits, for an order that placeOrder alone commits,
		// itself financial, destructive and confirmed. Choosing another card
		// undoes it.
		AAL: &aal.Meta{Action: aal.Select, Trust: aal.TrustPersonal, Reversible: true, Label: "Use this card"},
	}, s.choosePayment)

	checkout := s.site.Route(routeCheckout, &affordances.RouteOptions{
		Description: "Checkout, step 4: review the order and place it",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return s.checkoutState(ctx, r.Principal)
		},
		Flow: checkoutStep(4),
	})
	affordances.AddAction(checkout, &affordances.Action{
		Name:        "placeOrder",
		Description: "Order the cart, pay with the chosen card, ship to the chosen address",
		Expose:      affordances.ExposeConfirm,
		// The person approves each order on the shop's own page, in their
		// browser: an agent's confirm: true alone never places one.
		Verify:    !s.noApproval,
		Effects:   []string{"cart"},
		GuardText: "the cart is not empty",
		Guard:     guard(cartNotEmpty),
		Summary: affordances.Summarize(func(ctx context.Context, r *affordances.Request, _ struct{}) (string, error) {
			return checkoutSummary(r.State), nil
		}),
		// The person approves these as the summary shows them: the order
		// is placed only as long as they hold (checked in its transaction).
		Consent: []string{"cart", "shipTo", "payment"},
		// Paying commits money and an order cannot be taken back here.
		AAL: &aal.Meta{
			Action: aal.Purchase, Trust: aal.TrustFinancial, Destructive: true, Reversible: false,
			Label: "Place order", Cost: cartCost,
			Preconditions: []string{"cart.non_empty", "payment.attached"},
		},
	}, s.placeOrder)

	order := s.site.Route(routeOrder, &affordances.RouteOptions{
		Description: "One of your orders, as /orders links it: items, total, where it ships, status",
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
		// Its answer sets a session cookie: never kept for a retry (a second run is a second session).
		Secret: true,
		Limit:  &signInLimit,
		// Credentials are personal; signing out ends the session it starts.
		AAL: &aal.Meta{Action: aal.Authenticate, Trust: aal.TrustPersonal, Reversible: true},
	}, s.signInAction)
	affordances.AddAction(login, &affordances.Action{
		Name:        "signOut",
		Description: "End this browser session",
		Expose:      affordances.ExposeSession,
		Visible:     func(r *affordances.Request) bool { return !r.Principal.Anonymous() },
		GuardText:   "signed in with a session cookie",
		Guard:       guard(cookieSession),
		AAL:         &aal.Meta{Action: aal.Submit, Trust: aal.TrustUser, Reversible: true},
	}, s.signOutAction)

	s.declareReviews(product)
	s.declareOrders(order)
	s.declareAccounts(login)
	s.declareAdmin()
}

// A reason says why the action of a guard cannot run for the request, or
// "" when it can.
type reason func(r *affordances.Request) string

// guard is the Guard of an action that runs unless why gives a reason.
func guard(why reason) func(context.Context, *affordances.Request) (bool, string) {
	return func(_ context.Context, r *affordances.Request) (bool, string) {
		because := why(r)
		return because == "", because
	}
}

func inStock(r *affordances.Request) string {
	if p := affordances.Entity[*productView](r.State, "product"); p == nil || !p.inStock() {
		return "Out of stock."
	}
	return ""
}

func cartNotEmpty(r *affordances.Request) string {
	if c := affordances.Entity[*cartView](r.State, "cart"); c == nil || len(c.Items) == 0 {
		return "Your cart is empty."
	}
	return ""
}

func cookieSession(r *affordances.Request) string {
	if r.Principal.Method != affordances.AuthCookie {
		return "Only a browser session can be signed out; a bearer token stays valid."
	}
	return ""
}

// cartCost is what placing the order costs: the cart's total, in dollars.
func cartCost(entities map[string]any) *aal.Cost {
	c, ok := entities["cart"].(*cartView)
	if !ok {
		return nil
	}
	return &aal.Cost{Currency: "USD", Amount: float64(c.Total) / 100}
}

// signInLimit bounds password guesses per client address (or principal),
// whether they come by a call or by the sign-in form.
var signInLimit = affordances.Limit{Calls: 10, Per: time.Minute, Burst: 5}

// guessesPerAccount bounds the sign-ins at one account, from every address
// and session together: a person who mistypes their password a few times
// never meets it; a guesser gets 5 tries, then one every 3 minutes, however
// many addresses and accounts of their own they bring. An email without an
// account is counted alike, so the answer says nothing of which exist. The
// price: someone who keeps guessing keeps the account's owner from signing
// in by password.
var guessesPerAccount = affordances.Limit{Calls: 5, Per: 15 * time.Minute, Burst: 5}

// nav returns extra, then the links of the header every page shows but
// the one to the page itself and those extra already has.
func nav(p affordances.Principal, page string, count int, extra ...affordances.NavLink) []affordances.NavLink {
	links := slices.Clip(extra)
	header := []affordances.NavLink{{To: "/", Label: "Catalog"}, {To: "/cart", Label: "Cart"}, {To: "/checkout/shipping", Label: "Checkout"}}
	if count == 0 {
		header[2].When = whenItems
	}
	if p.Anonymous() {
		header = append(header, affordances.NavLink{To: "/login", Label: "Sign in"}, affordances.NavLink{To: routeSignup, Label: "Sign up"})
	} else {
		header = append(header, affordances.NavLink{To: routeOrders, Label: "Orders"})
		header = append(header, affordances.NavLink{To: routeAccount, Label: "Account"})
		if u := userOf(p); u != nil && u.Admin {
			header = append(header, affordances.NavLink{To: routeAdmin, Label: "Admin"})
		}
	}
	for _, l := range header {
		if l.To != page && !slices.ContainsFunc(extra, func(e affordances.NavLink) bool { return e.To == l.To }) {
			links = append(links, l)
		}
	}
	return links
}

// whenItems is the condition of the links that go on with a checkout.
const whenItems = "the cart is not empty"

// flowNav returns the Back and Continue links of a checkout step: back
// to back, on to next (either may be empty); going on needs items.
func flowNav(back, backLabel, next, nextLabel string, count int) []affordances.NavLink {
	var links []affordances.NavLink
	if next != "" {
		l := affordances.NavLink{To: next, Label: nextLabel}
		if count == 0 {
			l.When = whenItems
		}
		links = append(links, l)
	}
	if back != "" {
		links = append(links, affordances.NavLink{To: back, Label: backLabel})
	}
	return links
}

// catalogQuery is the catalog's query: its words and category. Its page
// is collection's to read (?page=).
type catalogQuery struct {
	q, category string
}

func parseCatalogQuery(v url.Values) catalogQuery {
	return catalogQuery{q: boundQuery(v.Get("q")), category: v.Get("category")}
}

// boundQuery keeps a search to what the search action's schema allows: at
// most 100 characters and 10 words, so a page's graph and its SQL stay
// small whatever the URL says.
func boundQuery(q string) string {
	words := strings.Fields(q)
	if len(words) > 10 {
		words = words[:10]
	}
	q = strings.Join(words, " ")
	if r := []rune(q); len(r) > 100 {
		q = strings.TrimSpace(string(r[:100]))
	}
	return q
}

// url returns the URL of the catalog's first page for c.
func (c catalogQuery) url() string {
	v := url.Values{}
	if c.q != "" {
		v.Set("q", c.q)
	}
	if c.category != "" {
		v.Set("category", c.category)
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// catalogState loads the catalog page: the query, the page of results
// that u's ?page= asks for, their count, the categories, and the cart's
// summary. A catalog of more than one page also has resultsPage, which
// page it is, and the links to the pages beside it.
func (s *Shop) catalogState(ctx context.Context, p affordances.Principal, u *url.URL) (*affordances.State, error) {
	cq := parseCatalogQuery(u.Query())
	offset, err := collection.Offset(u, catalogPageSize, "products")
	if err != nil {
		return nil, err
	}
	results, total, err := s.store.catalog(ctx, cq.q, cq.category, offset)
	if err != nil {
		return nil, err
	}
	page, err := collection.Paginate(u, total, catalogPageSize, "products")
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
		"categories": slugs(s.store.categories()),
		"cart":       cart.summary(),
	}
	if cq.category != "" {
		e["category"] = cq.category
	}
	if page.Pages > 1 {
		e["resultsPage"] = page
	}
	var links []affordances.NavLink
	for _, r := range results {
		links = append(links, affordances.NavLink{To: "/products/" + r.Slug})
	}
	links = append(links, page.Nav()...)
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
// stock, its reviews, and the cart's summary.
func (s *Shop) productState(ctx context.Context, p affordances.Principal, slug string) (*affordances.State, error) {
	prod, err := s.store.product(ctx, slug)
	if err != nil {
		return nil, err
	}
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	reviews, err := s.store.reviews(ctx, slug, userID(p))
	if err != nil {
		return nil, err
	}
	links := []affordances.NavLink{{To: "/?category=" + prod.CategorySlug, Label: "More " + prod.Category}}
	if reviews.More > 0 {
		links = append(links, affordances.NavLink{To: "/products/" + slug + "/reviews", Label: fmt.Sprintf("All %d reviews", reviews.Count)})
	}
	return &affordances.State{
		Entities: map[string]any{"product": prod, "cart": cart.summary(), "reviews": reviews},
		Nav:      nav(p, "", cart.Count, links...),
	}, nil
}

// cartState loads the cart page, the checkout's first step: every line
// and the total; an empty cart for nobody.
func (s *Shop) cartState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	links := flowNav("/", "Keep shopping", routeShipping, "Continue to shipping", cart.Count)
	return &affordances.State{Entities: map[string]any{"cart": cart}, Nav: nav(p, "/cart", cart.Count, links...)}, nil
}

// shippingState loads the checkout's second step: the cart's summary, and
// for a signed-in user their addresses and the one the order ships to.
func (s *Shop) shippingState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	e := map[string]any{"cart": cart.summary()}
	if u := userOf(p); u != nil {
		as, err := s.store.addresses(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		ch, err := s.store.choice(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		e["addresses"], e["chosen"] = as, ch.address.ID
	}
	links := flowNav("/cart", "Back to cart", routePayment, "Continue to payment", cart.Count)
	return &affordances.State{Entities: e, Nav: nav(p, routeShipping, cart.Count, links...)}, nil
}

// paymentState loads the checkout's third step: the cart's summary, and
// for a signed-in user their cards and the one the order is paid with.
func (s *Shop) paymentState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	e := map[string]any{"cart": cart.summary()}
	if u := userOf(p); u != nil {
		cs, err := s.store.cards(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		ch, err := s.store.choice(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		e["cards"], e["chosen"] = cs, ch.card.Last4
	}
	links := flowNav(routeShipping, "Back to shipping", routeCheckout, "Continue to review", cart.Count)
	return &affordances.State{Entities: e, Nav: nav(p, routePayment, cart.Count, links...)}, nil
}

// checkoutState loads the checkout's last step, the review: the cart, and
// for a signed-in user the address and the card the order will use.
func (s *Shop) checkoutState(ctx context.Context, p affordances.Principal) (*affordances.State, error) {
	cart, err := s.store.cart(ctx, userID(p))
	if err != nil {
		return nil, err
	}
	e := map[string]any{"cart": cart}
	if u := userOf(p); u != nil {
		ch, err := s.store.choice(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		e = checkoutEntities(cart, ch)
	}
	links := flowNav(routePayment, "Back to payment", "", "", cart.Count)
	return &affordances.State{Entities: e, Nav: nav(p, routeCheckout, cart.Count, links...)}, nil
}

// checkoutEntities are the checkout's entities, as the page shows them and
// as placeOrder holds them to what the person approved (its Consent).
func checkoutEntities(cart *cartView, ch *choice) map[string]any {
	return map[string]any{"cart": cart, "shipTo": ch.address, "payment": payment(ch.card.Last4)}
}

// checkoutSummary is what placing the order will do, for the person who
// approves it, every line and the recipient in full: "Place order: 2 ×
// Canvas Tote (Natural) $36.00, 1 × Stoneware Mug (Cream) $24.00; total
// $60.00, card ending 4242, ship to Alice Example, 1 Main St, Springfield
// 12345, US."
func checkoutSummary(st *affordances.State) string {
	c := affordances.Entity[*cartView](st, "cart")
	a := affordances.Entity[addressView](st, "shipTo")
	pay := affordances.Entity[string](st, "payment")
	if c == nil {
		return "Place order."
	}
	lines := make([]string, len(c.Items))
	for i, l := range c.Items {
		lines[i] = fmt.Sprintf("%d × %s (%s) %s", l.Quantity, l.Name, l.Label, money(l.LineTotal))
	}
	return fmt.Sprintf("Place order: %s; total %s, %s, ship to %s.", strings.Join(lines, ", "), money(c.Total), pay, a.full())
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
	chooseAddressInput struct {
		Address string `json:"address" jsonschema:"the id of one of your addresses" affordances:"minLength=1,maxLength=40"`
	}
	chooseAddressOutput struct {
		Address string `json:"address"`
	}
	choosePaymentInput struct {
		Card string `json:"card" jsonschema:"the last four digits of one of your cards" affordances:"minLength=4,maxLength=4"`
	}
	choosePaymentOutput struct {
		Card string `json:"card"`
	}
	placeOrderOutput struct {
		OrderID string `json:"orderId"`
		Count   int    `json:"count"`
		Total   int    `json:"total" jsonschema:"in cents"`
	}
	signInInput struct {
		Email    string `json:"email" affordances:"minLength=3,maxLength=254"`
		Password string `json:"password" affordances:"minLength=1,maxLength=200"`
		Next     string `json:"next,omitempty" jsonschema:"a path of this site to go on to, default /" affordances:"maxLength=2000"`
	}
	signInOutput struct {
		Email string `json:"email"`
	}
)

func (s *Shop) search(ctx context.Context, r *affordances.Request, in searchInput) (searchOutput, error) {
	cq := catalogQuery{q: strings.TrimSpace(in.Q), category: in.Category}
	results, total, err := s.store.catalog(ctx, cq.q, cq.category, 0)
	if err != nil {
		return searchOutput{}, err
	}
	r.SetRedirect(cq.url())
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
	name := lineName(affordances.Entity[*cartView](r.State, "cart"), in.SKU)
	if err := s.store.removeFromCart(ctx, userID(r.Principal), in.SKU); err != nil {
		return struct{}{}, err
	}
	r.SetMessage("Removed " + name + " from your cart.")
	return struct{}{}, nil
}

func (s *Shop) chooseAddress(ctx context.Context, r *affordances.Request, in chooseAddressInput) (chooseAddressOutput, error) {
	a, err := s.store.chooseAddress(ctx, userID(r.Principal), in.Address)
	if err != nil {
		return chooseAddressOutput{}, err
	}
	r.SetRedirect(routePayment)
	r.SetMessage(shipToMessage(a))
	return chooseAddressOutput{Address: a.ID}, nil
}

func (s *Shop) choosePayment(ctx context.Context, r *affordances.Request, in choosePaymentInput) (choosePaymentOutput, error) {
	c, err := s.store.choosePayment(ctx, userID(r.Principal), in.Card)
	if err != nil {
		return choosePaymentOutput{}, err
	}
	r.SetRedirect(routeCheckout)
	r.SetMessage(payWithMessage(c))
	return choosePaymentOutput{Card: c.Last4}, nil
}

func (s *Shop) placeOrder(ctx context.Context, r *affordances.Request, _ struct{}) (placeOrderOutput, error) {
	o, err := s.store.placeOrder(ctx, userID(r.Principal), func(c *cartView, ch *choice) error {
		return r.Consented(checkoutEntities(c, ch))
	})
	if err != nil {
		return placeOrderOutput{}, err
	}
	r.SetRedirect("/orders/" + o.ID)
	r.SetMessage(orderMessage(o))
	return placeOrderOutput{OrderID: o.ID, Count: o.Count, Total: o.Total}, nil
}

// signInAction checks the password and starts a cookie session, then sends
// the person on to next, a path of this site (the page that asked them to
// sign in), or the catalog.
func (s *Shop) signInAction(ctx context.Context, r *affordances.Request, in signInInput) (signInOutput, error) {
	if in.Next != "" && !localPath(in.Next) {
		return signInOutput{}, badInput("Signing in sends you on only to a page of this shop.", "/next", "is not a path of this site")
	}
	if err := r.Limit(ctx, "signIn:"+emailKey(in.Email), guessesPerAccount); err != nil {
		return signInOutput{}, err
	}
	u, err := s.store.checkPassword(ctx, in.Email, in.Password)
	if err != nil {
		return signInOutput{}, err
	}
	sid, err := s.store.createSession(ctx, u.ID)
	if err != nil {
		return signInOutput{}, err
	}
	r.SetCookie(s.sessionCookieFor(sid))
	r.SetPrincipal(principal(u, affordances.AuthCookie))
	r.SetRedirect(cmp.Or(in.Next, "/"))
	r.SetMessage("Signed in as " + u.Email + ".")
	return signInOutput{Email: u.Email}, nil
}

// signOutAction ends the request's session and expires its cookie.
func (s *Shop) signOutAction(ctx context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
	if c, err := r.HTTP.Cookie(sessionCookie); err == nil && c.Value != "" {
		if err := s.store.deleteSession(ctx, c.Value); err != nil {
			return struct{}{}, err
		}
	}
	r.SetCookie(s.sessionCookieFor(""))
	r.SetPrincipal(affordances.Principal{})
	r.SetRedirect("/")
	r.SetMessage("Signed out.")
	return struct{}{}, nil
}

// localPath reports whether p is a path on this site: signing in never
// sends a person elsewhere. Browsers drop tabs and newlines from URLs and
// read a backslash as a slash, so "/\t/evil.example" would leave the site:
// any control character or backslash refuses the path.
func localPath(p string) bool {
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return false
	}
	u, err := url.Parse(p)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "//")
}

// Messages of the actions.

func addedMessage(l cartLine, added int) string {
	return fmt.Sprintf("Added %d × %s (%s) to your cart.", added, l.Name, l.Label)
}

func quantityMessage(l cartLine) string {
	return fmt.Sprintf("%s (%s): quantity %d.", l.Name, l.Label, l.Quantity)
}

func shipToMessage(a addressView) string { return "The order ships to " + a.oneLine() + "." }

func payWithMessage(c cardView) string { return "The order is paid with " + c.String() + "." }

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
