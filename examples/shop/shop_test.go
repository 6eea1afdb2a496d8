package shop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/servicetest"
)

const demoToken = "test-demo-token"

// postgresEnv, when set, runs the tests on PostgreSQL: make check runs
// them once on SQLite and once so, and both back ends pass the same suite.
const postgresEnv = "AFFORDANCES_TEST_POSTGRES"

// TestMain stops the shared PostgreSQL server and Chromium after the tests.
func TestMain(m *testing.M) { os.Exit(browsertest.CloseShared(servicetest.Main(m))) }

// options is a fresh shop's Options: a new SQLite file (demotest.Shop's
// seeded copy, or a directory Open makes), or a new database on the shared
// PostgreSQL server when $AFFORDANCES_TEST_POSTGRES is set.
// Orders need no approval on the approval page: the tests of placing
// orders confirm with confirm: true, and approval_test.go tests the
// approval.
func options(t *testing.T) *shop.Options {
	t.Helper()
	if os.Getenv(postgresEnv) != "" {
		pg := servicetest.SharedPostgres(t)
		return &shop.Options{Database: pg.CopyDatabase(t, seededPostgres(t, pg)), DemoToken: demoToken, NoApproval: true}
	}
	return &shop.Options{DemoToken: demoToken, NoApproval: true}
}

// postgresSeed is the URL of a database on the shared PostgreSQL server
// holding a shop as Open seeds it, made once: each test's database is a
// copy of it, as demotest.Shop's SQLite file is a copy of one seeded once.
var postgresSeed struct {
	sync.Mutex
	url string
}

// seededPostgres returns postgresSeed's URL, seeding it on pg first.
func seededPostgres(t *testing.T, pg *servicetest.Postgres) string {
	t.Helper()
	postgresSeed.Lock()
	defer postgresSeed.Unlock()
	if postgresSeed.url == "" {
		url := pg.NewDatabase(t)
		s, err := shop.Open(t.Context(), &shop.Options{Database: url})
		if err != nil {
			t.Fatalf("seeding the shop on PostgreSQL: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		postgresSeed.url = url
	}
	return postgresSeed.url
}

// newShop opens a shop on a fresh database and serves it.
func newShop(t *testing.T) (*shop.Shop, *httptest.Server) {
	t.Helper()
	return demotest.Shop(t, options(t), nil)
}

// checkDocument validates an Affordances document against schemas/ with
// package affordancestest: every graph, delta and index the tests read
// passes through here.
func checkDocument(t testing.TB, kind string, body []byte) {
	t.Helper()
	switch kind {
	case "graph":
		affordancestest.CheckGraph(t, body)
	case "delta":
		affordancestest.CheckDelta(t, body)
	case "index":
		affordancestest.CheckIndex(t, body)
	default:
		t.Fatalf("checkDocument: unknown kind %q", kind)
	}
}

// An agent talks to the shop over real HTTP: with a bearer token, or with
// a cookie jar and the site's Origin, or as nobody. Its methods report
// failures with t.Errorf, so they are safe in goroutines.
type agent struct {
	t      testing.TB
	base   string
	client *http.Client
	token  string // sent as Authorization: Bearer when set
	origin string // sent as Origin on POSTs when set
}

func newAgent(t testing.TB, srv *httptest.Server, token string) *agent {
	return &agent{t: t, base: srv.URL, token: token, client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// newBrowser returns an agent with a cookie jar that sends the site's
// Origin, as a browser on the site does.
func newBrowser(t testing.TB, srv *httptest.Server) *agent {
	a := newAgent(t, srv, "")
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	a.client.Jar = jar
	a.origin = srv.URL
	return a
}

func (a *agent) do(method, path string, header http.Header, body []byte) (*http.Response, []byte) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.base+path, bytes.NewReader(body))
	if err != nil {
		a.t.Errorf("%s %s: %v", method, path, err)
		return nil, nil
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	if method == http.MethodPost && a.origin != "" && req.Header.Get("Origin") == "" {
		req.Header.Set("Origin", a.origin)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		a.t.Errorf("%s %s: %v", method, path, err)
		return nil, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Errorf("%s %s: reading the body: %v", method, path, err)
	}
	return resp, b
}

// graph GETs the page's graph; a non-200 answer is checked as a delta.
func (a *agent) graph(path string) (int, affordances.Graph) {
	a.t.Helper()
	var g affordances.Graph
	resp, body := a.do(http.MethodGet, path, http.Header{"Accept": {affordances.MediaType}}, nil)
	if resp == nil {
		return 0, g
	}
	if got := resp.Header.Get("Content-Type"); got != affordances.MediaType {
		a.t.Errorf("GET %s: got Content-Type %q, want %q", path, got, affordances.MediaType)
	}
	if resp.StatusCode != http.StatusOK {
		checkDocument(a.t, "delta", body)
		return resp.StatusCode, g
	}
	checkDocument(a.t, "graph", body)
	if err := json.Unmarshal(body, &g); err != nil {
		a.t.Errorf("GET %s: %v", path, err)
	}
	return resp.StatusCode, g
}

// call POSTs a call to path and returns the status, the delta and the
// response's header.
func (a *agent) call(path, action string, input any, confirm bool) (int, affordances.Delta, http.Header) {
	a.t.Helper()
	var d affordances.Delta
	c := map[string]any{"action": action}
	if input != nil {
		c["input"] = input
	}
	if confirm {
		c["confirm"] = true
	}
	body, _ := json.Marshal(c)
	resp, out := a.do(http.MethodPost, path, http.Header{"Content-Type": {affordances.MediaType}}, body)
	if resp == nil {
		return 0, d, nil
	}
	checkDocument(a.t, "delta", out)
	if err := json.Unmarshal(out, &d); err != nil {
		a.t.Errorf("POST %s %s: %v in %s", path, action, err, out)
	}
	return resp.StatusCode, d, resp.Header
}

// page GETs the HTML of a page as a browser asks for it.
func (a *agent) page(path string) (*http.Response, string) {
	a.t.Helper()
	resp, body := a.do(http.MethodGet, path, http.Header{"Accept": {"text/html,application/xhtml+xml,*/*;q=0.8"}}, nil)
	return resp, string(body)
}

// form POSTs an HTML form.
func (a *agent) form(path string, values url.Values, header http.Header) *http.Response {
	a.t.Helper()
	resp, _ := a.post(path, values, header)
	return resp
}

// post POSTs an HTML form and returns the answer with its body, unescaped:
// the page a person sees when the form did not succeed.
func (a *agent) post(path string, values url.Values, header http.Header) (*http.Response, string) {
	a.t.Helper()
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	for k, vs := range header {
		h[k] = vs
	}
	resp, body := a.do(http.MethodPost, path, h, []byte(values.Encode()))
	return resp, html.UnescapeString(string(body))
}

// confirmed posts the form of values to path, as a person presses its
// button, then the confirmation page's form, as they press its button: how
// a confirm action's form runs (that page carries what the person was
// shown, affordances.FormConsentField). It returns the second answer.
func (a *agent) confirmed(path string, values url.Values) *http.Response {
	a.t.Helper()
	_, page := a.post(path, values, nil)
	return a.form(path, confirmFields(a.t, page), nil)
}

// confirmFields returns the fields a confirmation page's form posts.
func confirmFields(t testing.TB, page string) url.Values {
	t.Helper()
	start := strings.Index(page, `name="`+affordances.FormConfirmField+`"`)
	if start < 0 {
		t.Fatalf("got a page with no confirmation form:\n%.2000s", page)
	}
	form := page[strings.LastIndex(page[:start], "<form"):]
	form = form[:strings.Index(form, "</form>")]
	v := url.Values{}
	for _, m := range hiddenField.FindAllStringSubmatch(form, -1) {
		v.Add(m[1], m[2])
	}
	return v
}

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// issueAt returns the issue a page shows at the field name, in its label:
// what the person must change before sending the form again.
func issueAt(page, name string) string {
	i := strings.Index(page, `name="`+name+`"`)
	if i < 0 {
		return ""
	}
	label, _, _ := strings.Cut(page[i:], "</label>")
	if m := issueSpan.FindStringSubmatch(label); m != nil {
		return m[1]
	}
	return ""
}

var issueSpan = regexp.MustCompile(`<span class="issue">([^<]*)</span>`)

// flashErr is how a page shows why the person's form failed.
func flashErr(message string) string { return `<p class="flash err" role="alert">` + message }

// signIn signs the browser in with the signIn action.
func (a *agent) signIn(email, password string) {
	a.t.Helper()
	status, d, _ := a.call("/login", "signIn", map[string]any{"email": email, "password": password}, false)
	if status != http.StatusOK || !d.OK {
		a.t.Fatalf("signIn: got %d %+v, want 200 ok", status, d.Error)
	}
}

// obj walks a decoded JSON value along keys and indexes: obj(v, "cart",
// "count").
func obj(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			s, _ := v.([]any)
			if k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

// num returns a decoded JSON number as an int, or -1.
func num(v any) int {
	f, ok := v.(float64)
	if !ok {
		return -1
	}
	return int(f)
}

func asMap(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

// variantStock returns the stock of sku from a product graph's entities.
func variantStock(g affordances.Graph, sku string) int {
	for _, v := range obj(asMap(g.Entities), "product", "variants").([]any) {
		if obj(v, "sku") == sku {
			return num(obj(v, "stock"))
		}
	}
	return -1
}

func descriptor(ds []affordances.ActionDescriptor, name string) *affordances.ActionDescriptor {
	for i := range ds {
		if ds[i].Name == name {
			return &ds[i]
		}
	}
	return nil
}

// TestConcurrentOrders: fifty customers race for ten items. Placing an
// order is one transaction (docs/protocol.md §19, step 7): exactly ten succeed, the
// rest get unavailable (docs/protocol.md decision 2: 409) and nothing of theirs
// changes, stock ends at zero and never goes below.
func TestConcurrentOrders(t *testing.T) {
	s, srv := newShop(t)
	ctx := t.Context()
	const customers, stock = 50, 10
	if err := s.AddProductForTest(ctx, "last-lamps", "Last Lamps", 4500, "LAMP-1", stock); err != nil {
		t.Fatal(err)
	}
	agents := make([]*agent, customers)
	for i := range agents {
		token, err := s.CreateUser(ctx, fmt.Sprintf("customer%d@example.com", i), "password")
		if err != nil {
			t.Fatal(err)
		}
		agents[i] = newAgent(t, srv, token)
	}

	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Go(func() {
			status, d, _ := a.call("/products/last-lamps", "addToCart", map[string]any{"sku": "LAMP-1", "quantity": 1}, false)
			if status != http.StatusOK || !d.OK {
				t.Errorf("addToCart: got %d %+v, want 200 ok", status, d.Error)
			}
		})
	}
	wg.Wait()

	type result struct {
		status int
		delta  affordances.Delta
	}
	results := make([]result, customers)
	for i, a := range agents {
		wg.Go(func() {
			status, d, _ := a.call("/checkout", "placeOrder", nil, true)
			results[i] = result{status, d}
		})
	}
	wg.Wait()

	placed, refused := 0, 0
	for i, r := range results {
		switch {
		case r.status == http.StatusOK && r.delta.OK:
			placed++
			if !strings.HasPrefix(r.delta.Redirect, "/orders/") {
				t.Errorf("customer %d: got redirect %q, want /orders/<id>", i, r.delta.Redirect)
			}
		case r.status == http.StatusConflict && r.delta.Error != nil && r.delta.Error.Code == affordances.Unavailable:
			refused++
			n, err := s.CartCountForTest(ctx, fmt.Sprintf("customer%d@example.com", i))
			if err != nil || n != 1 {
				t.Errorf("customer %d refused: got %d items in the cart (%v), want 1: a failed order changes nothing", i, n, err)
			}
		default:
			t.Errorf("customer %d: got %d %+v, want 200 or 409 unavailable", i, r.status, r.delta.Error)
		}
	}
	if placed != stock || refused != customers-stock {
		t.Errorf("got %d orders placed and %d refused, want %d and %d", placed, refused, stock, customers-stock)
	}
	left, err := s.StockForTest(ctx, "LAMP-1")
	if err != nil || left != 0 {
		t.Errorf("got stock %d (%v), want 0", left, err)
	}
	qty, orders, err := s.OrderedForTest(ctx, "LAMP-1")
	if err != nil || qty != stock || orders != stock {
		t.Errorf("got %d ordered in %d orders (%v), want %d in %d", qty, orders, err, stock, stock)
	}
}

// TestAgentJourney walks the shop as an agent with a cookie session: sign
// in, search, add to cart, change the quantity, meet confirm_required, then
// order with confirm: true and follow the redirect.
func TestAgentJourney(t *testing.T) {
	s, srv := newShop(t)
	a := newBrowser(t, srv)
	step := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow() // later steps need this one
		}
	}
	var orderPath string

	step("docs/protocol.md §18 (Call): signIn starts a cookie session and reloads as the user", func(t *testing.T) {
		a.t = t
		status, d, h := a.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}, false)
		if status != http.StatusOK || !d.OK {
			t.Fatalf("got %d %+v, want 200 ok", status, d.Error)
		}
		cookie := h.Get("Set-Cookie")
		for _, want := range []string{"sid=", "HttpOnly", "SameSite=Lax", "Path=/"} {
			if !strings.Contains(cookie, want) {
				t.Errorf("got Set-Cookie %q, want it to contain %q", cookie, want)
			}
		}
		if got := d.Changed["signedIn"]; got != true {
			t.Errorf("got changed.signedIn %v, want true", got)
		}
		if got := d.Changed["email"]; got != shop.DemoEmail {
			t.Errorf("got changed.email %v, want %q", got, shop.DemoEmail)
		}
		if signOut := descriptor(d.ActionsAdded, "signOut"); signOut == nil || !signOut.Available {
			t.Errorf("got actionsAdded %+v, want signOut available", d.ActionsAdded)
		}
	})

	step("docs/protocol.md §18 (Call): search answers results and a redirect to follow", func(t *testing.T) {
		a.t = t
		status, d, _ := a.call("/", "search", map[string]any{"q": "tee"}, false)
		if status != http.StatusOK || !d.OK {
			t.Fatalf("got %d %+v, want 200 ok", status, d.Error)
		}
		if d.Redirect != "/?q=tee" {
			t.Errorf("got redirect %q, want /?q=tee", d.Redirect)
		}
		if got := num(obj(d.Output, "total")); got < 2 {
			t.Errorf("got output.total %d, want at least 2", got)
		}
		status, g := a.graph(d.Redirect)
		if status != http.StatusOK {
			t.Fatalf("GET %s: got %d, want 200", d.Redirect, status)
		}
		if got := obj(asMap(g.Entities), "results", 0, "slug"); got != "heavyweight-tee" {
			t.Errorf("got first result %v, want heavyweight-tee", got)
		}
		if !slices.ContainsFunc(g.Nav, func(l affordances.NavLink) bool { return l.To == "/products/heavyweight-tee" }) {
			t.Errorf("got nav %+v, want a link to /products/heavyweight-tee", g.Nav)
		}
	})

	step("addToCart: the delta carries the cart (effects)", func(t *testing.T) {
		a.t = t
		status, g := a.graph("/products/heavyweight-tee")
		if status != http.StatusOK {
			t.Fatalf("got %d, want 200", status)
		}
		if d := descriptor(g.Actions, "addToCart"); d == nil || !d.Available || d.Expose != affordances.ExposeSession {
			t.Errorf("got addToCart %+v, want it available with expose session", d)
		}
		status, d, _ := a.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "HWT-BLK-M", "quantity": 2}, false)
		if status != http.StatusOK || !d.OK {
			t.Fatalf("got %d %+v, want 200 ok", status, d.Error)
		}
		if got := num(obj(d.Changed, "cart", "count")); got != 2 {
			t.Errorf("got changed.cart.count %d, want 2", got)
		}
		if got := num(obj(d.Changed, "cart", "total")); got != 6400 {
			t.Errorf("got changed.cart.total %d, want 6400", got)
		}
		if want := "Added 2 × Heavyweight Tee (Black / M) to your cart."; d.Message != want {
			t.Errorf("got message %q, want %q", d.Message, want)
		}
	})

	step("updateQuantity", func(t *testing.T) {
		a.t = t
		status, d, _ := a.call("/cart", "updateQuantity", map[string]any{"sku": "HWT-BLK-M", "quantity": 3}, false)
		if status != http.StatusOK || !d.OK {
			t.Fatalf("got %d %+v, want 200 ok", status, d.Error)
		}
		if got := num(obj(d.Changed, "cart", "count")); got != 3 {
			t.Errorf("got changed.cart.count %d, want 3", got)
		}
		if got := num(obj(d.Changed, "cart", "items", 0, "lineTotal")); got != 9600 {
			t.Errorf("got lineTotal %d, want 9600", got)
		}
	})

	step("docs/protocol.md §19, step 6: placeOrder without confirm is confirm_required and changes nothing", func(t *testing.T) {
		a.t = t
		status, d, _ := a.call("/checkout", "placeOrder", nil, false)
		if status != http.StatusPreconditionRequired || d.Error == nil || d.Error.Code != affordances.ConfirmRequired {
			t.Fatalf("got %d %+v, want 428 confirm_required", status, d.Error)
		}
		want := "Place order: 3 × Heavyweight Tee (Black / M) $96.00; total $96.00, card ending 4242, ship to Alice Liddell, 1 Main St, Springfield 12345, US."
		if d.Error.Message != want {
			t.Errorf("got summary %q, want %q", d.Error.Message, want)
		}
		if got, err := s.StockForTest(t.Context(), "HWT-BLK-M"); err != nil || got != 8 {
			t.Errorf("got stock %d (%v), want 8: nothing runs without confirm", got, err)
		}
		_, g := a.graph("/cart")
		if got := num(obj(asMap(g.Entities), "cart", "count")); got != 3 {
			t.Errorf("got cart count %d, want 3: nothing runs without confirm", got)
		}
	})

	step("docs/protocol.md §19, step 7: placeOrder with confirm orders, decrements stock, redirects", func(t *testing.T) {
		a.t = t
		status, d, _ := a.call("/checkout", "placeOrder", nil, true)
		if status != http.StatusOK || !d.OK {
			t.Fatalf("got %d %+v, want 200 ok", status, d.Error)
		}
		id, _ := obj(d.Output, "orderId").(string)
		if id == "" || d.Redirect != "/orders/"+id {
			t.Errorf("got output %v and redirect %q, want redirect /orders/<orderId>", d.Output, d.Redirect)
		}
		if got := num(obj(d.Changed, "cart", "count")); got != 0 {
			t.Errorf("got changed.cart.count %d, want 0", got)
		}
		if p := descriptor(d.ActionsAdded, "placeOrder"); p == nil || p.Available || p.Reason != "Your cart is empty." {
			t.Errorf("got actionsAdded %+v, want placeOrder unavailable: Your cart is empty.", d.ActionsAdded)
		}
		_, g := a.graph("/products/heavyweight-tee")
		if got := variantStock(g, "HWT-BLK-M"); got != 5 {
			t.Errorf("got stock %d, want 5", got)
		}
		orderPath = d.Redirect
	})

	step("the redirect is the order page", func(t *testing.T) {
		a.t = t
		status, g := a.graph(orderPath)
		if status != http.StatusOK {
			t.Fatalf("GET %s: got %d, want 200", orderPath, status)
		}
		o := obj(asMap(g.Entities), "order")
		if got := "/orders/" + fmt.Sprint(obj(o, "id")); got != orderPath {
			t.Errorf("got order %s, want %s", got, orderPath)
		}
		if got := num(obj(o, "total")); got != 9600 {
			t.Errorf("got total %d, want 9600", got)
		}
	})

	step("signOut ends the session", func(t *testing.T) {
		a.t = t
		status, d, _ := a.call("/login", "signOut", nil, false)
		if status != http.StatusOK || !d.OK {
			t.Fatalf("got %d %+v, want 200 ok", status, d.Error)
		}
		if got := d.Changed["signedIn"]; got != false {
			t.Errorf("got changed.signedIn %v, want false", got)
		}
		_, g := a.graph("/products/heavyweight-tee")
		if add := descriptor(g.Actions, "addToCart"); add == nil || add.Available || add.Reason == "" {
			t.Errorf("got addToCart %+v, want it listed, unavailable, with a reason (docs/protocol.md decision 1)", add)
		}
		if status, _ := a.graph(orderPath); status != http.StatusNotFound {
			t.Errorf("GET %s signed out: got %d, want 404", orderPath, status)
		}
	})
}

// TestRefusals: each step of docs/protocol.md §18 that can say no, with the
// status of docs/protocol.md decision 2.
func TestRefusals(t *testing.T) {
	s, srv := newShop(t)
	emptyToken, err := s.CreateUser(t.Context(), "empty@example.com", "password")
	if err != nil {
		t.Fatal(err)
	}
	alice := newAgent(t, srv, demoToken)
	tests := []struct {
		name       string
		agent      *agent
		header     http.Header
		path       string
		action     string
		input      any
		wantStatus int
		wantCode   affordances.Code
		wantMsg    string // a substring of the error's message
		wantIssue  string // a JSON Pointer among the issues
	}{
		{name: "step 1: unknown action is not_found", agent: alice, path: "/", action: "teleport",
			wantStatus: 404, wantCode: affordances.NotFound},
		{name: "step 2: a session action from nobody is unauthorized", agent: newAgent(t, srv, ""), path: "/products/canvas-tote",
			action: "addToCart", input: map[string]any{"sku": "TOTE-NAT"}, wantStatus: 401, wantCode: affordances.Unauthorized, wantMsg: "Sign in"},
		{name: "step 2: an unknown bearer token is unauthorized", agent: newAgent(t, srv, "no-such-token"), path: "/",
			action: "search", input: map[string]any{"q": "tee"}, wantStatus: 401, wantCode: affordances.Unauthorized},
		{name: "step 2: a cookie call without Origin is unauthorized (403)", agent: newAgent(t, srv, ""), header: http.Header{"Cookie": {"sid=whatever"}},
			path: "/", action: "search", input: map[string]any{"q": "tee"}, wantStatus: 403, wantCode: affordances.Unauthorized},
		{name: "step 2: a cookie call from another origin is unauthorized (403)", agent: newAgent(t, srv, ""),
			header: http.Header{"Cookie": {"sid=whatever"}, "Origin": {"http://evil.example"}},
			path:   "/", action: "search", input: map[string]any{"q": "tee"}, wantStatus: 403, wantCode: affordances.Unauthorized},
		{name: "step 4: an empty search is invalid_input", agent: alice, path: "/", action: "search", input: map[string]any{"q": ""},
			wantStatus: 400, wantCode: affordances.InvalidInput, wantIssue: "/q"},
		{name: "step 4: quantity 0 is invalid_input", agent: alice, path: "/products/canvas-tote", action: "addToCart",
			input: map[string]any{"sku": "TOTE-NAT", "quantity": 0}, wantStatus: 400, wantCode: affordances.InvalidInput, wantIssue: "/quantity"},
		{name: "step 4: quantity 100 is invalid_input", agent: alice, path: "/cart", action: "updateQuantity",
			input: map[string]any{"sku": "TOTE-NAT", "quantity": 100}, wantStatus: 400, wantCode: affordances.InvalidInput, wantIssue: "/quantity"},
		{name: "step 5: the guard of a sold-out product says unavailable", agent: alice, path: "/products/canvas-cap", action: "addToCart",
			input: map[string]any{"sku": "CAP-OLV-OS"}, wantStatus: 409, wantCode: affordances.Unavailable, wantMsg: "Out of stock."},
		{name: "step 5: placeOrder with an empty cart is unavailable", agent: newAgent(t, srv, emptyToken), path: "/checkout", action: "placeOrder",
			wantStatus: 409, wantCode: affordances.Unavailable, wantMsg: "Your cart is empty."},
		{name: "step 7: more than the stock is a domain failure", agent: alice, path: "/products/canvas-tote", action: "addToCart",
			input: map[string]any{"sku": "TOTE-NAT", "quantity": 5}, wantStatus: 409, wantCode: affordances.Unavailable, wantMsg: "Only 4 left in stock."},
		{name: "step 7: a sku of another product is invalid_input", agent: alice, path: "/products/canvas-tote", action: "addToCart",
			input: map[string]any{"sku": "HWT-BLK-M"}, wantStatus: 400, wantCode: affordances.InvalidInput, wantIssue: "/sku"},
		{name: "step 5: removeFromCart with an empty cart is unavailable", agent: alice, path: "/cart", action: "removeFromCart",
			input: map[string]any{"sku": "TOTE-NAT"}, wantStatus: 409, wantCode: affordances.Unavailable, wantMsg: "Your cart is empty."},
		{name: "step 5: a bearer caller has no session to sign out", agent: alice, path: "/login", action: "signOut",
			wantStatus: 409, wantCode: affordances.Unavailable, wantMsg: "bearer token"},
		{name: "signIn with a wrong password is unauthorized", agent: newAgent(t, srv, ""), path: "/login", action: "signIn",
			input: map[string]any{"email": shop.DemoEmail, "password": "wrong"}, wantStatus: 401, wantCode: affordances.Unauthorized, wantMsg: "Wrong email or password."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.agent.t = t
			c := map[string]any{"action": tt.action}
			if tt.input != nil {
				c["input"] = tt.input
			}
			body, _ := json.Marshal(c)
			h := http.Header{"Content-Type": {affordances.MediaType}}
			for k, vs := range tt.header {
				h[k] = vs
			}
			resp, out := tt.agent.do(http.MethodPost, tt.path, h, body)
			if resp == nil {
				return
			}
			checkDocument(t, "delta", out)
			var d affordances.Delta
			if err := json.Unmarshal(out, &d); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("got status %d, want %d (%s)", resp.StatusCode, tt.wantStatus, out)
			}
			if d.OK || d.Error == nil {
				t.Fatalf("got %s, want an error delta", out)
			}
			if d.Error.Code != tt.wantCode {
				t.Errorf("got code %q, want %q", d.Error.Code, tt.wantCode)
			}
			if !strings.Contains(d.Error.Message, tt.wantMsg) {
				t.Errorf("got message %q, want it to contain %q", d.Error.Message, tt.wantMsg)
			}
			if tt.wantIssue != "" && !slices.ContainsFunc(d.Error.Issues, func(i affordances.Issue) bool { return i.Path == tt.wantIssue }) {
				t.Errorf("got issues %+v, want one at %s", d.Error.Issues, tt.wantIssue)
			}
			if tt.wantStatus == 401 && resp.Header.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("got WWW-Authenticate %q, want Bearer", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

// TestOrdersArePrivate: an order is the customer's own; anyone else gets
// not_found, as for a page that does not exist.
func TestOrdersArePrivate(t *testing.T) {
	s, srv := newShop(t)
	alice := newAgent(t, srv, demoToken)
	if status, d, _ := alice.call("/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"}, false); status != 200 {
		t.Fatalf("addToCart: got %d %+v", status, d.Error)
	}
	status, d, _ := alice.call("/checkout", "placeOrder", nil, true)
	if status != 200 {
		t.Fatalf("placeOrder: got %d %+v", status, d.Error)
	}
	bobToken, err := s.CreateUser(t.Context(), "bob@example.com", "password")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		who  *agent
		want int
	}{
		{"the customer", alice, 200},
		{"another customer", newAgent(t, srv, bobToken), 404},
		{"nobody", newAgent(t, srv, ""), 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.who.t = t
			if got, _ := tt.who.graph(d.Redirect); got != tt.want {
				t.Errorf("GET %s: got %d, want %d", d.Redirect, got, tt.want)
			}
		})
	}
}

// TestHTML: people get HTML from the same URLs (docs/protocol.md §3;
// docs/protocol.md decision 3), and the forms work with no JavaScript.
func TestHTML(t *testing.T) {
	s, srv := newShop(t)

	t.Run("docs/protocol.md decision 3: a browser gets HTML with Vary and Link", func(t *testing.T) {
		resp, body := newAgent(t, srv, "").page("/")
		if resp.StatusCode != 200 {
			t.Fatalf("got %d, want 200", resp.StatusCode)
		}
		for _, c := range []struct{ header, want string }{
			{"Content-Type", "text/html; charset=utf-8"},
			{"Vary", "Accept"},
			{"Link", `<?affordances=1>; rel="affordances"`},
		} {
			if got := resp.Header.Values(c.header); !slices.Contains(got, c.want) {
				t.Errorf("got %s %q, want %q", c.header, got, c.want)
			}
		}
		if want := `<link rel="affordances" href="?affordances=1">`; !strings.Contains(body, want) {
			t.Errorf("got HTML without %s", want)
		}
	})

	t.Run("docs/protocol.md §3 (Discovery): ?affordances=1 is the graph", func(t *testing.T) {
		resp, body := newAgent(t, srv, "").do(http.MethodGet, "/products/canvas-tote?affordances=1", nil, nil)
		if got := resp.Header.Get("Content-Type"); got != affordances.MediaType {
			t.Fatalf("got Content-Type %q, want %q", got, affordances.MediaType)
		}
		checkDocument(t, "graph", body)
	})

	t.Run("an unknown product is a 404 page for people and not_found for agents", func(t *testing.T) {
		a := newAgent(t, srv, "")
		resp, body := a.page("/products/no-such-thing")
		if resp.StatusCode != 404 || !strings.Contains(body, "No such product.") || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("got %d %q, want a 404 HTML page saying No such product.", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if status, _ := a.graph("/products/no-such-thing"); status != 404 {
			t.Errorf("graph: got %d, want 404", status)
		}
	})

	b := newBrowser(t, srv)
	t.Run("a form sign-in sets the session and redirects", func(t *testing.T) {
		b.t = t
		resp := b.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}, "next": {"/cart"}}, nil)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/cart" {
			t.Fatalf("got %d to %q, want 303 to /cart", resp.StatusCode, resp.Header.Get("Location"))
		}
		_, body := b.page("/cart")
		if !strings.Contains(body, "Signed in as alice@example.com.") {
			t.Errorf("got a cart page without the sign-in message")
		}
	})

	t.Run("a form add-to-cart uses the same domain code", func(t *testing.T) {
		b.t = t
		resp := b.form("/products/canvas-tote", url.Values{"_action": {"addToCart"}, "sku": {"TOTE-NAT"}, "quantity": {"2"}}, nil)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/products/canvas-tote" {
			t.Fatalf("got %d to %q, want 303 to /products/canvas-tote", resp.StatusCode, resp.Header.Get("Location"))
		}
		_, body := b.page("/products/canvas-tote")
		if want := "Added 2 × Canvas Tote (Natural) to your cart."; !strings.Contains(html.UnescapeString(body), want) {
			t.Errorf("got a page without %q", want)
		}
		if n, _ := s.CartCountForTest(t.Context(), shop.DemoEmail); n != 2 {
			t.Errorf("got %d in the cart, want 2", n)
		}
		resp, page := b.post("/products/canvas-tote", url.Values{"_action": {"addToCart"}, "sku": {"TOTE-NAT"}, "quantity": {"3"}}, nil)
		if want := "Only 4 left in stock, and 2 already in your cart."; resp.StatusCode != http.StatusConflict || !strings.Contains(page, flashErr(want)) {
			t.Errorf("got %d without %q, want 409 with it", resp.StatusCode, want)
		}
		if !strings.Contains(page, `value="3" min="1"`) {
			t.Errorf("got a page without the quantity the person typed")
		}
	})

	t.Run("a cross-origin form post is refused", func(t *testing.T) {
		b.t = t
		resp := b.form("/products/canvas-tote", url.Values{"_action": {"addToCart"}, "sku": {"TOTE-NAT"}}, http.Header{"Origin": {"http://evil.example"}})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("got %d, want 403", resp.StatusCode)
		}
		resp = b.form("/checkout", url.Values{"_action": {"placeOrder"}, "_confirm": {"yes"}}, http.Header{"Sec-Fetch-Site": {"cross-site"}})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("got %d, want 403", resp.StatusCode)
		}
		if n, _ := s.CartCountForTest(t.Context(), shop.DemoEmail); n != 2 {
			t.Errorf("got %d in the cart, want 2: nothing changed", n)
		}
	})

	t.Run("the order form asks for confirmation first", func(t *testing.T) {
		b.t = t
		resp, body := b.do(http.MethodPost, "/checkout", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, []byte("_action=placeOrder"))
		if resp.StatusCode != 200 || !strings.Contains(html.UnescapeString(string(body)), "Place order: 2 × Canvas Tote (Natural) $36.00; total $36.00, card ending 4242, ship to Alice Liddell, 1 Main St, Springfield 12345, US.") {
			t.Fatalf("got %d without the summary, want a confirmation page", resp.StatusCode)
		}
		if n, _ := s.CartCountForTest(t.Context(), shop.DemoEmail); n != 2 {
			t.Errorf("got %d in the cart, want 2: nothing ran", n)
		}
		resp = b.form("/checkout", confirmFields(t, html.UnescapeString(string(body))), nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/orders/") {
			t.Fatalf("got %d to %q, want 303 to /orders/<id>", resp.StatusCode, loc)
		}
		if got, _ := s.StockForTest(t.Context(), "TOTE-NAT"); got != 2 {
			t.Errorf("got stock %d, want 2", got)
		}
	})

	t.Run("a form from nobody is its page again, 401, with a way to sign in", func(t *testing.T) {
		nobody := newBrowser(t, srv)
		resp, page := nobody.post("/cart", url.Values{"_action": {"removeFromCart"}, "sku": {"TOTE-NAT"}}, nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, flashErr("Sign in to use your cart")) ||
			!strings.Contains(page, `<a href="/login?next=%2fcart">Sign in</a>`) {
			t.Errorf("got %d, want the cart page again, 401, saying to sign in with a link back to it", resp.StatusCode)
		}
		resp, page = nobody.post("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {"nope"}}, nil)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, flashErr("Wrong email or password.")) ||
			!strings.Contains(page, `value="`+shop.DemoEmail+`"`) {
			t.Errorf("got %d, want the sign-in page again, 401, with the error and the email typed", resp.StatusCode)
		}
		if resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("got Set-Cookie %q, want none", resp.Header.Get("Set-Cookie"))
		}
	})

	t.Run("sign out by form", func(t *testing.T) {
		b.t = t
		resp := b.form("/login", url.Values{"_action": {"signOut"}}, nil)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("got %d, want 303", resp.StatusCode)
		}
		_, body := b.page("/cart")
		if !strings.Contains(body, "Sign in to see your cart") {
			t.Errorf("got a cart page without the sign-in prompt")
		}
	})
}

// TestParity: a graph must not contain anything the page would not show the
// same user (docs/protocol.md §7, "Security"): every string among a page's
// entities appears in its HTML, outside hidden form fields.
func TestParity(t *testing.T) {
	s, srv := newShop(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	alice.call("/products/wool-throw", "addToCart", map[string]any{"sku": "THR-GRY"}, false)
	_, d, _ := alice.call("/checkout", "placeOrder", nil, true)
	alice.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "HWT-WHT-M", "quantity": 2}, false)
	alice.call("/products/stoneware-mug", "addToCart", map[string]any{"sku": "MUG-SLT"}, false)
	// Reviews: alice's, and one long enough that the graph carries its
	// first words only.
	alice.call("/products/heavyweight-tee", "writeReview", map[string]any{"rating": 4, "body": "Soft & heavy; the collar keeps its \"shape\"."}, false)
	bob := newAgent(t, srv, mustCreateUser(t, s, "bob@example.com"))
	bob.call("/products/heavyweight-tee", "writeReview", map[string]any{"rating": 5, "body": strings.Repeat("Still my favourite tee <after> a year of washing. ", 6)}, false)

	pages := []string{"/", "/?q=linen", "/?category=bags", "/products/heavyweight-tee", "/products/heavyweight-tee/reviews", "/products/canvas-cap",
		"/cart", "/checkout/shipping", "/checkout/payment", "/checkout", d.Redirect, "/orders", "/login", "/signup", "/account", "/account/tokens"}
	for _, who := range []struct {
		name  string
		agent *agent
	}{{"alice", alice}, {"nobody", newBrowser(t, srv)}} {
		for _, path := range pages {
			t.Run(who.name+" "+path, func(t *testing.T) {
				who.agent.t = t
				status, g := who.agent.graph(path)
				if status != http.StatusOK {
					if who.name == "nobody" && status == http.StatusNotFound {
						return // nobody's order page
					}
					t.Fatalf("got %d, want 200", status)
				}
				_, page := who.agent.page(path)
				text := html.UnescapeString(hiddenInput.ReplaceAllString(page, ""))
				seen := 0
				walkStrings(asMap(g.Entities), "", func(ptr, s string) {
					seen++
					if !strings.Contains(text, s) {
						t.Errorf("got HTML without %q, the entity at %s", s, ptr)
					}
				})
				if seen == 0 && who.name == "alice" && path != "/login" {
					t.Errorf("got no strings among the entities: the test checks nothing")
				}
			})
		}
	}
}

// hiddenInput matches the hidden fields of forms: what they hold is not
// shown, so it does not count as shown.
var hiddenInput = regexp.MustCompile(`<input type="hidden"[^>]*>`)

// walkStrings calls f with every string in v and its JSON Pointer.
func walkStrings(v any, ptr string, f func(ptr, s string)) {
	switch v := v.(type) {
	case string:
		f(ptr, v)
	case map[string]any:
		for k, e := range v {
			walkStrings(e, ptr+"/"+k, f)
		}
	case []any:
		for i, e := range v {
			walkStrings(e, fmt.Sprintf("%s/%d", ptr, i), f)
		}
	}
}

// TestIndex: the site index lists every route with the actions the
// requester may know about, and the auth modes (docs/protocol.md §24;
// docs/protocol.md decisions 1 and 6): signOut and deleteReview are hidden from nobody.
func TestIndex(t *testing.T) {
	_, srv := newShop(t)
	routes := map[string][]string{
		"/":                        {"search"},
		"/products/[slug]":         {"addToCart", "writeReview", "deleteReview"},
		"/products/[slug]/reviews": nil,
		"/cart":                    {"updateQuantity", "removeFromCart"},
		"/checkout/shipping":       {"chooseAddress"},
		"/checkout/payment":        {"choosePayment"},
		"/checkout":                {"placeOrder"},
		"/orders/[id]":             {"cancelOrder"},
		"/login":                   {"signIn", "signOut"},
		"/orders":                  nil,
		"/signup":                  {"signUp"},
		"/account":                 {"updateProfile", "addAddress", "deleteAddress"},
		"/account/tokens":          {"createToken", "revokeToken"},
		"/admin":                   nil, // its actions are for admins (TestAdminIsForAdmins)
		"/admin/users":             nil,
	}
	tests := []struct {
		name    string
		token   string
		login   []string
		product []string
	}{
		{"nobody", "", []string{"signIn"}, []string{"addToCart", "writeReview"}},
		{"alice", demoToken, []string{"signIn", "signOut"}, []string{"addToCart", "writeReview", "deleteReview"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := newAgent(t, srv, tt.token).do(http.MethodGet, affordances.IndexPath, nil, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("got %d, want 200", resp.StatusCode)
			}
			checkDocument(t, "index", body)
			var idx affordances.SiteIndex
			if err := json.Unmarshal(body, &idx); err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, r := range idx.Routes {
				got[r.Route] = nil
				for _, a := range r.Actions {
					got[r.Route] = append(got[r.Route], a.Name)
				}
			}
			for route, actions := range routes {
				switch route {
				case "/login":
					actions = tt.login
				case "/products/[slug]":
					actions = tt.product
				}
				if tt.token == "" && strings.HasPrefix(route, "/account") {
					actions = nil // one's own account: hidden from nobody
				}
				if g, ok := got[route]; !ok || !slices.Equal(g, actions) {
					t.Errorf("route %s: got actions %v (listed %v), want %v", route, g, ok, actions)
				}
			}
			if len(got) != len(routes) {
				t.Errorf("got routes %v, want %d routes", got, len(routes))
			}
			if !slices.Equal(idx.Auth, []affordances.AuthMethod{affordances.AuthCookie, affordances.AuthBearer}) {
				t.Errorf("got auth %v, want [cookie bearer]", idx.Auth)
			}
		})
	}
}

// TestGraphsStaySmall: DESIGN asks for demo graphs under 400 tokens. This
// test has no tokenizer; it bounds the JSON at graphBudget, about 400
// tokens at the ~4 bytes a token that o200k averages on such JSON, and a
// product page at productGraphBudget.
func TestGraphsStaySmall(t *testing.T) {
	_, srv := newShop(t)
	alice := newAgent(t, srv, demoToken)
	alice.call("/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"}, false)
	_, d, _ := alice.call("/checkout", "placeOrder", nil, true)
	alice.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "HWT-BLK-M", "quantity": 2}, false)
	alice.call("/products/merino-crew", "addToCart", map[string]any{"sku": "MCS-OAT-M"}, false)
	for _, path := range []string{"/", "/?q=tee", "/products/heavyweight-tee", "/cart", "/checkout/shipping", "/checkout/payment", "/checkout",
		d.Redirect, "/orders", "/login", "/signup", "/account", "/account/tokens"} {
		t.Run(path, func(t *testing.T) {
			resp, body := alice.do(http.MethodGet, path, http.Header{"Accept": {affordances.MediaType}}, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("got %d, want 200", resp.StatusCode)
			}
			budget := graphBudget
			switch {
			case strings.HasPrefix(path, "/products/"):
				budget = productGraphBudget
			case path == "/":
				budget = catalogGraphBudget
			}
			if len(body) > budget {
				t.Errorf("got a graph of %d bytes, want at most %d:\n%s", len(body), budget, body)
			}
		})
	}
}

// graphBudget bounds the graph of a page, in bytes (TestGraphsStaySmall).
const graphBudget = 1600

// productGraphBudget bounds the graph of a product page without reviews:
// it lists three actions (addToCart, and writeReview and deleteReview,
// which issue 5 puts on the page where people read and write reviews),
// whose descriptors weigh about 1,150 bytes beside the product's 4
// variants, the cart and the nav. 2,200 bytes is about 550 tokens: over
// DESIGN's 400, far under the 2,000 of docs/protocol.md §12. TestReviewsStaySmall bounds
// what reviews add.
const productGraphBudget = 2200

// catalogGraphBudget bounds the graph of the catalog's first page: the
// 14 products of the demo, under the 24 a page of a real shop's catalog
// lists (catalogPageSize), at about 95 bytes a product with its nav link.
// 2,600 bytes is about 700 tokens: over DESIGN's 400, as the product
// page's; a full page of 24, in the realistic seed, is about 1,150
// (TestRealisticSeed).
const catalogGraphBudget = 2600

// TestReopen: the catalog is seeded once; the demo token is replaced at
// each Open.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	open := func(token string) (*shop.Shop, *httptest.Server) {
		s, err := shop.Open(ctx, &shop.Options{DataDir: dir, DemoToken: token})
		if err != nil {
			t.Fatal(err)
		}
		return s, httptest.NewServer(s.Handler())
	}
	s1, srv1 := open("first-token")
	newAgent(t, srv1, "first-token").call("/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"}, false)
	srv1.Close()
	s1.Close()

	s2, srv2 := open("")
	defer s2.Close()
	defer srv2.Close()
	if s2.Token() == "" || s2.Token() == "first-token" {
		t.Errorf("got token %q, want a new random one", s2.Token())
	}
	if status, _, _ := newAgent(t, srv2, "first-token").call("/", "search", map[string]any{"q": "tee"}, false); status != 401 {
		t.Errorf("old token: got %d, want 401", status)
	}
	_, g := newAgent(t, srv2, s2.Token()).graph("/")
	if got := num(obj(asMap(g.Entities), "total")); got != 14 {
		t.Errorf("got %d products, want 14: the catalog is seeded once", got)
	}
	if got := num(obj(asMap(g.Entities), "cart", "count")); got != 1 {
		t.Errorf("got cart count %d, want 1: data survives a reopen", got)
	}
}

// TestAuthenticate: who a request is, by its credentials (docs/protocol.md
// decision 4): a bearer token, else the session cookie, else nobody; an unknown
// session is nobody, an unknown token is refused.
func TestAuthenticate(t *testing.T) {
	_, srv := newShop(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	u, _ := url.Parse(srv.URL)
	var session string
	for _, c := range alice.client.Jar.Cookies(u) {
		session = c.Name + "=" + c.Value
	}
	if session == "" {
		t.Fatal("no session cookie after signIn")
	}
	tests := []struct {
		name       string
		header     http.Header
		wantStatus int
		wantEmail  any // the login page's email entity
	}{
		{"nobody", nil, 200, nil},
		{"an unknown session is nobody", http.Header{"Cookie": {"sid=not-a-session"}}, 200, nil},
		{"the demo token", http.Header{"Authorization": {"Bearer " + demoToken}}, 200, shop.DemoEmail},
		{"an unknown token is refused", http.Header{"Authorization": {"Bearer nope"}}, 401, nil},
		{"alice's session cookie", http.Header{"Cookie": {session}}, 200, shop.DemoEmail},
		{"a bad token is not rescued by a real session", http.Header{"Authorization": {"Bearer nope"}, "Cookie": {session}}, 401, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{"Accept": {affordances.MediaType}}
			for k, vs := range tt.header {
				h[k] = vs
			}
			resp, body := newAgent(t, srv, "").do(http.MethodGet, "/login", h, nil)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("got %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			if resp.StatusCode != 200 {
				checkDocument(t, "delta", body)
				return
			}
			checkDocument(t, "graph", body)
			var g affordances.Graph
			json.Unmarshal(body, &g)
			if got := g.Entities["email"]; got != tt.wantEmail {
				t.Errorf("got email %v, want %v", got, tt.wantEmail)
			}
		})
	}
}

// TestSignInFormIsLimited: the sign-in form is the signIn action, counted
// by its limit (docs/protocol.md §19, step 3): the 6th guess from one address is
// its page again, 429 with Retry-After, and even the right password signs
// nobody in then.
func TestSignInFormIsLimited(t *testing.T) {
	_, srv := newShop(t)
	b := newBrowser(t, srv)
	for i := range 5 {
		if resp := b.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {"guess"}}, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("guess %d: got %d, want 401", i+1, resp.StatusCode)
		}
	}
	resp, page := b.post("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}, nil)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(page, flashErr("Too many calls.")) {
		t.Errorf("6th try: got %d with Retry-After %q, want the sign-in page, 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("6th try: got Set-Cookie %q, want none", resp.Header.Get("Set-Cookie"))
	}
	if _, g := b.graph("/login"); g.Entities["signedIn"] != false {
		t.Errorf("got %v, want nobody signed in", g.Entities)
	}
}

// TestSignInBudgetIsShared: guesses by the form and by a call are counted
// by the one limit of the signIn action, per client address, so the two
// ways do not add up to twice the guesses, nor do other emails.
func TestSignInBudgetIsShared(t *testing.T) {
	_, srv := newShop(t)
	b := newBrowser(t, srv)
	for range 5 {
		b.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {"guess"}}, nil)
	}
	status, d, h := b.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": "guess"}, false)
	if status != http.StatusTooManyRequests || d.Error == nil || d.Error.Code != affordances.RateLimited || h.Get("Retry-After") == "" {
		t.Errorf("a guess by the action after 5 by the form: got %d %+v, want 429 rate_limited with Retry-After", status, d.Error)
	}
	if status, d, _ := b.call("/login", "signIn", map[string]any{"email": "bob@example.com", "password": "guess"}, false); status != http.StatusTooManyRequests {
		t.Errorf("another email from the same address: got %d %+v, want 429", status, d.Error)
	}
}

// TestSignInNeverLeavesTheSite: signIn's next only ever sends a person to
// a path of this site; any other, even one browsers rewrite into another
// site (tabs, newlines and backslashes are dropped or read as slashes), is
// refused at /next and signs nobody in, by the form and by a call.
func TestSignInNeverLeavesTheSite(t *testing.T) {
	for _, tc := range []struct{ next, want string }{
		{"/cart", "/cart"},
		{"/checkout?step=2", "/checkout?step=2"},
		{"", "/"},
		{"//evil.example/x", ""},
		{"/\\evil.example", ""},
		{"/\t/evil.example/phish", ""},
		{"/\n/evil.example", ""},
		{"https://evil.example/", ""},
		{"javascript:alert(1)", ""},
	} {
		_, srv := newShop(t) // a fresh sign-in budget for each case
		b := newBrowser(t, srv)
		res, page := b.post("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}, "next": {tc.next}}, nil)
		if got := res.Header.Get("Location"); got != tc.want {
			t.Errorf("next %q: got Location %q, want %q", tc.next, got, tc.want)
		}
		if tc.want != "" {
			continue
		}
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, "is not a path of this site") || res.Header.Get("Set-Cookie") != "" {
			t.Errorf("next %q: got %d, want 400 with the issue at next and no session", tc.next, res.StatusCode)
		}
		status, d, _ := b.call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword, "next": tc.next}, false)
		wantError(t, fmt.Sprintf("signIn with next %q", tc.next), status, d, http.StatusBadRequest, affordances.InvalidInput, "/next")
	}
}

// TestLongSearchIsBounded: a search URL of any length gives a page and a
// small graph, never a 500.
func TestLongSearchIsBounded(t *testing.T) {
	_, srv := newShop(t)
	q := url.QueryEscape(strings.Repeat("tote ", 5000))
	status, g := newAgent(t, srv, "").graph("/?q=" + q)
	if status != http.StatusOK {
		t.Fatalf("got %d, want 200", status)
	}
	if got, _ := g.Entities["query"].(string); len(got) > 100 {
		t.Errorf("the graph echoes a query of %d characters, want at most 100", len(got))
	}
	if res, _ := newAgent(t, srv, "").page("/?q=" + q); res.StatusCode != http.StatusOK {
		t.Errorf("HTML: got %d, want 200", res.StatusCode)
	}
}

// TestStoreFailure: when the database fails, requests get internal (500),
// never a misleading unauthorized or not_found (docs/protocol.md decision 2).
func TestStoreFailure(t *testing.T) {
	s, err := shop.Open(t.Context(), options(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	s.Close() // every query fails from here on
	status, d, _ := newAgent(t, srv, demoToken).call("/", "search", map[string]any{"q": "tee"}, false)
	if status != 500 || d.Error == nil || d.Error.Code != affordances.Internal {
		t.Errorf("bearer call: got %d %+v, want 500 internal", status, d.Error)
	}
	status, _ = newAgent(t, srv, "").graph("/")
	if status != 500 {
		t.Errorf("graph: got %d, want 500", status)
	}
	for _, path := range []string{"/", "/products/canvas-tote"} {
		if resp, _ := newAgent(t, srv, "").page(path); resp.StatusCode != 500 {
			t.Errorf("HTML %s: got %d, want 500", path, resp.StatusCode)
		}
	}
}
