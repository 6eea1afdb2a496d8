package shop_test

// Tests in Chromium with WebMCP (Debian's Chromium 148 has it behind the
// WebMCPTesting feature), as an agent that lives in the browser sees the
// shop (docs/protocol.md decision 12): each page's tools are its available actions,
// with their input schemas and the hints of their declarations; running
// one is an Affordances call with the person's own session, and the next
// page shows it; a confirm action's tool only asks; tools follow the
// actions' availability; a page of another origin reaches none of them.
// Without the feature, no page logs an error.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/webmcp"
)

// startWebMCP returns the test binary's Chromium with WebMCP on.
func startWebMCP(t *testing.T) *browser.Browser {
	t.Helper()
	return browsertest.Shared(t, "WebMCPTesting")
}

// untrusted are the shop's actions whose results carry text other people
// wrote (Action.UntrustedContent): reviews, and the names customers typed.
var untrusted = []string{"writeReview", "deleteReview", "disableUser", "enableUser", "deleteUser"}

// shopPages are the pages of the shop a customer and a visitor open.
var shopPages = []string{
	"/", "/?q=tote", "/?category=home", "/products/canvas-tote", "/products/canvas-cap",
	"/cart", "/checkout/shipping", "/checkout/payment", "/checkout",
	"/orders", "/login", "/signup", "/account", "/account/tokens",
}

// adminPaths are the pages only the admin opens.
var adminPaths = []string{"/admin", "/admin?page=2", "/admin/users"}

// tools returns the page's tools as an agent in x's tab lists them, by
// name.
func (x *person) tools() map[string]browser.Tool {
	x.t.Helper()
	list, err := x.p.Tools(x.t.Context())
	if err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
	tools := map[string]browser.Tool{}
	for _, t := range list {
		tools[t.Name] = t
	}
	return tools
}

// toolNames returns the names of the page's tools, sorted.
func (x *person) toolNames() []string {
	x.t.Helper()
	var names []string
	for name := range x.tools() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// execute runs the page's tool name with input, as an agent in x's tab
// does, and returns the delta the tool returned; -v logs it as it came.
func (x *person) execute(name string, input any) affordances.Delta {
	x.t.Helper()
	out, err := x.p.ExecuteTool(x.t.Context(), name, input)
	if err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
	x.t.Logf("on %s the tool %s returned: %s", x.path(), name, out)
	checkDocument(x.t, "delta", []byte(out))
	var d affordances.Delta
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		x.t.Fatalf("%s on %s: the tool %s returned %q, not a delta: %v", x.name, x.path(), name, out, err)
	}
	return d
}

// cookie returns the Cookie header of x's session, "" when x has none.
func (x *person) cookie() string {
	x.t.Helper()
	cs, err := x.p.Cookies(x.t.Context(), x.base)
	if err != nil {
		x.t.Fatal(err)
	}
	for _, c := range cs {
		if c.Name == "sid" {
			return c.Name + "=" + c.Value
		}
	}
	return ""
}

// graphAsX GETs the graph of the page x is on, with x's session.
func graphAsX(t *testing.T, srv *httptest.Server, x *person) affordances.Graph {
	t.Helper()
	h := http.Header{"Accept": {affordances.MediaType}}
	if c := x.cookie(); c != "" {
		h.Set("Cookie", c)
	}
	path := x.path()
	resp, body := newAgent(t, srv, "").do(http.MethodGet, path, h, nil)
	if resp == nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the graph of %s with %s's session: got %v", path, x.name, resp)
	}
	checkDocument(t, "graph", body)
	var g affordances.Graph
	if err := json.Unmarshal(body, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// signInByForm signs x in through the sign-in form, as a person does.
func (x *person) signInByForm(email, password string) {
	x.t.Helper()
	x.visit("/login")
	x.fill("Email", email)
	x.fill("Password", password)
	x.perform("sign-in")
	x.see(".flash", "Signed in as "+email)
}

// sameJSON reports whether a and b encode the same JSON value.
func sameJSON(a, b any) bool {
	decode := func(v any) any {
		raw, ok := v.(json.RawMessage)
		if !ok {
			raw, _ = json.Marshal(v)
		}
		var out any
		json.Unmarshal(raw, &out)
		return out
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// pageTools returns the tools the page declares in its data block, as
// the page's head declared them for this request, by name.
func pageTools(t *testing.T, x *person) map[string]webmcpTool {
	t.Helper()
	var block struct{ Tools []webmcpTool }
	if err := x.p.Eval(t.Context(), `JSON.parse(document.getElementById("affordances-webmcp").textContent)`, &block); err != nil {
		t.Fatalf("%s: the page's WebMCP data block: %v", x.path(), err)
	}
	tools := map[string]webmcpTool{}
	for _, tool := range block.Tools {
		tools[tool.Name] = tool
	}
	return tools
}

// registered returns what the page passed to registerTool, the last
// registration of each name (browser.Page.RecordTools).
func registered(t *testing.T, x *person) map[string]browser.Tool {
	t.Helper()
	list, err := x.p.RegisteredTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]browser.Tool{}
	for _, tool := range list {
		tools[tool.Name] = tool
	}
	return tools
}

// asks says whether the AAL gate would ask a person before the action a
// runs, from its affordance in the page's fragment (docs/protocol.md decision 8).
func asks(t *testing.T, f *aal.Fragment, a affordances.ActionDescriptor) bool {
	t.Helper()
	i := slices.IndexFunc(f.Affordances, func(af aal.Affordance) bool { return af.ID == aal.ID(a.Name) })
	if i < 0 {
		t.Errorf("%s: the AAL fragment has no affordance of %s", f.Page, a.Name)
		return false
	}
	return len(aal.Classify(f.Affordances[i], string(a.Expose)).Classes) > 0
}

// checkTools checks the tools an agent in x's tab finds on the page it is
// on: exactly the available actions of the page's graph, fetched with x's
// session, each with the action's description and input schema. What the
// page passed to registerTool are the hints the page declares
// (in its data block, from affordances.Page.Head), and those say what the
// graph and the AAL fragment do: readOnlyHint the action's readOnly,
// consequentialHint whether the gate asks a person, untrustedContentHint
// whether the action is among untrusted.
func checkTools(t *testing.T, srv *httptest.Server, x *person, untrusted []string) {
	t.Helper()
	path := x.path()
	g := graphAsX(t, srv, x)
	tools := x.tools()
	declared := pageTools(t, x)
	passed := registered(t, x)
	f, err := x.p.Fragment(t.Context())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var want []string
	for _, a := range g.Actions {
		tool, listed := tools[a.Name]
		if !a.Available {
			if listed {
				t.Errorf("%s (%s): the unavailable action %s is a tool", path, x.name, a.Name)
			}
			continue
		}
		want = append(want, a.Name)
		if !listed {
			t.Errorf("%s (%s): the available action %s is no tool", path, x.name, a.Name)
			continue
		}
		if !strings.HasPrefix(tool.Description, a.Description) {
			t.Errorf("%s: tool %s says %q, want the action's description %q", path, a.Name, tool.Description, a.Description)
		}
		if confirm := strings.Contains(tool.Description, "A person confirms it on the page"); confirm != (a.Expose == affordances.ExposeConfirm) {
			t.Errorf("%s: tool %s of a %s action says %q", path, a.Name, a.Expose, tool.Description)
		}
		if !sameJSON(tool.InputSchema, webmcp.Schema(a.Input)) {
			t.Errorf("%s: tool %s has the input schema %s, want the action's %s within WebMCP's subset", path, a.Name, tool.InputSchema, a.Input)
		}
		hints := webmcpHints{
			ReadOnlyHint:         a.ReadOnly,
			ConsequentialHint:    asks(t, f, a),
			UntrustedContentHint: slices.Contains(untrusted, a.Name),
		}
		if got := declared[a.Name].Annotations; got != hints {
			t.Errorf("%s: the page declares %s with hints %+v, want %+v", path, a.Name, got, hints)
		}
		if got := passed[a.Name].Annotations; !sameJSON(got, declared[a.Name].Annotations) {
			t.Errorf("%s: the page registered %s with annotations %v, want its hints %+v", path, a.Name, got, declared[a.Name].Annotations)
		}
	}
	got := slices.Sorted(func(yield func(string) bool) {
		for name := range tools {
			if !yield(name) {
				return
			}
		}
	})
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s (%s): the tools are %q, want the page's available actions %q", path, x.name, got, want)
	}
}

// checkConsole checks that x's tab logged no error, no exception and no
// warning of the library's script since its console held seen lines, and
// returns how many it holds now.
func checkConsole(t *testing.T, x *person, seen int) int {
	t.Helper()
	lines, err := x.p.ConsoleNow(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[min(seen, len(lines)):] {
		if strings.HasPrefix(l, "error:") || strings.HasPrefix(l, "exception:") || strings.Contains(l, "affordances:") {
			t.Errorf("%s on %s: the console says %q", x.name, x.path(), l)
		}
	}
	return len(lines)
}

// TestWebMCPTools: on every page, for a visitor, a customer signed in
// through the form (with an order and a cart) and the admin, the tools an
// agent in the browser lists are the page's available actions with their
// schemas, registered with the hints of their declarations; no page logs
// an error.
func TestWebMCPTools(t *testing.T) {
	demotest.Parallel(t)
	b := startWebMCP(t)
	s, srv := newShop(t)

	// alice has an order, and a cart again.
	bot := newAgent(t, srv, s.Token())
	if status, d, _ := bot.call("/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"}, false); status != http.StatusOK || !d.OK {
		t.Fatalf("addToCart: %d %+v", status, d.Error)
	}
	status, d, _ := bot.call("/checkout", "placeOrder", nil, true)
	if status != http.StatusOK || !d.OK {
		t.Fatalf("placeOrder: %d %+v", status, d.Error)
	}
	order := d.Redirect
	if status, d, _ := bot.call("/products/stoneware-mug", "addToCart", map[string]any{"sku": "MUG-CRM", "quantity": 2}, false); status != http.StatusOK || !d.OK {
		t.Fatalf("addToCart: %d %+v", status, d.Error)
	}

	for _, who := range []struct {
		name, email, password string
		pages                 []string
	}{
		{"a visitor", "", "", shopPages},
		{"alice", shop.DemoEmail, shop.DemoPassword, append(slices.Clone(shopPages), order)},
		{"the admin", shop.AdminEmail, shop.AdminPassword, append(slices.Clone(adminPaths), "/", "/products/canvas-tote")},
	} {
		x := newPerson(t, b, srv, who.name)
		if err := x.p.RecordTools(t.Context()); err != nil {
			t.Fatal(err)
		}
		if who.email != "" {
			x.signInByForm(who.email, who.password)
		}
		seen := 0
		for _, path := range who.pages {
			x.visit(path)
			checkTools(t, srv, x, untrusted)
			seen = checkConsole(t, x, seen)
		}
	}
}

// TestWebMCPCalls: an agent in the browser searches the catalog and the
// results page shows what it found; alice signs in through the form, and
// the agent in her tab adds to her cart: the page shows it when she reloads.
// It chooses where to ship and the card; placing the order returns the
// site's summary, and no order is placed. On the cart, removing the last
// line makes updateQuantity and removeFromCart unavailable: their tools
// are gone.
func TestWebMCPCalls(t *testing.T) {
	demotest.Parallel(t)
	b := startWebMCP(t)
	s, srv := newShop(t)
	ctx := t.Context()

	visitor := newPerson(t, b, srv, "a visitor")
	visitor.visit("/")
	if got := visitor.toolNames(); !slices.Equal(got, []string{"search"}) {
		t.Fatalf("the catalog's tools for a visitor: got %q, want search", got)
	}
	d := visitor.execute("search", map[string]any{"q": "tote"})
	if !d.OK || d.Redirect != "/?q=tote" || d.Message != `1 product for "tote".` {
		t.Fatalf("search tote: got %+v, want the redirect to /?q=tote and its message", d)
	}
	visitor.visit(d.Redirect)
	visitor.see("h1", "Results for “tote”")
	visitor.see(".grid", "Canvas Tote", "$18.00")
	if n := visitor.count(".grid .card"); n != 1 {
		t.Errorf("the results of tote show %d products, want 1", n)
	}

	alice := newPerson(t, b, srv, "alice")
	if err := alice.p.RecordTools(ctx); err != nil {
		t.Fatal(err)
	}
	alice.signInByForm(shop.DemoEmail, shop.DemoPassword)
	alice.visit("/products/canvas-tote")
	alice.see(".main-nav", "Cart (0)")
	tools, passed := alice.tools(), registered(t, alice)
	for _, name := range alice.toolNames() { // what -v shows of the README's tools
		js, _ := json.Marshal(map[string]any{"name": name, "description": tools[name].Description, "inputSchema": tools[name].InputSchema, "annotations": passed[name].Annotations})
		t.Logf("the product page's tool: %s", js)
	}
	d = alice.execute("addToCart", map[string]any{"sku": "TOTE-NAT", "quantity": 2})
	if !d.OK || d.Message != "Added 2 × Canvas Tote (Natural) to your cart." || num(obj(d.Changed, "cart", "count")) != 2 {
		t.Fatalf("addToCart: got %+v, want the cart of 2 and its message", d)
	}
	alice.visit("/products/canvas-tote") // the reload
	alice.see(".main-nav", "Cart (2)")
	alice.visit("/cart")
	alice.see("table.lines tbody", "Canvas Tote", "Natural")
	alice.see("table.lines tfoot", "2 items", "$36.00")

	// The checkout: the agent chooses the address and the card; placing the
	// order only asks.
	alice.visit("/checkout/shipping")
	addresses, _ := graphAsX(t, srv, alice).Entities["addresses"].([]any)
	if len(addresses) < 2 {
		t.Fatalf("alice has %d addresses, want two to choose from", len(addresses))
	}
	address := obj(addresses, 1, "id").(string)
	if d := alice.execute("chooseAddress", map[string]any{"address": address}); !d.OK || d.Redirect != "/checkout/payment" {
		t.Fatalf("chooseAddress: got %+v", d)
	}
	alice.visit("/checkout/payment")
	if d := alice.execute("choosePayment", map[string]any{"card": "1881"}); !d.OK || d.Redirect != "/checkout" {
		t.Fatalf("choosePayment: got %+v", d)
	}
	alice.visit("/checkout")
	alice.see("main", "1881")
	_, asked, _ := newAgent(t, srv, s.Token()).call("/checkout", "placeOrder", nil, false)
	if asked.Error == nil || !strings.Contains(asked.Error.Message, "Place order: 2 × Canvas Tote (Natural) $36.00; total $36.00") {
		t.Fatalf("placeOrder unconfirmed over HTTP: got %+v, want the summary", asked.Error)
	}
	d = alice.execute("placeOrder", map[string]any{})
	if d.OK || d.Error == nil || d.Error.Code != affordances.ConfirmRequired || d.Error.Message != asked.Error.Message {
		t.Errorf("placeOrder by the tool: got %+v, want confirm_required with the site's summary %q", d.Error, asked.Error.Message)
	}
	if !strings.Contains(d.Error.Message, "card ending 1881") {
		t.Errorf("placeOrder's summary %q does not name the card chosen", d.Error.Message)
	}
	if q, orders, err := s.OrderedForTest(ctx, "TOTE-NAT"); err != nil || orders != 0 {
		t.Errorf("after placeOrder's tool: %d orders hold %d totes (%v), want none", orders, q, err)
	}
	if n, err := s.CartCountForTest(ctx, shop.DemoEmail); err != nil || n != 2 {
		t.Errorf("after placeOrder's tool alice's cart holds %d items (%v), want 2", n, err)
	}
	alice.visit("/checkout")
	alice.see("table.lines tfoot", "2 items", "$36.00")
	alice.visit("/orders")
	alice.see("main", "You have not placed an order yet.")

	// The last line goes: the cart's tools go with it.
	alice.visit("/cart")
	if got := alice.toolNames(); !slices.Equal(got, []string{"removeFromCart", "updateQuantity"}) {
		t.Fatalf("the cart's tools: got %q, want removeFromCart and updateQuantity", got)
	}
	d = alice.execute("removeFromCart", map[string]any{"sku": "TOTE-NAT"})
	if !d.OK || len(d.ActionsAdded) != 2 {
		t.Fatalf("removeFromCart: got %+v, want both cart actions unavailable", d)
	}
	for _, a := range d.ActionsAdded {
		if a.Available {
			t.Errorf("after the last line went, %s is still available", a.Name)
		}
	}
	if got := alice.toolNames(); len(got) != 0 {
		t.Errorf("after removing the last line the tools are %q, want none", got)
	}
	alice.visit("/cart")
	alice.see(".main-nav", "Cart (0)")
	if got := alice.toolNames(); len(got) != 0 {
		t.Errorf("the empty cart's tools: got %q, want none", got)
	}
	// Chromium logs every answer of a fetch that is not a success, so
	// placeOrder's 428 is there, and nothing else.
	lines, err := alice.p.ConsoleNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if l != "error: Failed to load resource: the server responded with a status of 428 (Precondition Required)" {
			t.Errorf("alice's console says %q", l)
		}
	}
}

// TestWebMCPOtherOrigin: alice, signed in, opens a page of another origin
// (another loopback port). Its agent finds no tool there, cannot run the
// shop's, and its cross-origin call to the shop with alice's cookie is
// stopped by CORS at the preflight: the shop never receives it, and her
// cart is as it was.
func TestWebMCPOtherOrigin(t *testing.T) {
	demotest.Parallel(t)
	b := startWebMCP(t)
	rec := &shopRecorder{}
	s, srv := demotest.Shop(t, &shop.Options{DemoToken: demoToken}, func(h http.Handler) http.Handler { rec.next = h; return rec })
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html lang=en><title>Win a prize</title><h1>Win a prize</h1>`))
	}))
	t.Cleanup(attacker.Close)
	ctx := t.Context()

	alice := newPerson(t, b, srv, "alice")
	alice.signInByForm(shop.DemoEmail, shop.DemoPassword)
	alice.visit("/products/canvas-tote")
	if got := alice.toolNames(); !slices.Contains(got, "addToCart") {
		t.Fatalf("the product page's tools: got %q, want addToCart", got)
	}
	if _, err := alice.p.Navigate(ctx, attacker.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if got := alice.toolNames(); len(got) != 0 {
		t.Errorf("the other origin's page lists the tools %q, want none", got)
	}
	if out, err := alice.p.ExecuteTool(ctx, "addToCart", map[string]any{"sku": "TOTE-NAT"}); err == nil {
		t.Errorf("the other origin ran the shop's addToCart: %s", out)
	}
	var result string
	err := alice.p.Eval(ctx, `fetch(`+jsString(srv.URL+"/products/canvas-tote")+`, {method: "POST", credentials: "include",
  headers: {"Content-Type": "application/vnd.affordances+json", "Accept": "application/vnd.affordances+json"},
  body: JSON.stringify({action: "addToCart", input: {sku: "TOTE-NAT"}})}).then(r => "answered " + r.status, e => "refused: " + e.message)`, &result)
	if err != nil || !strings.HasPrefix(result, "refused") {
		t.Errorf("a cross-origin call with alice's cookie: got %q (%v), want CORS to refuse it", result, err)
	}
	for _, r := range rec.from(attacker.URL) {
		t.Logf("the shop received from the other origin: %s %s and answered %d", r.Method, r.Path, r.Status)
		if r.Method != http.MethodOptions || r.AllowOrigin != "" {
			t.Errorf("from the other origin the shop received %s %s and answered %d allowing %q; want only a preflight, refused", r.Method, r.Path, r.Status, r.AllowOrigin)
		}
	}
	if n, err := s.CartCountForTest(ctx, shop.DemoEmail); err != nil || n != 0 {
		t.Errorf("after the other origin's tries alice's cart holds %d items (%v), want 0", n, err)
	}
}

// jsString returns s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestPagesLogNoErrors: in Chromium without WebMCP, where the library's
// script finds nothing to register with, every page loads, for a visitor,
// a customer and the admin, and none logs an error or an exception.
func TestPagesLogNoErrors(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	s, srv := newShop(t)
	bot := newAgent(t, srv, s.Token())
	bot.call("/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"}, false)
	_, d, _ := bot.call("/checkout", "placeOrder", nil, true)
	for _, who := range []struct {
		name, email, password string
		pages                 []string
	}{
		{"a visitor", "", "", shopPages},
		{"alice", shop.DemoEmail, shop.DemoPassword, append(slices.Clone(shopPages), d.Redirect)},
		{"the admin", shop.AdminEmail, shop.AdminPassword, adminPaths},
	} {
		x := newPerson(t, b, srv, who.name)
		if who.email != "" {
			x.signInByForm(who.email, who.password)
		}
		seen := 0
		for _, path := range who.pages {
			x.visit(path)
			seen = checkConsole(t, x, seen)
		}
		for _, l := range x.p.Console() {
			t.Logf("%s's console: %s", who.name, l)
		}
	}
}

// TestWebMCPDeclarative: where the library's script does not run (here
// the shop does not serve it), the forms a person fills are the same
// tools, declared by their attributes (toolname, tooldescription,
// toolparamdescription): one per form of an available action, never one
// per item, with the action's name and description, and each field an
// input property of the action.
func TestWebMCPDeclarative(t *testing.T) {
	demotest.Parallel(t)
	b := startWebMCP(t)
	s, srv := demotest.Shop(t, &shop.Options{DemoToken: demoToken}, func(withoutScript http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == affordances.WebMCPScriptPath {
				http.NotFound(w, r)
				return
			}
			withoutScript.ServeHTTP(w, r)
		})
	})
	bot := newAgent(t, srv, s.Token())
	if status, d, _ := bot.call("/products/stoneware-mug", "addToCart", map[string]any{"sku": "MUG-CRM"}, false); status != http.StatusOK || !d.OK {
		t.Fatalf("addToCart: %d %+v", status, d.Error)
	}

	for _, who := range []struct {
		name, email, password string
		pages                 map[string][]string // path: the declarative tools
	}{
		{"a visitor", "", "", map[string][]string{
			"/": {"search"}, "/login": {"signIn"}, "/signup": {"signUp"}, "/products/canvas-tote": nil,
		}},
		{"alice", shop.DemoEmail, shop.DemoPassword, map[string][]string{
			"/products/canvas-tote": {"addToCart", "writeReview"},
			"/cart":                 nil, // one form per line
			"/checkout/shipping":    {"chooseAddress"},
			"/checkout/payment":     {"choosePayment"},
			"/checkout":             nil, // placeOrder has nothing to fill
			"/account":              {"addAddress", "updateProfile"},
			"/account/tokens":       {"createToken"},
		}},
		{"the admin", shop.AdminEmail, shop.AdminPassword, map[string][]string{
			"/admin": {"setPrice", "setStock"}, "/admin/users": nil,
		}},
	} {
		x := newPerson(t, b, srv, who.name)
		if who.email != "" {
			x.signInByForm(who.email, who.password)
		}
		for path, want := range who.pages {
			x.visit(path)
			g := graphAsX(t, srv, x)
			tools := x.tools()
			if got := x.toolNames(); !slices.Equal(got, want) {
				t.Errorf("%s on %s: the declarative tools are %q, want %q", who.name, path, got, want)
			}
			for name, tool := range tools {
				a := descriptor(g.Actions, name)
				if a == nil || !a.Available {
					t.Errorf("%s: the form of %s is a tool, but the action is not available", path, name)
					continue
				}
				if tool.Description != a.Description {
					t.Errorf("%s: the form of %s says %q, want the action's %q", path, name, tool.Description, a.Description)
				}
				type property struct {
					Description string
					AnyOf       []struct{ Const, Title string } // a choice's options (Chromium 150 and later)
				}
				var in, form struct{ Properties map[string]property }
				json.Unmarshal(a.Input, &in)
				json.Unmarshal(tool.InputSchema, &form)
				for field, p := range form.Properties {
					declared, ok := in.Properties[field]
					if !ok {
						t.Errorf("%s: the form of %s has the field %s, which is no input of the action", path, name, field)
						continue
					}
					// A choice (radio buttons, a select) the browser
					// describes by its options, each by its label; another
					// field by the description in the schema or, without
					// one, by its label.
					if len(p.AnyOf) > 0 {
						if i := slices.IndexFunc(p.AnyOf, func(o struct{ Const, Title string }) bool { return o.Title == "" }); i >= 0 {
							t.Errorf("%s: the form of %s offers %s as %+v, want each option with its label", path, name, field, p.AnyOf)
						}
					} else if want := declared.Description; (want != "" && p.Description != want) || p.Description == "" {
						t.Errorf("%s: the form of %s describes %s as %q, want %q or, without one, its label", path, name, field, p.Description, want)
					}
				}
			}
		}
	}
}

// A webmcpTool is a tool of a page's WebMCP data block, as Page.Head
// writes it (docs/protocol.md decision 12).
type webmcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations webmcpHints     `json:"annotations"`
	Available   bool            `json:"available"`
}

// webmcpHints are a tool's annotations.
type webmcpHints struct {
	ReadOnlyHint         bool `json:"readOnlyHint"`
	ConsequentialHint    bool `json:"consequentialHint"`
	UntrustedContentHint bool `json:"untrustedContentHint"`
}
