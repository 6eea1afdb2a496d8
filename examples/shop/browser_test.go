package shop_test

// Tests in real Chromium (internal/browser): a person's journey through the
// shop, what the browser is sent, forged calls from another origin, and the
// screenshots of the README. Without Chromium they skip; under make check
// (AFFORDANCES_CHECK) they fail instead.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/demotest"
)

var screenshotsDir = flag.String("screenshots", "", "TestScreenshots writes its PNGs to this `directory` (make screenshots: docs/screenshots)")

// A person is someone using the shop in a browser tab of their own. Each
// method does what they would do and fails the test when they could not.
type person struct {
	t    *testing.T
	name string
	p    *browser.Page
	base string // the shop's URL
}

func newPerson(t *testing.T, b *browser.Browser, srv *httptest.Server, name string) *person {
	t.Helper()
	p, err := b.NewPage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return &person{t: t, name: name, p: p, base: srv.URL}
}

// visit loads a page of the shop, which must answer 200.
func (x *person) visit(path string) {
	x.t.Helper()
	resp, err := x.p.Navigate(x.t.Context(), x.base+path)
	if err != nil {
		x.t.Fatalf("%s visits %s: %v", x.name, path, err)
	}
	if resp.Status != http.StatusOK {
		x.t.Fatalf("%s visits %s: got status %d, want 200", x.name, path, resp.Status)
	}
}

// click clicks what selector finds; when that loads a page, it must be a
// 200.
func (x *person) click(selector string) {
	x.t.Helper()
	resp, err := x.p.Click(x.t.Context(), selector)
	if err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
	if resp != nil && resp.Status != http.StatusOK {
		x.t.Fatalf("%s clicks %s on %s: got status %d, want 200", x.name, selector, x.path(), resp.Status)
	}
}

// perform uses the affordance id of the page's AAL fragment, as a person
// would use the element it names, and waits for the page that loads. It
// returns the affordance.
func (x *person) perform(id string) aal.Affordance {
	x.t.Helper()
	f, err := x.p.Fragment(x.t.Context())
	if err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
	i := slices.IndexFunc(f.Affordances, func(a aal.Affordance) bool { return a.ID == id })
	if i < 0 {
		x.t.Fatalf("%s on %s: the page's AAL fragment has no %q", x.name, x.path(), id)
	}
	x.performAgain(f.Affordances[i])
	return f.Affordances[i]
}

// performOn uses the affordance id of the page's AAL fragment on the item
// input picks, among the elements of one per item (docs/protocol.md decision 11), and
// waits for the page that loads.
func (x *person) performOn(id string, input map[string]any) {
	x.t.Helper()
	f, err := x.p.Fragment(x.t.Context())
	if err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
	i := slices.IndexFunc(f.Affordances, func(a aal.Affordance) bool { return a.ID == id })
	if i < 0 {
		x.t.Fatalf("%s on %s: the page's AAL fragment has no %q", x.name, x.path(), id)
	}
	resp, err := x.p.PerformInput(x.t.Context(), f.Affordances[i], input)
	if err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
	if resp == nil || resp.Status != http.StatusOK {
		x.t.Fatalf("%s performs %s on %s: got %+v, want a page that answers 200", x.name, id, x.path(), resp)
	}
}

// confirmButton is the button of a confirmation page: it carries no
// data-aal, so no agent operating the page finds its action there.
const confirmButton = "form:has(input[name=_confirm]) button"

// performAgain uses an affordance of an earlier page on this one: the
// answer to a form post, such as a confirmation, inlines no fragment of
// its own.
func (x *person) performAgain(a aal.Affordance) {
	x.t.Helper()
	resp, err := x.p.Perform(x.t.Context(), a)
	if err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
	if resp == nil || resp.Status != http.StatusOK {
		x.t.Fatalf("%s performs %s on %s: got %+v, want a page that answers 200", x.name, a.ID, x.path(), resp)
	}
}

func (x *person) fill(label, value string) {
	x.t.Helper()
	if err := x.p.FillLabel(x.t.Context(), label, value); err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
}

func (x *person) check(selector string) {
	x.t.Helper()
	if err := x.p.Check(x.t.Context(), selector); err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
}

// text returns what the person reads in the one element selector finds,
// whitespace collapsed.
func (x *person) text(selector string) string {
	x.t.Helper()
	s, err := x.p.Text(x.t.Context(), selector)
	if err != nil {
		x.t.Fatalf("%s on %s: %v", x.name, x.path(), err)
	}
	return strings.Join(strings.Fields(s), " ")
}

// see checks that the element selector finds reads want.
func (x *person) see(selector string, want ...string) {
	x.t.Helper()
	got := x.text(selector)
	for _, w := range want {
		if !strings.Contains(got, w) {
			x.t.Errorf("%s on %s: %s reads %q, want it to say %q", x.name, x.path(), selector, got, w)
		}
	}
}

func (x *person) count(selector string) int {
	x.t.Helper()
	n, err := x.p.Count(x.t.Context(), selector)
	if err != nil {
		x.t.Fatal(err)
	}
	return n
}

// path returns the path and query of the page the person is on.
func (x *person) path() string {
	u, err := x.p.URL(x.t.Context())
	if err != nil {
		return "?"
	}
	return strings.TrimPrefix(u, x.base)
}

// at checks the person is on path (a regexp of path and query).
func (x *person) at(pattern string) string {
	x.t.Helper()
	p := x.path()
	if !regexp.MustCompile(`^` + pattern + `$`).MatchString(p) {
		x.t.Fatalf("%s is on %s, want %s", x.name, p, pattern)
	}
	return p
}

// accessible checks the page as assistive technology reads it: one main
// landmark, headings from h1 down without skipping a level, and a name on
// every control and link.
func (x *person) accessible() {
	x.t.Helper()
	nodes, err := x.p.Accessibility(x.t.Context())
	if err != nil {
		x.t.Fatal(err)
	}
	where := x.path()
	mains, last := 0, 0
	for _, n := range nodes {
		switch n.Role {
		case "main":
			mains++
		case "heading":
			if last == 0 && n.Level != 1 {
				x.t.Errorf("%s: the first heading %q is h%d, want h1", where, n.Name, n.Level)
			}
			if last > 0 && n.Level > last+1 {
				x.t.Errorf("%s: heading %q is h%d after an h%d", where, n.Name, n.Level, last)
			}
			last = n.Level
		case "button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio", "spinbutton", "listbox":
			if strings.TrimSpace(n.Name) == "" {
				x.t.Errorf("%s: a %s has no accessible name", where, n.Role)
			}
		}
	}
	if mains != 1 {
		x.t.Errorf("%s: %d main landmarks, want 1", where, mains)
	}
}

// sessionCookie returns the person's session cookie, as their browser
// holds it.
func (x *person) sessionCookie() *http.Cookie {
	x.t.Helper()
	cs, err := x.p.Cookies(x.t.Context(), x.base)
	if err != nil {
		x.t.Fatal(err)
	}
	for _, c := range cs {
		if c.Name == "sid" {
			return c
		}
	}
	x.t.Fatalf("%s's browser holds no session cookie", x.name)
	return nil
}

// checkSentHTML checks what Chromium received from the shop on the page,
// from its network events: never an Affordances document, HTML for every
// document, CSS for the stylesheet; and every page that links its graph
// says it varies by Accept, so no cache hands one to the other. It returns
// the paths of the documents that answered 200.
func checkSentHTML(t *testing.T, x *person) []string {
	t.Helper()
	var docs []string
	for _, r := range x.p.Responses() {
		if !strings.HasPrefix(r.URL, x.base+"/") {
			continue
		}
		path := strings.TrimPrefix(r.URL, x.base)
		ct := strings.ToLower(r.ContentType)
		if strings.Contains(ct, affordances.MediaType) || strings.Contains(ct, aal.MediaType) || strings.Contains(ct, "json") {
			t.Errorf("%s's browser received %s as %q: a browser must never get an Affordances document", x.name, path, r.ContentType)
			continue
		}
		want := map[string]string{"Document": "text/html", "Stylesheet": "text/css", "Image": "image/png"}[r.Type]
		if want != "" && !strings.HasPrefix(ct, want) {
			t.Errorf("%s's browser received the %s %s as %q, want %s", x.name, strings.ToLower(r.Type), path, r.ContentType, want)
		}
		if r.Type == "Document" && strings.Contains(r.Header.Get("Link"), `rel="affordances"`) &&
			!slices.ContainsFunc(r.Header.Values("Vary"), func(v string) bool { return strings.Contains(strings.ToLower(v), "accept") }) {
			t.Errorf("%s: the page links its graph but its Vary is %q, want Accept in it", path, r.Header.Values("Vary"))
		}
		if r.Type == "Document" && r.Status == http.StatusOK && !slices.Contains(docs, path) {
			docs = append(docs, path)
		}
	}
	return docs
}

// checkAgentGetsGraphs GETs each path as an agent with the person's
// session, after the browser visited it: the same URL answers the graph.
func checkAgentGetsGraphs(t *testing.T, srv *httptest.Server, x *person, paths []string) {
	t.Helper()
	a := newAgent(t, srv, "")
	cookie := x.sessionCookie()
	for _, path := range paths {
		if strings.Contains(path, "affordances=") {
			continue
		}
		resp, body := a.do(http.MethodGet, path, http.Header{"Accept": {affordances.MediaType}, "Cookie": {cookie.Name + "=" + cookie.Value}}, nil)
		if resp == nil {
			continue
		}
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != affordances.MediaType {
			t.Errorf("agent GET %s after the browser's visit: got %d %q, want 200 and the graph", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		checkDocument(t, "graph", body)
	}
}

// TestBrowserJourney: a person signs up, signs out and in again, searches,
// adds two products, changes a quantity on its line of the cart, checks
// out through every step (cart, shipping, payment, review, the
// confirmation of the order), sees the order in their history, cancels it
// and sees the stock back, reviews a product; an admin changes a price and
// the person sees it. Actions are used through the page's AAL fragment
// (browser.Page.Perform, PerformInput for one of a line's buttons), and
// every page is checked for its landmarks, headings and names as a screen
// reader reads them. Every step is checked on the rendered page, never in
// the database. Then: Chromium never received an Affordances document, and
// the same URLs answer an agent with the graph.
func TestBrowserJourney(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	_, srv := newShop(t)
	sam := newPerson(t, b, srv, "sam")
	const email, password = "sam@example.com", "correct horse battery"

	// Sign up, sign out, sign in.
	sam.visit("/")
	sam.click(`.main-nav a[href="/signup"]`)
	sam.at("/signup")
	sam.accessible()
	sam.fill("Name", "Sam Vimes")
	sam.fill("Email", email)
	sam.fill("Password", password)
	sam.perform("sign-up")
	if n := sam.count(`.main-nav a[title="Signed in as ` + email + `"]`); n != 1 {
		t.Fatalf("after signing up, the header does not say sam is signed in (%s)", sam.text(".main-nav"))
	}
	sam.click(`.main-nav form button`)
	sam.see(".flash", "Signed out.")
	sam.see(".main-nav", "Sign in")
	sam.visit("/login")
	sam.accessible()
	sam.fill("Email", email)
	sam.fill("Password", password)
	sam.perform("sign-in")
	sam.see(".flash", "Signed in as "+email)
	sam.see(".main-nav", "Cart (0)", "Sign out")

	// Search, and open a result.
	sam.visit("/")
	sam.accessible()
	sam.fill("Search the catalog", "tote")
	sam.perform("search")
	sam.at(`/\?q=tote`)
	sam.see("h1", "Results for “tote”")
	sam.see(".grid", "Canvas Tote", "$18.00")
	sam.click(`.grid a[href="/products/canvas-tote"]`)
	sam.at("/products/canvas-tote")
	sam.accessible()
	sam.see("h1", "Canvas Tote")
	sam.see(`label.variant:has(input[value="TOTE-NAT"]) .stock`, "4 left")

	// Two products in the cart.
	sam.fill("Quantity", "1")
	sam.perform("add-to-cart")
	sam.see(".flash", "Canvas Tote")
	sam.see(".main-nav", "Cart (1)")
	sam.click(`.main-nav a[href="/"]`)
	sam.click(`.chips a[href="/?category=home"]`)
	sam.see("h1", "Home")
	sam.click(`.grid a[href="/products/stoneware-mug"]`)
	sam.check(`input[name="sku"][value="MUG-SLT"]`)
	sam.fill("Quantity", "2")
	sam.perform("add-to-cart")
	sam.see(".flash", "Stoneware Mug")
	sam.see(".main-nav", "Cart (3)")

	// The checkout, step by step.
	sam.click(`.main-nav a[href="/cart"]`)
	sam.at("/cart")
	sam.accessible()
	sam.see(`.steps [aria-current="step"]`, "Cart")
	sam.see("table.lines tbody", "Canvas Tote", "Stoneware Mug", "Slate")
	sam.see("table.lines tfoot", "3 items", "$50.00")
	sam.fill("Quantity of Stoneware Mug, Slate", "3") // each line has its form
	sam.performOn("update-quantity", map[string]any{"sku": "MUG-SLT"})
	sam.at("/cart")
	sam.see(".flash", "Stoneware Mug (Slate): quantity 3.")
	sam.see("table.lines tfoot", "4 items", "$66.00")
	sam.fill("Quantity of Stoneware Mug, Slate", "2")
	sam.performOn("update-quantity", map[string]any{"sku": "MUG-SLT"})
	sam.see("table.lines tfoot", "3 items", "$50.00")
	sam.click(`.flow-nav a[href="/checkout/shipping"]`)
	sam.at("/checkout/shipping")
	sam.accessible()
	sam.see(`.steps [aria-current="step"]`, "Shipping")
	if sam.count(`input[name="address"]:checked`) == 0 {
		sam.check(`fieldset.options label:first-of-type input[name="address"]`)
	}
	sam.perform("choose-address")
	sam.at("/checkout/payment")
	sam.accessible()
	sam.see(`.steps [aria-current="step"]`, "Payment")
	if sam.count(`input[name="card"]:checked`) == 0 {
		sam.check(`input[name="card"][value="4242"]`)
	}
	sam.perform("choose-payment")
	sam.at("/checkout")
	sam.accessible()
	sam.see(`.steps [aria-current="step"]`, "Review")
	sam.see("h1", "Review your order")
	sam.see("table.lines", "Canvas Tote", "Stoneware Mug", "$50.00")
	sam.see("main", "4242")
	placeOrder := sam.perform("place-order")
	sam.see("h1", "Confirm your order")
	if n := sam.count(`[data-aal="` + placeOrder.ID + `"]`); n != 0 {
		t.Errorf("the confirmation page carries %d elements of %s: an agent running it again would confirm", n, placeOrder.ID)
	}
	sam.see(".summary", "Place order: ", "Canvas Tote", "Stoneware Mug", "; total $50.00, card ending 4242, ship to ")
	sam.accessible()
	sam.click(confirmButton) // the person confirms: the page's own button, no affordance of the action
	order := sam.at(`/orders/[A-Za-z0-9_-]+`)
	sam.accessible()
	sam.see("h1", "Order")
	sam.see("main", "Canvas Tote", "Stoneware Mug", "$50.00")
	sam.see(".main-nav", "Cart (0)")
	sam.visit("/products/canvas-tote")
	sam.see(`label.variant:has(input[value="TOTE-NAT"]) .stock`, "3 left")

	// The order, from the history.
	sam.click(`.main-nav a[href="/orders"]`)
	sam.at("/orders")
	sam.accessible()
	sam.see("main", strings.TrimPrefix(order, "/orders/"), "$50.00")
	sam.click(`main a[href="` + order + `"]`)
	sam.at(order)

	// Cancel it; the stock is back.
	sam.perform("cancel-order")
	if !strings.HasPrefix(sam.path(), order) && sam.count(confirmButton) > 0 {
		sam.click(confirmButton) // a confirmation page
	}
	sam.at(order)
	sam.see("main", "Cancelled")
	sam.visit("/products/canvas-tote")
	sam.see(`label.variant:has(input[value="TOTE-NAT"]) .stock`, "4 left")
	sam.visit("/products/stoneware-mug")
	sam.see(`label.variant:has(input[value="MUG-SLT"]) .stock`, "10 left")

	// A review of the mug, shown on its page.
	sam.fill("Rating", "4")
	sam.fill("Your review", "Holds a proper amount of tea.")
	sam.perform("write-review")
	sam.at(`/products/stoneware-mug(#reviews)?`)
	sam.see("#reviews", "Holds a proper amount of tea.", "Sam")

	// An admin changes a price; the customer sees it.
	admin := newPerson(t, b, srv, "the admin")
	admin.visit("/login")
	admin.fill("Email", shop.AdminEmail)
	admin.fill("Password", shop.AdminPassword)
	admin.perform("sign-in")
	admin.click(`.main-nav a[href="/admin"]`)
	admin.at("/admin")
	admin.accessible()
	for range 5 { // the admin pages through the products to the tote
		if admin.count(`select[name="slug"] option[value="canvas-tote"]`) > 0 {
			break
		}
		admin.click(`.pager a:last-child`)
	}
	admin.fill("Product", "canvas-tote")
	admin.fill("New price in dollars", "21.50")
	admin.perform("set-price")
	if admin.count(".flash.ok") != 1 {
		t.Fatalf("setting the price: the admin reads %q", admin.text("main"))
	}
	admin.see("main", "$21.50")
	sam.visit("/products/canvas-tote")
	sam.see(".price", "$21.50")
	sam.visit("/?q=tote")
	sam.see(".grid", "$21.50")
	checkSentHTML(t, admin)

	// What the browser got, and what an agent gets at the same URLs.
	docs := checkSentHTML(t, sam)
	for _, want := range []string{"/", "/?q=tote", "/products/canvas-tote", "/cart", "/checkout/shipping", "/checkout/payment", "/checkout", order} {
		if !slices.Contains(docs, want) {
			t.Errorf("the journey never loaded %s in the browser (loaded: %q)", want, docs)
		}
	}
	checkAgentGetsGraphs(t, srv, sam, docs)
	// After the agent's visits, the browser still gets the pages as HTML.
	for _, path := range []string{"/", "/products/canvas-tote", "/cart"} {
		sam.visit(path)
		sam.see("footer", "graph")
	}
	checkSentHTML(t, sam)
}

// A request the shop received, as the forgery test records it.
type received struct {
	Method, Path, Origin, ContentType string
	Status                            int
	AllowOrigin                       string // Access-Control-Allow-Origin of the answer
}

type shopRecorder struct {
	next http.Handler
	mu   sync.Mutex
	seen []received
}

type recordingWriter struct {
	http.ResponseWriter
	status int
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (rec *shopRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &recordingWriter{ResponseWriter: w}
	rec.next.ServeHTTP(sw, r)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.seen = append(rec.seen, received{r.Method, r.URL.Path, r.Header.Get("Origin"), r.Header.Get("Content-Type"), sw.status, w.Header().Get("Access-Control-Allow-Origin")})
}

func (rec *shopRecorder) from(origin string) []received {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []received
	for _, r := range rec.seen {
		if r.Origin == origin {
			out = append(out, r)
		}
	}
	return out
}

// TestBrowserForgery: alice is signed in (a cookie session in her
// browser) and visits a page on another origin, a second loopback port.
// Its script and its forms try to add to her cart: a CORS fetch of an
// Affordances call with her cookie, no-cors fetches, a text/plain form
// crafted to read as JSON, an ordinary form. The shop refuses each: no
// CORS preflight is allowed; what the no-cors fetches and the text/plain
// form send is neither a call nor a form, 400; the ordinary form runs
// addToCart's form binding, whose origin rule refuses it, 403. Alice sees
// a page saying nothing changed, and her cart is unchanged.
func TestBrowserForgery(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	rec := &shopRecorder{}
	_, srv := demotest.Shop(t, &shop.Options{DemoToken: demoToken}, func(h http.Handler) http.Handler { rec.next = h; return rec })

	call := `{"action":"addToCart","input":{"sku":"TOTE-NAT","quantity":1}}`
	target := srv.URL + "/products/canvas-tote"
	evil := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><html lang=en><title>Win a prize</title><body>%s</body></html>", body)
		}
	}
	js := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	evil.HandleFunc("GET /fetch", page(`<p id="result">running</p><script>
const target = `+js(target)+`, call = `+js(call)+`;
const tries = [
  ["cors", {method: "POST", credentials: "include", headers: {"Content-Type": "application/vnd.affordances+json"}, body: call}],
  ["no-cors", {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "application/vnd.affordances+json"}, body: call}],
  ["text", {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: call}],
];
(async () => {
  const out = [];
  for (const [name, init] of tries) {
    try { const r = await fetch(target, init); out.push(name + ":" + (r.type === "opaque" ? "opaque" : r.status)); }
    catch (e) { out.push(name + ":blocked"); }
  }
  document.getElementById("result").textContent = "done " + out.join(" ");
})();
</script>`))
	// A text/plain form whose one field's name and value join, with the
	// "=" between them, into the JSON of a call.
	name, value, _ := strings.Cut(strings.TrimSuffix(call, "}")+`,"pad":"=x"}`, "=")
	evil.HandleFunc("GET /form-json", page(`<form method="post" enctype="text/plain" action="`+target+`">
<input type="hidden" name='`+name+`' value='`+value+`'></form><script>document.forms[0].submit()</script>`))
	evil.HandleFunc("GET /form", page(`<form method="post" action="`+target+`">
<input type="hidden" name="_action" value="addToCart"><input type="hidden" name="sku" value="TOTE-NAT"><input type="hidden" name="quantity" value="1">
</form><script>document.forms[0].submit()</script>`))
	attacker := httptest.NewServer(evil)
	t.Cleanup(attacker.Close)

	alice := newPerson(t, b, srv, "alice")
	alice.visit("/login")
	alice.fill("Email", shop.DemoEmail)
	alice.fill("Password", shop.DemoPassword)
	alice.perform("sign-in")
	alice.see(".main-nav", "Cart (0)")
	cartCount := func() int {
		c := alice.sessionCookie()
		resp, body := newAgent(t, srv, "").do(http.MethodGet, "/cart", http.Header{"Accept": {affordances.MediaType}, "Cookie": {c.Name + "=" + c.Value}}, nil)
		if resp == nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("alice's cart as an agent: %v", resp)
		}
		var g affordances.Graph
		json.Unmarshal(body, &g)
		return num(obj(asMap(g.Entities), "cart", "count"))
	}
	if n := cartCount(); n != 0 {
		t.Fatalf("alice's cart holds %d items before the attack, want 0", n)
	}

	ctx := t.Context()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("waited 10s for %s; alice is on %s", what, alice.path())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if _, err := alice.p.Navigate(ctx, attacker.URL+"/fetch"); err != nil {
		t.Fatal(err)
	}
	var result string
	waitFor("the attacker's fetches", func() bool {
		result, _ = alice.p.Text(ctx, "#result")
		return strings.HasPrefix(result, "done")
	})
	if !strings.Contains(result, "cors:blocked") {
		t.Errorf("the CORS fetch of a forged call: the attacker's script read %q, want it blocked", result)
	}
	for _, form := range []struct{ path, selector, says string }{
		{"/form-json", "h1", "Bad request"},
		{"/form", ".flash.err", "This form was posted from another site, so it was refused."},
	} {
		if _, err := alice.p.Navigate(ctx, attacker.URL+form.path); err != nil {
			t.Fatal(err)
		}
		waitFor("the refusal of "+form.path, func() bool {
			got, err := alice.p.Text(ctx, form.selector)
			return err == nil && strings.HasPrefix(alice.path(), "/products/") && strings.Contains(got, form.says)
		})
		alice.see("main", "Nothing changed")
	}

	seen := rec.from(attacker.URL)
	posts := 0
	for _, r := range seen {
		t.Logf("the shop received from the attacker's page: %s %s (%s) and answered %d", r.Method, r.Path, r.ContentType, r.Status)
		if r.AllowOrigin != "" {
			t.Errorf("%s %s from the attacker: the shop allowed the origin %q", r.Method, r.Path, r.AllowOrigin)
		}
		if r.Method == http.MethodPost {
			posts++
			want := http.StatusBadRequest // neither a call nor a form
			if strings.HasPrefix(r.ContentType, "application/x-www-form-urlencoded") {
				want = http.StatusForbidden // the form binding's origin rule
			}
			if r.Status != want {
				t.Errorf("POST %s from the attacker (%s): got %d, want %d", r.Path, r.ContentType, r.Status, want)
			}
			if strings.HasPrefix(r.ContentType, affordances.MediaType) {
				t.Errorf("an Affordances call from the attacker reached the shop: CORS should have stopped it at the preflight")
			}
		}
	}
	if posts < 3 {
		t.Errorf("the shop received %d POSTs from the attacker, want at least 3 (two no-cors fetches, two forms)", posts)
	}
	if n := cartCount(); n != 0 {
		t.Errorf("after the attack alice's cart holds %d items, want 0", n)
	}
	alice.visit("/cart")
	alice.see(".main-nav", "Cart (0)")
	checkSentHTML(t, alice)
}

// The pages of the README's screenshots: name, who is signed in, path.
var screenshotPages = []struct{ name, who, path string }{
	{"catalog", "alice", "/"},
	{"product", "alice", "/products/merino-crew"},
	{"cart", "alice", "/cart"},
	{"checkout", "alice", "/checkout"},
	{"order", "alice", "{order}"},
	{"orders", "alice", "/orders"},
	{"account", "alice", "/account"},
	{"signup", "", "/signup"},
	{"admin", "admin", "/admin"},
}

// More pages TestScreenshots checks at both widths, without a screenshot:
// the other tables that turn into cards on a phone.
var widthPages = []struct{ who, path string }{
	{"alice", "/account/tokens"},
	{"admin", "/admin/users"},
}

// The two widths of the screenshots: a desktop and a phone.
var screenshotSizes = []struct {
	name          string
	width, height int
}{{"desktop", 1280, 900}, {"phone", 390, 844}}

// TestScreenshots takes the README's screenshots of the main pages, at a
// desktop and a phone width, of a fresh demo where alice has an order and
// a cart: `make screenshots` writes them to docs/screenshots (the
// -screenshots flag). Without the flag it checks them and writes nothing.
// Either way, no page, nor any of widthPages, is wider than the phone. On
// a phone a table scrolls nothing sideways inside (its rows are cards, see
// static/shop.css), so a cell that does not fit widens the page and fails
// this too.
func TestScreenshots(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	s, srv := newShop(t)

	// alice orders a tote and a mug, then fills her cart again.
	bot := newAgent(t, srv, s.Token())
	for _, add := range []struct {
		slug, sku string
		qty       int
	}{{"canvas-tote", "TOTE-NAT", 1}, {"stoneware-mug", "MUG-CRM", 2}} {
		if status, d, _ := bot.call("/products/"+add.slug, "addToCart", map[string]any{"sku": add.sku, "quantity": add.qty}, false); status != http.StatusOK || !d.OK {
			t.Fatalf("addToCart %s: %d %+v", add.sku, status, d.Error)
		}
	}
	status, d, _ := bot.call("/checkout", "placeOrder", nil, true)
	if status != http.StatusOK || !d.OK || !strings.HasPrefix(d.Redirect, "/orders/") {
		t.Fatalf("placeOrder: %d %+v", status, d)
	}
	order := d.Redirect
	for _, add := range []struct {
		slug, sku string
		qty       int
	}{{"merino-crew", "MCS-OAT-M", 1}, {"fisherman-beanie", "FBN-RST-OS", 2}, {"linen-tea-towel", "TWL-STR", 1}} {
		if status, d, _ := bot.call("/products/"+add.slug, "addToCart", map[string]any{"sku": add.sku, "quantity": add.qty}, false); status != http.StatusOK || !d.OK {
			t.Fatalf("addToCart %s: %d %+v", add.sku, status, d.Error)
		}
	}

	// Each person's browser gets a session cookie of the signIn action.
	people := map[string]*person{"": newPerson(t, b, srv, "a visitor")}
	for who, creds := range map[string][2]string{"alice": {shop.DemoEmail, shop.DemoPassword}, "admin": {shop.AdminEmail, shop.AdminPassword}} {
		a := newBrowser(t, srv)
		a.signIn(creds[0], creds[1])
		u, _ := url.Parse(srv.URL)
		x := newPerson(t, b, srv, who)
		for _, c := range a.client.Jar.Cookies(u) {
			if err := x.p.SetCookie(t.Context(), srv.URL, &http.Cookie{Name: c.Name, Value: c.Value, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}); err != nil {
				t.Fatal(err)
			}
		}
		people[who] = x
	}

	ctx := t.Context()
	// visit loads path in x's tab at width by height and checks that it fits
	// the width.
	visit := func(x *person, path string, width, height int) {
		t.Helper()
		if err := x.p.SetViewport(ctx, width, height); err != nil {
			t.Fatal(err)
		}
		x.visit(path)
		if w, _, err := x.p.ContentSize(ctx); err != nil {
			t.Fatal(err)
		} else if w > width {
			t.Errorf("%s at %dpx: the page is %dpx wide, a person must scroll sideways", path, width, w)
		}
	}
	for _, pg := range widthPages {
		for _, size := range screenshotSizes {
			visit(people[pg.who], pg.path, size.width, size.height)
		}
	}
	for _, pg := range screenshotPages {
		path := strings.ReplaceAll(pg.path, "{order}", order)
		x := people[pg.who]
		for _, size := range screenshotSizes {
			visit(x, path, size.width, size.height)
			shot, err := x.p.Screenshot(ctx, size.width, size.height)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(shot))
			if err != nil {
				t.Fatalf("%s: not a PNG: %v", path, err)
			}
			if got := img.Bounds().Size(); got.X != size.width || got.Y != size.height {
				t.Errorf("%s: a screenshot of %dx%d, want %dx%d", path, got.X, got.Y, size.width, size.height)
			}
			if *screenshotsDir != "" {
				file := filepath.Join(*screenshotsDir, pg.name+"-"+size.name+".png")
				if err := os.WriteFile(file, shot, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d KB)", file, len(shot)/1024)
			}
		}
	}
	for _, x := range people {
		checkSentHTML(t, x)
	}
}
