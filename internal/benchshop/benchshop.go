// Package benchshop is the site of make bench (docs/performance.md): a
// small shop's catalog page served by the library ([Shop.Handler]), the
// application's own code that any other implementation of it shares (its
// Authenticate, its page's State loader, its actions), and the requests of
// the benchmarks ([Cases]). The root package's benchmarks measure the
// library against a static handler; the perf module's measure it against
// the same shop written without it.
package benchshop

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/affordances/affordances-go"
)

// A Case is one kind of request of the benchmarks.
type Case struct {
	Name string
	Call bool // a call, not a graph
	// Request returns the i-th request, for the principal of i.
	Request func(i int) *http.Request
}

// Users is how many people the requests come from.
const Users = 1000

// Origin is the bench site's origin.
const Origin = "https://shop.example"

// Cases are the requests of real clients: an anonymous agent's graph; a
// signed-in one's (a cookie, one of Users); a person's call from the
// site's page (cookie and the site's Origin); an agent's call with a
// bearer token and an Idempotency-Key, new for each call. Calls carry a
// real input and come from Users principals, Users keys of the rate
// limiter.
var Cases = []Case{
	{Name: "graph-anonymous", Request: func(i int) *http.Request {
		return request(http.MethodGet, "", "User-Agent", "agent/1.0")
	}},
	{Name: "graph-session", Request: func(i int) *http.Request {
		return request(http.MethodGet, "", "User-Agent", "agent/1.0", "Cookie", "theme=dark; sid=s"+strconv.Itoa(i%Users))
	}},
	{Name: "call-session", Call: true, Request: func(i int) *http.Request {
		return request(http.MethodPost, `{"action":"addToCart","input":{"sku":"mug-cafe","quantity":`+strconv.Itoa(1+i%3)+`,"note":"A gift: wrap it, please."}}`,
			"User-Agent", "Mozilla/5.0 (X11; Linux x86_64)", "Cookie", "theme=dark; sid=s"+strconv.Itoa(i%Users), "Origin", Origin)
	}},
	{Name: "call-bearer", Call: true, Request: func(i int) *http.Request {
		return request(http.MethodPost, `{"action":"addToCart","input":{"sku":"tote-canvas","quantity":`+strconv.Itoa(1+i%3)+`}}`,
			"User-Agent", "agent/1.0", "Authorization", "Bearer t"+strconv.Itoa(i%Users),
			affordances.IdempotencyHeader, "k-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"-"+strconv.Itoa(i))
	}},
}

// request returns a request for the page / with the headers given as
// name, value pairs: for a graph when body is empty, else a call.
func request(method, body string, headers ...string) *http.Request {
	r, _ := http.NewRequest(method, Origin+"/", strings.NewReader(body))
	if body == "" {
		r.Body = http.NoBody
		r.Header.Set("Accept", affordances.MediaType)
	} else {
		r.Header.Set("Content-Type", affordances.MediaType)
		r.Header.Set("Accept", affordances.MediaType)
	}
	for i := 0; i < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	r.RemoteAddr = "192.0.2.7:50312"
	return r
}

// A Shop is the site of the benchmarks: the catalog page of a small shop,
// the size of the demo shop's (1.5 to 3 kB): six products (names with &, <
// and é, so that escaping is not skipped), the requester's cart, three
// links and five actions, two of them guarded. The work of each action is
// a function of its own (Find, Add, Remove, Empty; signOut has none),
// which [Shop.Handler]'s actions call as any other implementation may. A person is one of Users,
// each with a session cookie, a bearer token and a cart of two lines.
type Shop struct {
	mu    sync.RWMutex
	carts map[string]map[string]int // principal → sku → quantity
	users map[string]string         // "sid=…" or "Bearer …" → principal
}

// A Product is one of the catalog's.
type Product struct {
	SKU     string `json:"sku"`
	Name    string `json:"name"`
	Price   int    `json:"price" jsonschema:"in cents"`
	InStock bool   `json:"inStock"`
}

// Products is the catalog.
var Products = []Product{
	{"shirt-linen", "Linen shirt", 5900, true},
	{"mug-cafe", "Café crème mug", 1400, true},
	{"tote-canvas", "Canvas tote", 2500, true},
	{"tin-tea", "Tea & biscuits tin", 1900, false},
	{"lamp-desk", "Desk lamp <LED>", 7900, true},
	{"socks-pair", "Socks, two pairs", 1200, true},
}

// A CartLine is a product in a cart, how many, and its price.
type CartLine struct {
	SKU      string `json:"sku"`
	Name     string `json:"name"`
	Quantity int    `json:"quantity"`
	Price    int    `json:"price"`
}

// A Cart is a person's cart, the entity "cart".
type Cart struct {
	Lines []CartLine `json:"lines"`
	Total int        `json:"total"`
}

// The inputs and outputs of the actions.
type (
	SearchInput struct {
		Q        string `json:"q" affordances:"minLength=1,maxLength=100"`
		Category string `json:"category,omitempty" affordances:"enum=clothes|bags|home"`
	}
	SearchOutput struct {
		Results []Product `json:"results"`
	}
	AddInput struct {
		SKU      string `json:"sku" jsonschema:"the product's sku" affordances:"minLength=1,maxLength=40"`
		Quantity int    `json:"quantity" affordances:"minimum=1,maximum=99"`
		Note     string `json:"note,omitempty" jsonschema:"for the person who packs it" affordances:"maxLength=200"`
	}
	Line struct {
		SKU      string `json:"sku"`
		Quantity int    `json:"quantity"`
	}
	RemoveInput struct {
		SKU string `json:"sku" affordances:"minLength=1,maxLength=40"`
	}
	None struct{}
)

// New returns the shop with Users people, each with a cart of two lines.
func New() *Shop {
	s := &Shop{carts: map[string]map[string]int{}, users: map[string]string{}}
	for i := range Users {
		id := "u" + strconv.Itoa(i)
		s.users["sid=s"+strconv.Itoa(i)] = id
		s.users["Bearer t"+strconv.Itoa(i)] = id
		s.carts[id] = map[string]int{"shirt-linen": 1, "socks-pair": 2}
	}
	return s
}

// Authenticate is the site's Authenticate: a bearer token, else the sid
// cookie.
func (s *Shop) Authenticate(r *http.Request) (affordances.Principal, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		if id, ok := s.users[h]; ok {
			return affordances.Principal{ID: id}, nil
		}
		return affordances.Principal{}, affordances.ErrInvalidToken
	}
	if c, err := r.Cookie("sid"); err == nil {
		if id, ok := s.users["sid="+c.Value]; ok {
			return affordances.Principal{ID: id}, nil
		}
	}
	return affordances.Principal{}, nil
}

func (s *Shop) cart(id string) Cart {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := Cart{Lines: []CartLine{}}
	for _, p := range Products {
		if n := s.carts[id][p.SKU]; n > 0 {
			c.Lines = append(c.Lines, CartLine{SKU: p.SKU, Name: p.Name, Quantity: n, Price: p.Price})
			c.Total += n * p.Price
		}
	}
	return c
}

// State is the catalog page's State loader.
func (s *Shop) State(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
	viewer := ""
	if !r.Principal.Anonymous() {
		viewer = r.Principal.ID + "@example.com"
	}
	return &affordances.State{
		Entities: map[string]any{"products": Products, "cart": s.cart(r.Principal.ID), "viewer": viewer},
		Nav: []affordances.NavLink{
			{To: "/cart", Label: "Your cart"},
			{To: "/products/shirt-linen", Label: "Linen shirt"},
			{To: "/orders", Label: "Your orders", When: "signed in"},
		},
	}, nil
}

// HasLines is the guard of removeFromCart and emptyCart, on the state
// loaded for the request.
func HasLines(ctx context.Context, r *affordances.Request) (bool, string) {
	return len(r.State.Entities["cart"].(Cart).Lines) > 0, "Your cart is empty."
}

// Find is the work of the action search: the products whose names hold q.
func Find(q string) SearchOutput {
	out := SearchOutput{Results: []Product{}}
	for _, p := range Products {
		if strings.Contains(strings.ToLower(p.Name), strings.ToLower(q)) {
			out.Results = append(out.Results, p)
		}
	}
	return out
}

// Add is the work of the action addToCart: it sets how many of a product
// the cart of the principal id holds, and returns the action's output and
// its message.
func (s *Shop) Add(id string, in AddInput) (Line, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.carts[id][in.SKU] = in.Quantity
	return Line{SKU: in.SKU, Quantity: in.Quantity}, strconv.Itoa(in.Quantity) + " in your cart."
}

// Remove is the work of the action removeFromCart.
func (s *Shop) Remove(id, sku string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.carts[id], sku)
}

// Empty is the work of the action emptyCart.
func (s *Shop) Empty(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.carts[id])
}

// AddToCart is the action addToCart as the library runs it.
func (s *Shop) AddToCart(ctx context.Context, r *affordances.Request, in AddInput) (Line, error) {
	out, msg := s.Add(r.Principal.ID, in)
	r.SetMessage(msg)
	return out, nil
}

// Page is the catalog page a browser gets: the site's own handler.
func Page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<!doctype html><title>Bench shop</title>")
}

// Alone is the bench shop's own code for a request of c, as the library
// runs it, and nothing of the library's: Authenticate, the page's State
// loader (for a call, before and after it, and AddToCart between, its
// input as the request's), then the answer of static. Its ratio to
// static (app-x) is the most that any library serving this site could
// reach.
func (s *Shop) Alone(c Case, static http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := s.Authenticate(r)
		req := &affordances.Request{HTTP: r, Principal: p, Page: "/"}
		s.State(r.Context(), req)
		if c.Call {
			s.AddToCart(r.Context(), req, AddInput{SKU: "mug-cafe", Quantity: 1 + len(r.URL.Path)%3})
			s.State(r.Context(), req)
		}
		static.ServeHTTP(w, r)
	})
}

// Handler is the shop served by the library.
func (s *Shop) Handler() http.Handler {
	site := affordances.NewSite(&affordances.SiteOptions{
		Name:         "Bench shop",
		Origin:       Origin,
		Authenticate: s.Authenticate,
		// Every call fits: the limiter counts them all the same.
		Limit: affordances.Limit{Calls: 1 << 30, Per: time.Second, Burst: 1 << 30},
	})
	home := site.Route("/", &affordances.RouteOptions{
		Description: "The catalog: products, and your cart",
		State:       s.State,
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "search", Description: "Search products by name", Expose: affordances.ExposePublic, ReadOnly: true,
	}, func(ctx context.Context, r *affordances.Request, in SearchInput) (SearchOutput, error) {
		return Find(in.Q), nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "addToCart", Description: "Put a product in your cart, or set how many", Expose: affordances.ExposeSession, Effects: []string{"cart"},
	}, s.AddToCart)
	affordances.AddAction(home, &affordances.Action{
		Name: "removeFromCart", Description: "Take a product out of your cart", Expose: affordances.ExposeSession, Effects: []string{"cart"},
		GuardText: "the cart has items", Guard: HasLines,
	}, func(ctx context.Context, r *affordances.Request, in RemoveInput) (None, error) {
		s.Remove(r.Principal.ID, in.SKU)
		return None{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "emptyCart", Description: "Take everything out of your cart", Expose: affordances.ExposeSession, Effects: []string{"cart"},
		GuardText: "the cart has items", Guard: HasLines,
	}, func(ctx context.Context, r *affordances.Request, _ None) (None, error) {
		s.Empty(r.Principal.ID)
		return None{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "signOut", Description: "End your session", Expose: affordances.ExposeSession, Effects: []string{},
	}, func(ctx context.Context, r *affordances.Request, _ None) (None, error) {
		r.SetPrincipal(affordances.Principal{})
		return None{}, nil
	})
	return site.Handler(http.HandlerFunc(Page))
}
