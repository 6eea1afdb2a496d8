package shop_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/examples/shop"
)

// TestCheckoutFlowByActions walks the checkout flow as an agent: choose the
// second address and the second card, meet the summary that names them,
// place the order with confirm. The choice is alice's own and stays for her
// next order.
func TestCheckoutFlowByActions(t *testing.T) {
	s, srv := newShop(t)
	a := newBrowser(t, srv)
	a.signIn(shop.DemoEmail, shop.DemoPassword)
	step := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	ok := func(t *testing.T, path, action string, input any, confirm bool) affordances.Delta {
		t.Helper()
		status, d, _ := a.call(path, action, input, confirm)
		if status != 200 || !d.OK {
			t.Fatalf("%s: got %d %+v, want 200 ok", action, status, d.Error)
		}
		return d
	}

	step("step 1: fill the cart; the graph goes on to shipping", func(t *testing.T) {
		a.t = t
		ok(t, "/products/heavyweight-tee", "addToCart", map[string]any{"sku": "HWT-BLK-M", "quantity": 2}, false)
		ok(t, "/products/stoneware-mug", "addToCart", map[string]any{"sku": "MUG-SLT"}, false)
		_, g := a.graph("/cart")
		if !slices.Contains(g.Nav, affordances.NavLink{To: "/checkout/shipping", Label: "Continue to shipping"}) {
			t.Errorf("got nav %+v, want Continue to shipping", g.Nav)
		}
	})

	step("step 2: choose the second address", func(t *testing.T) {
		a.t = t
		_, g := a.graph("/checkout/shipping")
		e := asMap(g.Entities)
		if obj(e, "chosen") != "home" || obj(e, "addresses", 0, "id") != "home" || obj(e, "addresses", 1, "id") != "work" {
			t.Errorf("got %v, want addresses home and work, home chosen", e)
		}
		for _, l := range []affordances.NavLink{{To: "/checkout/payment", Label: "Continue to payment"}, {To: "/cart", Label: "Back to cart"}} {
			if !slices.Contains(g.Nav, l) {
				t.Errorf("got nav %+v, want %+v", g.Nav, l)
			}
		}
		status, d, _ := a.call("/checkout/shipping", "chooseAddress", map[string]any{"address": "moon"}, false)
		if status != 400 || d.Error == nil || d.Error.Code != affordances.InvalidInput || len(d.Error.Issues) != 1 || d.Error.Issues[0].Path != "/address" {
			t.Errorf("an unknown address: got %d %+v, want 400 invalid_input at /address", status, d.Error)
		}
		d = ok(t, "/checkout/shipping", "chooseAddress", map[string]any{"address": "work"}, false)
		if d.Redirect != "/checkout/payment" || d.Changed["chosen"] != "work" || d.Message != "The order ships to 500 Market St, Shelbyville." {
			t.Errorf("got redirect %q, changed %v, message %q; want /checkout/payment, chosen work, the address", d.Redirect, d.Changed, d.Message)
		}
	})

	step("step 3: choose the second card", func(t *testing.T) {
		a.t = t
		_, g := a.graph("/checkout/payment")
		if e := asMap(g.Entities); obj(e, "chosen") != "4242" || obj(e, "cards", 1, "last4") != "1881" {
			t.Errorf("got %v, want cards 4242 and 1881, 4242 chosen", e)
		}
		status, d, _ := a.call("/checkout/payment", "choosePayment", map[string]any{"card": "0000"}, false)
		if status != 400 || d.Error == nil || d.Error.Code != affordances.InvalidInput {
			t.Errorf("an unknown card: got %d %+v, want 400 invalid_input", status, d.Error)
		}
		d = ok(t, "/checkout/payment", "choosePayment", map[string]any{"card": "1881"}, false)
		if d.Redirect != "/checkout" || d.Changed["chosen"] != "1881" {
			t.Errorf("got redirect %q, changed %v; want /checkout, chosen 1881", d.Redirect, d.Changed)
		}
	})

	var orderPath string
	step("step 4: the review, its cost, the summary, the order", func(t *testing.T) {
		a.t = t
		_, g := a.graph("/checkout")
		if e := asMap(g.Entities); obj(e, "shipTo", "id") != "work" || obj(e, "payment") != "card ending 1881" {
			t.Errorf("got %v, want shipTo work and card ending 1881", e)
		}
		_, body := a.fragment("/checkout")
		var f aal.Fragment
		json.Unmarshal(body, &f)
		if len(f.Affordances) != 1 || f.Affordances[0].Cost == nil || *f.Affordances[0].Cost != (aal.Cost{Currency: "USD", Amount: 80}) {
			t.Errorf("got %s, want place-order costing 80 USD", body)
		}
		status, d, _ := a.call("/checkout", "placeOrder", nil, false)
		want := "Place order: 2 × Heavyweight Tee (Black / M) $64.00, 1 × Stoneware Mug (Slate) $16.00; total $80.00, card ending 1881, ship to Alice Liddell, 500 Market St, Shelbyville 54321, US."
		if status != http.StatusPreconditionRequired || d.Error == nil || d.Error.Message != want {
			t.Fatalf("got %d %+v, want 428 %q", status, d.Error, want)
		}
		d = ok(t, "/checkout", "placeOrder", nil, true)
		if id, _ := obj(d.Output, "orderId").(string); id == "" || d.Redirect != "/orders/"+id {
			t.Errorf("got output %v, redirect %q; want the order", d.Output, d.Redirect)
		}
		orderPath = d.Redirect
	})

	step("the order ships and is paid as chosen", func(t *testing.T) {
		a.t = t
		_, g := a.graph(orderPath)
		o := obj(asMap(g.Entities), "order")
		if ship, _ := obj(o, "shipTo").(string); !strings.Contains(ship, "500 Market St, Shelbyville") || obj(o, "payment") != "card ending 1881" || num(obj(o, "total")) != 8000 {
			t.Errorf("got order %v, want it shipped to 500 Market St, paid with card ending 1881, total 8000", o)
		}
	})

	step("the choice stays alice's, for her next order", func(t *testing.T) {
		a.t = t
		_, g := a.graph("/checkout/shipping")
		if got := obj(asMap(g.Entities), "chosen"); got != "work" {
			t.Errorf("got chosen %v, want work", got)
		}
		_, body := a.fragment("/checkout")
		var f aal.Fragment
		json.Unmarshal(body, &f)
		if c := f.Affordances[0].Cost; c == nil || c.Amount != 0 {
			t.Errorf("got cost %+v with an empty cart, want 0", c)
		}
		token, err := s.CreateUser(t.Context(), "bob@example.com", "password")
		if err != nil {
			t.Fatal(err)
		}
		bob := newAgent(t, srv, token)
		if status, d, _ := bob.call("/checkout/shipping", "chooseAddress", map[string]any{"address": "work"}, false); status != 400 {
			t.Errorf("bob chooses alice's work address: got %d %+v, want 400", status, d.Error)
		}
		_, g = bob.graph("/checkout")
		if e := asMap(g.Entities); obj(e, "shipTo", "line1") != "1 Main St" || obj(e, "payment") != "card ending 4242" {
			t.Errorf("bob's checkout: got %v, want his own address and card", e)
		}
	})
}

// TestCheckoutFlowByForms walks the same flow as a person with no
// JavaScript: every step is a form that runs its action, redirects (303)
// and says what it did on the next page, or shows its page again with why
// it did not.
func TestCheckoutFlowByForms(t *testing.T) {
	s, srv := newShop(t)
	b := newBrowser(t, srv)
	step := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	post := func(t *testing.T, path string, v url.Values, wantTo string) {
		t.Helper()
		resp := b.form(path, v, nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != wantTo {
			t.Fatalf("POST %s %v: got %d to %q, want 303 to %q", path, v, resp.StatusCode, loc, wantTo)
		}
	}
	refused := func(t *testing.T, path string, v url.Values, wantStatus int, want ...string) {
		t.Helper()
		resp, page := b.post(path, v, nil)
		if resp.StatusCode != wantStatus {
			t.Fatalf("POST %s %v: got %d, want its page again, %d", path, v, resp.StatusCode, wantStatus)
		}
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("POST %s %v: got a page without %q", path, v, w)
			}
		}
	}
	shows := func(t *testing.T, path string, want ...string) {
		t.Helper()
		_, body := b.page(path)
		body = html.UnescapeString(body)
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: got a page without %q", path, w)
			}
		}
	}
	cart := func(t *testing.T) int {
		n, err := s.CartCountForTest(t.Context(), shop.DemoEmail)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	step("nobody is asked to sign in", func(t *testing.T) {
		b.t = t
		refused(t, "/checkout/shipping", url.Values{"_action": {"chooseAddress"}, "address": {"work"}}, http.StatusUnauthorized,
			`<a href="/login?next=%2fcheckout%2fshipping">Sign in</a>`)
		post(t, "/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}, "next": {"/cart"}}, "/cart")
	})

	step("step 1: the cart, a form for each line", func(t *testing.T) {
		b.t = t
		post(t, "/products/heavyweight-tee", url.Values{"_action": {"addToCart"}, "sku": {"HWT-BLK-M"}, "quantity": {"2"}}, "/products/heavyweight-tee")
		post(t, "/products/stoneware-mug", url.Values{"_action": {"addToCart"}, "sku": {"MUG-SLT"}}, "/products/stoneware-mug")
		shows(t, "/cart", `href="/checkout/shipping"`, "Continue to shipping", `data-aal="update-quantity" data-aal-input="{"sku":"MUG-SLT"}"`)
		post(t, "/cart", url.Values{"_action": {"updateQuantity"}, "sku": {"HWT-BLK-M"}, "quantity": {"3"}}, "/cart")
		shows(t, "/cart", "Heavyweight Tee (Black / M): quantity 3.")
		if n := cart(t); n != 4 {
			t.Errorf("got %d in the cart, want 4", n)
		}
		refused(t, "/cart", url.Values{"_action": {"updateQuantity"}, "sku": {"MUG-SLT"}, "quantity": {"50"}}, http.StatusConflict,
			flashErr("Only 10 left in stock."), `value="50" min="1"`)
		refused(t, "/cart", url.Values{"_action": {"updateQuantity"}, "sku": {"MUG-SLT"}, "quantity": {"100"}}, http.StatusBadRequest,
			`value="100" min="1" max="99" aria-label="Quantity of Stoneware Mug, Slate"`, `<span class="issue">`)
		if n := cart(t); n != 4 {
			t.Errorf("got %d in the cart, want 4: a line short of stock, or over 99, changes nothing", n)
		}
		post(t, "/cart", url.Values{"_action": {"removeFromCart"}, "sku": {"MUG-SLT"}}, "/cart")
		if n := cart(t); n != 3 {
			t.Errorf("got %d in the cart, want 3", n)
		}
	})

	step("step 2: choose the second address", func(t *testing.T) {
		b.t = t
		shows(t, "/checkout/shipping", `value="home" checked`, "500 Market St", `href="/checkout/payment"`, `href="/cart"`)
		resp := b.form("/checkout/shipping", url.Values{"_action": {"chooseAddress"}, "address": {"work"}}, http.Header{"Origin": {"http://evil.example"}})
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a cross-origin form: got %d, want 403", resp.StatusCode)
		}
		shows(t, "/checkout/shipping", `value="home" checked`)
		refused(t, "/checkout/shipping", url.Values{"_action": {"chooseAddress"}, "address": {"moon"}}, http.StatusBadRequest,
			`<span class="issue">is not one of your addresses</span>`)
		post(t, "/checkout/shipping", url.Values{"_action": {"chooseAddress"}, "address": {"work"}}, "/checkout/payment")
		shows(t, "/checkout/payment", "The order ships to 500 Market St, Shelbyville.", `value="4242" checked`, "1881")
	})

	step("step 3: choose the second card", func(t *testing.T) {
		b.t = t
		refused(t, "/checkout/payment", url.Values{"_action": {"choosePayment"}, "card": {"0000"}}, http.StatusBadRequest,
			`<span class="issue">is not one of your cards</span>`)
		post(t, "/checkout/payment", url.Values{"_action": {"choosePayment"}, "card": {"1881"}}, "/checkout")
		shows(t, "/checkout", "The order is paid with Mastercard, card ending 1881.", "500 Market St", "card ending 1881", `href="/checkout/payment"`)
	})

	step("step 4: review, confirm, order", func(t *testing.T) {
		b.t = t
		resp, body := b.do(http.MethodPost, "/checkout", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, []byte("_action=placeOrder"))
		want := "Place order: 3 × Heavyweight Tee (Black / M) $96.00; total $96.00, card ending 1881, ship to Alice Liddell, 500 Market St, Shelbyville 54321, US."
		if resp.StatusCode != 200 || !strings.Contains(html.UnescapeString(string(body)), want) {
			t.Fatalf("got %d without %q, want the confirmation page", resp.StatusCode, want)
		}
		if n := cart(t); n != 3 {
			t.Errorf("got %d in the cart, want 3: nothing ran", n)
		}
		resp = b.form("/checkout", confirmFields(t, html.UnescapeString(string(body))), nil)
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/orders/") {
			t.Fatalf("got %d to %q, want 303 to /orders/<id>", resp.StatusCode, loc)
		}
		shows(t, loc, "Paid with card ending 1881", "500 Market St, Shelbyville", "$96.00")
		if n := cart(t); n != 0 {
			t.Errorf("got %d in the cart, want 0", n)
		}
	})
}

// TestOpenRefusesAnOlderDatabase: a database seeded by an older demo
// shop, whose tables have another shape, is refused with a reason the
// person can act on, not misread.
func TestOpenRefusesAnOlderDatabase(t *testing.T) {
	dir := t.TempDir()
	s, err := shop.Open(t.Context(), &shop.Options{DataDir: dir, DemoToken: demoToken})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetSchemaForTest(t.Context(), "1"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = shop.Open(t.Context(), &shop.Options{DataDir: dir, DemoToken: demoToken})
	if err == nil {
		s.Close()
		t.Fatal("a database of schema 1 opened")
	}
	if !strings.Contains(err.Error(), "holds an older demo shop's data") || !strings.Contains(err.Error(), "shop.db") {
		t.Errorf("got %q, want it to name the file and say it is an older shop's", err)
	}
}
