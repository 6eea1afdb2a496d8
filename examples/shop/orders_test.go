package shop_test

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
)

// A testClock is the shop's clock moved forward by a test: the real time
// plus an offset the test sets.
type testClock struct{ offset atomic.Int64 }

func (c *testClock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *testClock) set(after time.Duration) { c.offset.Store(int64(after)) }

// newShopWithClock is newShop with the clock of order cancelling set before
// the test's first request.
func newShopWithClock(t *testing.T) (*shop.Shop, *httptest.Server, *testClock) {
	t.Helper()
	s, srv := newShop(t)
	c := &testClock{}
	s.SetClockForTest(c.now)
	return s, srv, c
}

// placeOrder orders quantity of each sku (sku → product slug) as a and
// returns the order's path.
func placeOrder(t *testing.T, a *agent, lines map[string]string, quantity int) string {
	t.Helper()
	for sku, slug := range lines {
		if status, d, _ := a.call("/products/"+slug, "addToCart", map[string]any{"sku": sku, "quantity": quantity}, false); status != 200 {
			t.Fatalf("addToCart %s: got %d %+v", sku, status, d.Error)
		}
	}
	status, d, _ := a.call("/checkout", "placeOrder", nil, true)
	if status != 200 || !strings.HasPrefix(d.Redirect, "/orders/") {
		t.Fatalf("placeOrder: got %d %+v, want 200 and a redirect to the order", status, d)
	}
	return d.Redirect
}

// stockShown is the stock of a one-variant product as its page shows it
// to a person and its graph to an agent; they must agree.
func stockShown(t *testing.T, a *agent, slug, sku string) int {
	t.Helper()
	_, g := a.graph("/products/" + slug)
	inGraph := variantStock(g, sku)
	_, body := a.page("/products/" + slug)
	m := stockText.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("%s: got a page without its stock", slug)
	}
	if inHTML, _ := strconv.Atoi(m[1]); inHTML != inGraph {
		t.Errorf("%s: got stock %d in the HTML and %d in the graph, want the same", slug, inHTML, inGraph)
	}
	return inGraph
}

var stockText = regexp.MustCompile(`<span class="stock">(\d+) left</span>`)

// TestCancelOrder: an order cancelled within 30 minutes gives every line's
// stock back, as the product pages show it to people and agents, and its
// page shows it cancelled (docs/protocol.md §19, step 7, docs/protocol.md decision 5); a
// second cancel is refused by the guard (docs/protocol.md decision 2: unavailable,
// 409) and gives nothing back twice.
func TestCancelOrder(t *testing.T) {
	_, srv, clock := newShopWithClock(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)

	order := placeOrder(t, alice, map[string]string{"TOTE-NAT": "canvas-tote", "THR-GRY": "wool-throw"}, 2)
	if got := stockShown(t, alice, "canvas-tote", "TOTE-NAT"); got != 2 {
		t.Fatalf("tote after ordering 2: got stock %d, want 2", got)
	}
	if got := stockShown(t, alice, "wool-throw", "THR-GRY"); got != 1 {
		t.Fatalf("throw after ordering 2: got stock %d, want 1", got)
	}

	clock.set(29 * time.Minute)
	_, g := alice.graph(order)
	if _, ok, reason := availability(g, "cancelOrder"); !ok {
		t.Fatalf("cancelOrder 29 minutes after: got unavailable (%s), want available", reason)
	}
	status, d, _ := alice.call(order, "cancelOrder", nil, false)
	if status != http.StatusOK || !d.OK {
		t.Fatalf("cancelOrder: got %d %+v, want 200 ok", status, d.Error)
	}
	id := strings.TrimPrefix(order, "/orders/")
	if want := "Order " + id + " is cancelled: $276.00 goes back to your card ending 4242, and its 4 items are back in stock."; d.Message != want {
		t.Errorf("got message %q, want %q", d.Message, want)
	}
	if got := obj(d.Changed["order"], "status"); got != "cancelled" {
		t.Errorf("got changed order status %v, want cancelled", got)
	}
	if got := num(obj(d.Output, "refunded")); got != 27600 {
		t.Errorf("got refunded %d, want 27600", got)
	}

	for _, p := range []struct {
		slug, sku string
		want      int
	}{{"canvas-tote", "TOTE-NAT", 4}, {"wool-throw", "THR-GRY", 3}} {
		if got := stockShown(t, alice, p.slug, p.sku); got != p.want {
			t.Errorf("%s after cancelling: got stock %d, want %d", p.slug, got, p.want)
		}
	}
	_, body := alice.page(order)
	if !strings.Contains(body, "<strong>Cancelled</strong>") || !strings.Contains(body, `<span class="status cancelled">cancelled</span>`) {
		t.Errorf("got an order page that does not say Cancelled")
	}
	if !strings.Contains(html.UnescapeString(body), "This order is already cancelled.") {
		t.Errorf("got an order page without the reason it cannot be cancelled again")
	}

	status, d, _ = alice.call(order, "cancelOrder", nil, false)
	if status != http.StatusConflict || d.Error == nil || d.Error.Code != affordances.Unavailable || d.Error.Message != "This order is already cancelled." {
		t.Errorf("second cancel: got %d %+v, want 409 unavailable, already cancelled", status, d.Error)
	}
	if got := stockShown(t, alice, "canvas-tote", "TOTE-NAT"); got != 4 {
		t.Errorf("tote after a refused second cancel: got stock %d, want 4", got)
	}
}

// TestCancelOrderTooLate: 30 minutes after placing, the guard refuses with
// its reason, in the graph, beside the page's disabled button and to a
// call (docs/protocol.md decisions 1 and 2), and the stock stays sold.
func TestCancelOrderTooLate(t *testing.T) {
	_, srv, clock := newShopWithClock(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	order := placeOrder(t, alice, map[string]string{"TOTE-NAT": "canvas-tote"}, 1)
	_, g := alice.graph(order)
	placed, err := time.Parse(time.RFC3339, obj(asMap(g.Entities), "order", "placedAt").(string))
	if err != nil {
		t.Fatal(err)
	}

	for _, after := range []time.Duration{31 * time.Minute, 49 * time.Hour} {
		t.Run(after.String(), func(t *testing.T) {
			alice.t = t
			clock.set(after)
			when := "at " + placed.Format("15:04 UTC")
			if now := clock.now().UTC(); now.YearDay() != placed.YearDay() || now.Year() != placed.Year() {
				when = "on " + placed.Format("2 January 2006") + " " + when
			}
			want := "Orders can be cancelled within 30 minutes of placing; this one was placed " + when + "."

			_, g := alice.graph(order)
			if _, ok, reason := availability(g, "cancelOrder"); ok || reason != want {
				t.Errorf("graph: got available %v %q, want unavailable %q", ok, reason, want)
			}
			_, body := alice.page(order)
			if !strings.Contains(html.UnescapeString(body), `<span class="reason">`+want+`</span>`) {
				t.Errorf("got an order page without the reason %q", want)
			}
			status, d, _ := alice.call(order, "cancelOrder", nil, false)
			if status != http.StatusConflict || d.Error == nil || d.Error.Message != want {
				t.Errorf("call: got %d %+v, want 409 %q", status, d.Error, want)
			}
			resp, page := alice.post(order, url.Values{"_action": {"cancelOrder"}}, nil)
			if resp.StatusCode != http.StatusConflict || !strings.Contains(page, flashErr(want)+"</p>") {
				t.Errorf("form: got %d, want the order page again, 409, saying %q", resp.StatusCode, want)
			}
			if got := stockShown(t, alice, "canvas-tote", "TOTE-NAT"); got != 3 {
				t.Errorf("got stock %d, want 3: the order stands", got)
			}
		})
	}
}

// TestCancelOrderByForm: the order page's form cancels the order, says so
// in a flash message, and the page and the history show it cancelled.
func TestCancelOrderByForm(t *testing.T) {
	_, srv, _ := newShopWithClock(t)
	b := newBrowser(t, srv)
	b.form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}, nil)
	b.form("/products/canvas-tote", url.Values{"_action": {"addToCart"}, "sku": {"TOTE-NAT"}}, nil)
	resp := b.confirmed("/checkout", url.Values{"_action": {"placeOrder"}})
	order := resp.Header.Get("Location")
	if !strings.HasPrefix(order, "/orders/") {
		t.Fatalf("placeOrder: got %d to %q, want a redirect to the order", resp.StatusCode, order)
	}
	_, body := b.page(order)
	if !strings.Contains(body, `<button class="secondary" data-aal="cancel-order">Cancel order</button>`) {
		t.Errorf("got an order page without its Cancel order button")
	}
	resp = b.form(order, url.Values{"_action": {"cancelOrder"}}, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != order {
		t.Fatalf("cancel: got %d to %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), order)
	}
	_, body = b.page(order)
	text := html.UnescapeString(body)
	id := strings.TrimPrefix(order, "/orders/")
	for _, want := range []string{"Order " + id + " is cancelled: $18.00 goes back to your card ending 4242, and its item is back in stock.",
		"<strong>Cancelled</strong>", `data-aal="cancel-order" disabled`} {
		if !strings.Contains(text, want) {
			t.Errorf("got an order page without %q", want)
		}
	}
	_, body = b.page("/orders")
	if !strings.Contains(body, `<span class="status cancelled">cancelled</span>`) {
		t.Errorf("got a history without the cancelled order")
	}
	if got := stockShown(t, b, "canvas-tote", "TOTE-NAT"); got != 4 {
		t.Errorf("got stock %d, want 4", got)
	}
}

// TestCancelOrderOnce: customers racing to cancel one order: exactly one
// cancels, the others are refused, and the stock comes back once
// (docs/protocol.md §19, step 7: the status and the stock change in one
// transaction).
func TestCancelOrderOnce(t *testing.T) {
	_, srv, _ := newShopWithClock(t)
	alice := newAgent(t, srv, demoToken)
	order := placeOrder(t, alice, map[string]string{"TOTE-NAT": "canvas-tote"}, 3)
	var wg sync.WaitGroup
	var ok, refused atomic.Int32
	for range 8 {
		wg.Go(func() {
			switch status, _, _ := alice.call(order, "cancelOrder", nil, false); status {
			case http.StatusOK:
				ok.Add(1)
			case http.StatusConflict:
				refused.Add(1)
			default:
				t.Errorf("got %d, want 200 or 409", status)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || refused.Load() != 7 {
		t.Errorf("got %d cancelled and %d refused, want 1 and 7", ok.Load(), refused.Load())
	}
	if got := stockShown(t, alice, "canvas-tote", "TOTE-NAT"); got != 4 {
		t.Errorf("got stock %d, want 4", got)
	}
}

// TestCancelOthersOrder: another customer's order is not found to them,
// by call and by form (docs/protocol.md decision 2: not_found, 404), and stays placed.
func TestCancelOthersOrder(t *testing.T) {
	s, srv, _ := newShopWithClock(t)
	alice := newAgent(t, srv, demoToken)
	order := placeOrder(t, alice, map[string]string{"TOTE-NAT": "canvas-tote"}, 1)

	bob := newAgent(t, srv, mustCreateUser(t, s, "bob@example.com"))
	status, d, _ := bob.call(order, "cancelOrder", nil, false)
	if status != http.StatusNotFound || d.Error == nil || d.Error.Code != affordances.NotFound {
		t.Errorf("bob's call: got %d %+v, want 404 not_found", status, d.Error)
	}
	if _, err := s.CreateUser(t.Context(), "carol@example.com", "carol"); err != nil {
		t.Fatal(err)
	}
	carol := newBrowser(t, srv)
	carol.signIn("carol@example.com", "carol")
	if resp := carol.form(order, url.Values{"_action": {"cancelOrder"}}, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("carol's form: got %d, want 404", resp.StatusCode)
	}
	_, g := alice.graph(order)
	if got := obj(asMap(g.Entities), "order", "status"); got != "placed" {
		t.Errorf("got alice's order %v, want placed", got)
	}
	if got := stockShown(t, alice, "canvas-tote", "TOTE-NAT"); got != 3 {
		t.Errorf("got stock %d, want 3", got)
	}
}

// TestOrderHistory: /orders lists the requester's orders, newest first,
// each with its id, date, item count, total and status, and links to each
// (docs/protocol.md §7: entities and nav); the HTML shows the same; nobody
// gets an empty history and a way to sign in; the header links it for a
// signed-in person.
func TestOrderHistory(t *testing.T) {
	s, srv, _ := newShopWithClock(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	first := placeOrder(t, alice, map[string]string{"TOTE-NAT": "canvas-tote"}, 2)
	second := placeOrder(t, alice, map[string]string{"MUG-CRM": "stoneware-mug"}, 1)
	if status, d, _ := alice.call(first, "cancelOrder", nil, false); status != 200 {
		t.Fatalf("cancelOrder: got %d %+v", status, d.Error)
	}
	bob := newAgent(t, srv, mustCreateUser(t, s, "bob@example.com"))
	bobs := placeOrder(t, bob, map[string]string{"TWL-NAT": "linen-tea-towel"}, 1)

	status, g := alice.graph("/orders")
	if status != 200 {
		t.Fatalf("got %d, want 200", status)
	}
	e := asMap(g.Entities)
	if got := num(obj(e, "history", "total")); got != 2 {
		t.Errorf("got total %d, want 2", got)
	}
	want := []struct {
		path, status  string
		count, amount int
	}{{second, "placed", 1, 1600}, {first, "cancelled", 2, 3600}}
	for i, w := range want {
		o := obj(e, "orders", i)
		if got := "/orders/" + obj(o, "id").(string); got != w.path || obj(o, "status") != w.status || num(obj(o, "count")) != w.count || num(obj(o, "total")) != w.amount {
			t.Errorf("order %d: got %v, want %s %s, %d items, %d", i, o, w.path, w.status, w.count, w.amount)
		}
		if !containsNav(g.Nav, w.path) {
			t.Errorf("got nav %+v, want a link to %s", g.Nav, w.path)
		}
	}
	if containsNav(g.Nav, bobs) || len(e["orders"].([]any)) != 2 {
		t.Errorf("got bob's order in alice's history: %v", e["orders"])
	}

	_, body := alice.page("/orders")
	for _, w := range want {
		if !strings.Contains(body, `<a class="mono" href="`+w.path+`"`) {
			t.Errorf("got a history page without a link to %s", w.path)
		}
	}
	for _, s := range []string{"$36.00", "$16.00", `<span class="status placed">placed</span>`, `<span class="status cancelled">cancelled</span>`, `<a href="/orders">Orders</a>`} {
		if !strings.Contains(body, s) {
			t.Errorf("got a history page without %s", s)
		}
	}
	if _, g := alice.graph("/products/canvas-tote"); !containsNav(g.Nav, "/orders") {
		t.Errorf("got nav %+v on a product page, want the header's Orders", g.Nav)
	}

	nobody := newBrowser(t, srv)
	status, g = nobody.graph("/orders")
	if status != 200 || len(asMap(g.Entities)["orders"].([]any)) != 0 || containsNav(g.Nav, "/orders") {
		t.Errorf("nobody: got %d %v nav %+v, want 200, no orders, no Orders link", status, g.Entities, g.Nav)
	}
	_, body = nobody.page("/orders")
	if !strings.Contains(body, "Sign in to see your orders.") || strings.Contains(body, `<a href="/orders">Orders</a>`) {
		t.Errorf("nobody: got a history page without the sign-in notice, or with the header's Orders link")
	}
}

// TestOrderHistoryPages: a long history is paged, each page's graph small
// (docs/protocol.md §7), with links to the older and newer pages.
func TestOrderHistoryPages(t *testing.T) {
	_, srv, _ := newShopWithClock(t)
	alice := newAgent(t, srv, demoToken)
	var orders []string
	for range 10 {
		orders = append(orders, placeOrder(t, alice, map[string]string{"TWL-NAT": "linen-tea-towel"}, 1))
	}
	resp, body := alice.do(http.MethodGet, "/orders", http.Header{"Accept": {affordances.MediaType}}, nil)
	if resp.StatusCode != 200 || len(body) > 1600 {
		t.Errorf("got %d and a graph of %d bytes, want 200 and at most 1600:\n%s", resp.StatusCode, len(body), body)
	}
	_, g := alice.graph("/orders")
	e := asMap(g.Entities)
	h := asMap(e["history"])
	if num(h["total"]) != 10 || num(h["pages"]) != 2 || len(e["orders"].([]any)) != 8 {
		t.Errorf("got total %v, pages %v, %d orders, want 10, 2, 8", h["total"], h["pages"], len(e["orders"].([]any)))
	}
	if !slices.Contains(g.Nav, affordances.NavLink{To: "/orders?page=2", Label: "Next 2 of 10 orders"}) {
		t.Errorf("got nav %+v, want the older orders", g.Nav)
	}
	_, g = alice.graph("/orders?page=2")
	e = asMap(g.Entities)
	got := []string{"/orders/" + obj(e, "orders", 0, "id").(string), "/orders/" + obj(e, "orders", 1, "id").(string)}
	// The oldest two, newest first; orders placed in the same second keep
	// the order they were placed in.
	if got[0] != orders[1] || got[1] != orders[0] {
		t.Errorf("got page 2 %v, want the first two orders, newest first: %v", got, orders[:2])
	}
	if !containsNav(g.Nav, "/orders") {
		t.Errorf("got nav %+v, want the newer orders", g.Nav)
	}
	// A page past the last is not found, saying which pages there are.
	resp, body = alice.do(http.MethodGet, "/orders?page=3", http.Header{"Accept": {affordances.MediaType}}, nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "pages 1 to 2") {
		t.Errorf("page 3 of 2: got %d %s, want 404 naming pages 1 to 2", resp.StatusCode, body)
	}
	// The HTML pages the same way.
	_, html := alice.page("/orders?page=2")
	if !strings.Contains(html, "page 2 of 2") || !strings.Contains(html, `<a href="/orders">← Newer orders</a>`) {
		t.Errorf("HTML of page 2: lacks page 2 of 2 or the link to the newer orders:\n%s", html)
	}
}

func containsNav(nav []affordances.NavLink, to string) bool {
	for _, l := range nav {
		if l.To == to {
			return true
		}
	}
	return false
}
