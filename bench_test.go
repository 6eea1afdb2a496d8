package affordances_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/loadtest"
	"github.com/affordances/affordances-go/internal/pdeathsig"
)

// The budgets of DESIGN.md (make bench; the method and the latest figures
// are in docs/performance.md). Each benchmark compares the library's
// handler with a static one answering the same bytes with the same headers
// (loadtest.Static), the two interleaved in one run:
//
//   - BenchmarkHandler: ServeHTTP alone, in process. Budgets: a graph at
//     least 0.6x the static handler, a call 0.35x.
//   - BenchmarkHTTP: over loopback HTTP, each in a server process of its own
//     on one core, by the server's CPU time per request. Budgets: 0.85x
//     and 0.6x.
//
// The site is a small shop's catalog page (benchShop), and the requests
// are those of real clients: an anonymous agent's graph; a signed-in one's
// (a cookie, one of 1,000 people); a person's call from the site's page
// (cookie and the site's Origin); an agent's call with a bearer token and
// an Idempotency-Key, new for each call. Calls carry a real input and come
// from 1,000 principals, 1,000 keys of the rate limiter.
//
// BenchmarkHandler also reports app-x: the ratio to the static handler of
// the bench shop's own code alone (benchShop.alone), the most that any
// library serving this site could reach in process.

func TestMain(m *testing.M) { os.Exit(loadtest.Main(m, serveBench)) }

// A benchCase is one kind of request of the benchmarks.
type benchCase struct {
	name string
	call bool // a call (budgets 0.35x and 0.6x), not a graph (0.6x and 0.85x)
	// request returns the i-th request, for the principal of i.
	request func(i int) *http.Request
}

// benchUsers is how many people the requests come from.
const benchUsers = 1000

var benchCases = []benchCase{
	{name: "graph-anonymous", request: func(i int) *http.Request {
		return benchRequest(http.MethodGet, "", "User-Agent", "agent/1.0")
	}},
	{name: "graph-session", request: func(i int) *http.Request {
		return benchRequest(http.MethodGet, "", "User-Agent", "agent/1.0", "Cookie", "theme=dark; sid=s"+strconv.Itoa(i%benchUsers))
	}},
	{name: "call-session", call: true, request: func(i int) *http.Request {
		return benchRequest(http.MethodPost, `{"action":"addToCart","input":{"sku":"mug-cafe","quantity":`+strconv.Itoa(1+i%3)+`,"note":"A gift: wrap it, please."}}`,
			"User-Agent", "Mozilla/5.0 (X11; Linux x86_64)", "Cookie", "theme=dark; sid=s"+strconv.Itoa(i%benchUsers), "Origin", benchOrigin)
	}},
	{name: "call-bearer", call: true, request: func(i int) *http.Request {
		return benchRequest(http.MethodPost, `{"action":"addToCart","input":{"sku":"tote-canvas","quantity":`+strconv.Itoa(1+i%3)+`}}`,
			"User-Agent", "agent/1.0", "Authorization", "Bearer t"+strconv.Itoa(i%benchUsers),
			affordances.IdempotencyHeader, "k-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"-"+strconv.Itoa(i))
	}},
}

// benchOrigin is the bench site's origin.
const benchOrigin = "https://shop.example"

// benchRequest returns a request for the page / with the headers given as
// name, value pairs: for a graph when body is empty, else a call.
func benchRequest(method, body string, headers ...string) *http.Request {
	r, _ := http.NewRequest(method, benchOrigin+"/", strings.NewReader(body))
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

func (c benchCase) budgets() (handler, overHTTP float64) {
	if c.call {
		return 0.35, 0.6
	}
	return 0.6, 0.85
}

func BenchmarkHandler(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			shop := newBenchShop()
			site := shop.handler()
			static := loadtest.Static(loadtest.Capture(site, c.request(0)))
			budget, _ := c.budgets()
			loadtest.Handlers(b, static, site, c.request)
			loadtest.Budget(b, budget)
			loadtest.Ceiling(b, static, shop.alone(c, static), c.request)
		})
	}
}

func BenchmarkHTTP(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			site, static := benchServer(b, "site"), benchServer(b, "static "+c.name)
			_, budget := c.budgets()
			loadtest.Servers(b, static, site, c.request, loadtest.Load{})
			loadtest.Budget(b, budget)
		})
	}
}

// benchServers are the server processes of BenchmarkHTTP, started once.
var benchServers = struct {
	sync.Mutex
	m map[string]*loadtest.Server
}{m: map[string]*loadtest.Server{}}

func benchServer(b *testing.B, name string) *loadtest.Server {
	benchServers.Lock()
	defer benchServers.Unlock()
	if s := benchServers.m[name]; s != nil {
		return s
	}
	s, err := loadtest.Start(name)
	if err != nil {
		b.Fatal(err)
	}
	benchServers.m[name] = s
	return s
}

// serveBench is what a server process of BenchmarkHTTP serves: "site", the
// bench shop, or "static <case>", the answer the bench shop gives to the
// case's first request, from a slice.
func serveBench(name string) (http.Handler, error) {
	if name == "site" {
		return newBenchShop().handler(), nil
	}
	for _, c := range benchCases {
		if name == "static "+c.name {
			return loadtest.Static(loadtest.Capture(newBenchShop().handler(), c.request(0))), nil
		}
	}
	return nil, fmt.Errorf("no server %q", name)
}

// TestBenchmarks runs every benchmark of the package once (-benchtime 1x),
// in this test binary run again, so that they cannot rot between runs of
// make bench; their figures are not looked at.
func TestBenchmarks(t *testing.T) {
	if testing.Short() {
		t.Skip("the benchmarks start server processes")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$", "-test.bench=.", "-test.benchtime=1x")
	pdeathsig.Set(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the benchmarks failed: %v\n%s", err, out)
	}
	for _, c := range benchCases {
		for _, name := range []string{"BenchmarkHandler/" + c.name, "BenchmarkHTTP/" + c.name} {
			if !strings.Contains(string(out), name) {
				t.Errorf("%s did not run:\n%s", name, out)
			}
		}
	}
}

// benchShop is the site of the benchmarks: the catalog page of a small shop,
// the size of the demo shop's (1.5 to 3 kB): six products (names with &, <
// and é, so that escaping is not skipped), the requester's cart, three
// links and five actions, two of them guarded. A person is one of
// benchUsers, each with a session cookie, a bearer token and a cart of two
// lines.
type benchShop struct {
	mu    sync.RWMutex
	carts map[string]map[string]int // principal → sku → quantity
	users map[string]string         // "sid=…" or "Bearer …" → principal
}

type benchProduct struct {
	SKU     string `json:"sku"`
	Name    string `json:"name"`
	Price   int    `json:"price" jsonschema:"in cents"`
	InStock bool   `json:"inStock"`
}

var benchProducts = []benchProduct{
	{"shirt-linen", "Linen shirt", 5900, true},
	{"mug-cafe", "Café crème mug", 1400, true},
	{"tote-canvas", "Canvas tote", 2500, true},
	{"tin-tea", "Tea & biscuits tin", 1900, false},
	{"lamp-desk", "Desk lamp <LED>", 7900, true},
	{"socks-pair", "Socks, two pairs", 1200, true},
}

type benchCartLine struct {
	SKU      string `json:"sku"`
	Name     string `json:"name"`
	Quantity int    `json:"quantity"`
	Price    int    `json:"price"`
}

type benchCart struct {
	Lines []benchCartLine `json:"lines"`
	Total int             `json:"total"`
}

type (
	benchSearchInput struct {
		Q        string `json:"q" affordances:"minLength=1,maxLength=100"`
		Category string `json:"category,omitempty" affordances:"enum=clothes|bags|home"`
	}
	benchSearchOutput struct {
		Results []benchProduct `json:"results"`
	}
	benchAddInput struct {
		SKU      string `json:"sku" jsonschema:"the product's sku" affordances:"minLength=1,maxLength=40"`
		Quantity int    `json:"quantity" affordances:"minimum=1,maximum=99"`
		Note     string `json:"note,omitempty" jsonschema:"for the person who packs it" affordances:"maxLength=200"`
	}
	benchLine struct {
		SKU      string `json:"sku"`
		Quantity int    `json:"quantity"`
	}
	benchRemoveInput struct {
		SKU string `json:"sku" affordances:"minLength=1,maxLength=40"`
	}
	benchNone struct{}
)

func newBenchShop() *benchShop {
	s := &benchShop{carts: map[string]map[string]int{}, users: map[string]string{}}
	for i := range benchUsers {
		id := "u" + strconv.Itoa(i)
		s.users["sid=s"+strconv.Itoa(i)] = id
		s.users["Bearer t"+strconv.Itoa(i)] = id
		s.carts[id] = map[string]int{"shirt-linen": 1, "socks-pair": 2}
	}
	return s
}

func (s *benchShop) authenticate(r *http.Request) (affordances.Principal, error) {
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

func (s *benchShop) cart(id string) benchCart {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := benchCart{Lines: []benchCartLine{}}
	for _, p := range benchProducts {
		if n := s.carts[id][p.SKU]; n > 0 {
			c.Lines = append(c.Lines, benchCartLine{SKU: p.SKU, Name: p.Name, Quantity: n, Price: p.Price})
			c.Total += n * p.Price
		}
	}
	return c
}

// state is the catalog page's State loader.
func (s *benchShop) state(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
	viewer := ""
	if !r.Principal.Anonymous() {
		viewer = r.Principal.ID + "@example.com"
	}
	return &affordances.State{
		Entities: map[string]any{"products": benchProducts, "cart": s.cart(r.Principal.ID), "viewer": viewer},
		Nav: []affordances.NavLink{
			{To: "/cart", Label: "Your cart"},
			{To: "/products/shirt-linen", Label: "Linen shirt"},
			{To: "/orders", Label: "Your orders", When: "signed in"},
		},
	}, nil
}

func (s *benchShop) addToCart(ctx context.Context, r *affordances.Request, in benchAddInput) (benchLine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.carts[r.Principal.ID][in.SKU] = in.Quantity
	r.SetMessage(strconv.Itoa(in.Quantity) + " in your cart.")
	return benchLine{SKU: in.SKU, Quantity: in.Quantity}, nil
}

// alone is the bench shop's own code for a request of c, as the library
// runs it, and nothing of the library's: Authenticate, the page's State
// loader (for a call, before and after it, and addToCart between, its
// input as the request's), then the answer of static. Its ratio to
// static (app-x) is the most that any library serving this site could
// reach.
func (s *benchShop) alone(c benchCase, static http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := s.authenticate(r)
		req := &affordances.Request{HTTP: r, Principal: p, Page: "/"}
		s.state(r.Context(), req)
		if c.call {
			s.addToCart(r.Context(), req, benchAddInput{SKU: "mug-cafe", Quantity: 1 + len(r.URL.Path)%3})
			s.state(r.Context(), req)
		}
		static.ServeHTTP(w, r)
	})
}

func (s *benchShop) handler() http.Handler {
	site := affordances.NewSite(&affordances.SiteOptions{
		Name:         "Bench shop",
		Origin:       benchOrigin,
		Authenticate: s.authenticate,
		// Every call fits: the limiter counts them all the same.
		Limit: affordances.Limit{Calls: 1 << 30, Per: time.Second, Burst: 1 << 30},
	})
	home := site.Route("/", &affordances.RouteOptions{
		Description: "The catalog: products, and your cart",
		State:       s.state,
	})
	hasLines := func(ctx context.Context, r *affordances.Request) (bool, string) {
		return len(r.State.Entities["cart"].(benchCart).Lines) > 0, "Your cart is empty."
	}
	affordances.AddAction(home, &affordances.Action{
		Name: "search", Description: "Search products by name", Expose: affordances.ExposePublic, ReadOnly: true,
	}, func(ctx context.Context, r *affordances.Request, in benchSearchInput) (benchSearchOutput, error) {
		out := benchSearchOutput{Results: []benchProduct{}}
		for _, p := range benchProducts {
			if strings.Contains(strings.ToLower(p.Name), strings.ToLower(in.Q)) {
				out.Results = append(out.Results, p)
			}
		}
		return out, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "addToCart", Description: "Put a product in your cart, or set how many", Expose: affordances.ExposeSession, Effects: []string{"cart"},
	}, s.addToCart)
	affordances.AddAction(home, &affordances.Action{
		Name: "removeFromCart", Description: "Take a product out of your cart", Expose: affordances.ExposeSession, Effects: []string{"cart"},
		GuardText: "the cart has items", Guard: hasLines,
	}, func(ctx context.Context, r *affordances.Request, in benchRemoveInput) (benchNone, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.carts[r.Principal.ID], in.SKU)
		return benchNone{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "emptyCart", Description: "Take everything out of your cart", Expose: affordances.ExposeSession, Effects: []string{"cart"},
		GuardText: "the cart has items", Guard: hasLines,
	}, func(ctx context.Context, r *affordances.Request, _ benchNone) (benchNone, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		clear(s.carts[r.Principal.ID])
		return benchNone{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "signOut", Description: "End your session", Expose: affordances.ExposeSession, Effects: []string{},
	}, func(ctx context.Context, r *affordances.Request, _ benchNone) (benchNone, error) {
		r.SetPrincipal(affordances.Principal{})
		return benchNone{}, nil
	})
	return site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>Bench shop</title>")
	}))
}
