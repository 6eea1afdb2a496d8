package shop_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	agentclient "github.com/affordances/affordances-go/agent" // agent is these tests' HTTP helper
	"github.com/affordances/affordances-go/examples/shop"
)

// recorder is an http.RoundTripper that keeps every call the client sent,
// and can drop the first answer to a call matching dropOnce after the
// server has handled it (a response lost on the way back).
type recorder struct {
	mu       sync.Mutex
	next     http.RoundTripper
	calls    []sent
	dropOnce string // a substring of a call body
	dropped  bool
}

type sent struct {
	body                  string
	origin, key, hasToken string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost {
		return r.next.RoundTrip(req)
	}
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	r.calls = append(r.calls, sent{body: string(body), origin: req.Header.Get("Origin"), key: req.Header.Get("Idempotency-Key"), hasToken: req.Header.Get("Authorization")})
	drop := r.dropOnce != "" && !r.dropped && strings.Contains(string(body), r.dropOnce)
	if drop {
		r.dropped = true
	}
	r.mu.Unlock()
	res, err := r.next.RoundTrip(req)
	if drop && err == nil {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return nil, errors.New("connection reset by peer (the test dropped the answer)")
	}
	return res, err
}

func (r *recorder) sentConfirm() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.calls {
		if strings.Contains(c.body, `"confirm":true`) {
			return true
		}
	}
	return false
}

// approvals is an Approver that answers from a script and keeps what it
// was shown.
type approvals struct {
	answer bool
	asked  []*agentclient.ApprovalRequest
}

func (a *approvals) Approve(_ context.Context, req *agentclient.ApprovalRequest) (bool, error) {
	a.asked = append(a.asked, req)
	return a.answer, nil
}

// journey runs the agent's whole task with client c: search, add to cart,
// change the quantity, the checkout flow, a refused approval (nothing
// ordered, the server never saw confirm: true), an approval (one order),
// and the final state through a fresh Page (issue 4, tests).
func journey(t *testing.T, s *shop.Shop, c *agentclient.Client, rec *recorder, approver *approvals) {
	ctx := t.Context()
	must := func(d *affordances.Delta, err error) *affordances.Delta {
		t.Helper()
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		return d
	}
	idx, err := c.Index(ctx)
	if err != nil || len(idx.Routes) == 0 {
		t.Fatalf("Index: %v %+v", err, idx)
	}
	home, err := c.Page(ctx, "/")
	if err != nil {
		t.Fatal(err)
	}
	must(home.Call(ctx, "search", map[string]any{"q": "tote"}))
	if home.Path() != "/?q=tote" || home.Graph.Entities["total"] != 1.0 {
		t.Errorf("after search: page %s, total %v; want the redirect /?q=tote with 1 result", home.Path(), home.Graph.Entities["total"])
	}

	tote, err := c.Page(ctx, "/products/canvas-tote")
	if err != nil {
		t.Fatal(err)
	}
	if tote.Fragment == nil {
		t.Fatal("the product page has no AAL fragment")
	}
	must(tote.Call(ctx, "addToCart", map[string]any{"sku": "TOTE-NAT"}))
	if cart := tote.Graph.Entities["cart"].(map[string]any); cart["count"] != 1.0 {
		t.Errorf("cart after addToCart, applied from the delta: got %v, want count 1", cart)
	}

	cart, err := c.Page(ctx, "/cart")
	if err != nil {
		t.Fatal(err)
	}
	must(cart.Call(ctx, "updateQuantity", map[string]any{"sku": "TOTE-NAT", "quantity": 2}))
	if got := cart.Graph.Entities["cart"].(map[string]any)["total"]; got != 3600.0 {
		t.Errorf("cart total after updateQuantity: got %v, want 3600", got)
	}

	shipping, err := c.Page(ctx, "/checkout/shipping")
	if err != nil {
		t.Fatal(err)
	}
	must(shipping.Call(ctx, "chooseAddress", map[string]any{"address": "home"}))
	payment, err := c.Page(ctx, "/checkout/payment")
	if err != nil {
		t.Fatal(err)
	}
	must(payment.Call(ctx, "choosePayment", map[string]any{"card": "4242"}))

	review, err := c.Page(ctx, "/checkout")
	if err != nil {
		t.Fatal(err)
	}
	if v := review.Assess("placeOrder"); v.Decision != aal.Ask {
		t.Fatalf("the gate on placeOrder: got %s, want ask", v.Decision)
	}
	approver.answer = false
	if _, err := review.Call(ctx, "placeOrder", nil); !errors.Is(err, agentclient.ErrNotApproved) {
		t.Fatalf("placeOrder, the person says no: got %v, want ErrNotApproved", err)
	}
	if rec.sentConfirm() {
		t.Fatal("the server saw confirm: true although the person said no")
	}
	if q, orders, _ := s.OrderedForTest(ctx, "TOTE-NAT"); q != 0 || orders != 0 {
		t.Fatalf("orders after a refusal: got %d items in %d orders, want none", q, orders)
	}
	if len(approver.asked) != 1 {
		t.Fatalf("the approver was asked %d times, want 1", len(approver.asked))
	}
	asked := approver.asked[0]
	if asked.Action != "placeOrder" || asked.Label != "Place order" || asked.Amount == nil || *asked.Amount != (aal.Cost{Currency: "USD", Amount: 36}) {
		t.Errorf("the approver saw %+v, want placeOrder, its label and USD 36", asked)
	}
	if want := "Place order: 2 × Canvas Tote (Natural) $36.00; total $36.00, card ending 4242, ship to Alice Liddell, 1 Main St, Springfield 12345, US."; asked.Message != want {
		t.Errorf("the approver read %q, want the site's summary %q", asked.Message, want)
	}
	for _, class := range []aal.Class{aal.ClassDestructive, aal.ClassFinancial, aal.ClassConfirm} {
		if !containsClass(asked.Classes, class) {
			t.Errorf("the approver saw classes %v, want %s among them", asked.Classes, class)
		}
	}

	approver.answer = true
	d := must(review.Call(ctx, "placeOrder", nil))
	if !strings.HasPrefix(d.Redirect, "/orders/") {
		t.Errorf("redirect: got %q, want /orders/...", d.Redirect)
	}
	if q, orders, _ := s.OrderedForTest(ctx, "TOTE-NAT"); q != 2 || orders != 1 {
		t.Errorf("after approval: got %d items in %d orders, want 2 in 1", q, orders)
	}

	fresh, err := c.Page(ctx, "/cart")
	if err != nil {
		t.Fatal(err)
	}
	if got := fresh.Graph.Entities["cart"].(map[string]any)["count"]; got != 0.0 {
		t.Errorf("a fresh cart page: got count %v, want 0", got)
	}
	order, err := c.Page(ctx, d.Redirect)
	if err != nil {
		t.Errorf("the order page %s: %v", d.Redirect, err)
	} else if order.Graph.Route != "/orders/[id]" {
		t.Errorf("the order page: got route %s", order.Graph.Route)
	}
	for _, call := range rec.calls {
		if call.key == "" {
			t.Errorf("a call without Idempotency-Key: %s", call.body)
		}
	}
}

func containsClass(cs []aal.Class, c aal.Class) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// TestClientJourneyBearer: the agent journey with alice's bearer token.
func TestClientJourneyBearer(t *testing.T) {
	s, srv := newShop(t)
	rec := &recorder{next: srv.Client().Transport}
	approver := &approvals{}
	c, err := agentclient.New(&http.Client{Transport: rec}, srv.URL, &agentclient.Options{
		Token: demoToken, Approver: approver, FollowRedirects: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	journey(t, s, c, rec, approver)
}

// TestClientJourneyCookie: the same journey with a cookie session from the
// signIn action; every call carries the site's Origin (docs/protocol.md decision 4).
func TestClientJourneyCookie(t *testing.T) {
	s, srv := newShop(t)
	rec := &recorder{next: srv.Client().Transport}
	jar, _ := cookiejar.New(nil)
	approver := &approvals{}
	c, err := agentclient.New(&http.Client{Transport: rec, Jar: jar}, srv.URL, &agentclient.Options{
		Approver: approver, FollowRedirects: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	login, err := c.Page(t.Context(), "/login")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := login.Call(t.Context(), "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}); err != nil {
		t.Fatalf("signIn: %v", err)
	}
	journey(t, s, c, rec, approver)
	for _, call := range rec.calls {
		if call.origin != srv.URL || call.hasToken != "" {
			t.Errorf("a cookie call with Origin %q and Authorization %q: %s", call.origin, call.hasToken, call.body)
		}
	}
}

// TestClientLostResponse: the answer to placeOrder is lost after the server
// ran it; the client retries with the same Idempotency-Key, gets the same
// delta, and exactly one order exists (docs/protocol.md decision 10).
func TestClientLostResponse(t *testing.T) {
	s, srv := newShop(t)
	rec := &recorder{next: srv.Client().Transport, dropOnce: `"confirm":true`}
	c, err := agentclient.New(&http.Client{Transport: rec}, srv.URL, &agentclient.Options{
		Token: demoToken, Approver: &approvals{answer: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	tote, err := c.Page(ctx, "/products/canvas-tote")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tote.Call(ctx, "addToCart", map[string]any{"sku": "TOTE-NAT"}); err != nil {
		t.Fatal(err)
	}
	review, err := c.Page(ctx, "/checkout")
	if err != nil {
		t.Fatal(err)
	}
	d, err := review.Call(ctx, "placeOrder", nil)
	if err != nil || !d.OK {
		t.Fatalf("placeOrder after a lost answer: got %+v, %v; want ok", d, err)
	}
	if !rec.dropped {
		t.Fatal("the test never dropped an answer")
	}
	var keys []string
	for _, call := range rec.calls {
		if strings.Contains(call.body, `"confirm":true`) {
			keys = append(keys, call.key)
		}
	}
	if len(keys) != 2 || keys[0] != keys[1] {
		t.Errorf("confirmed calls sent with keys %q, want two with the same key", keys)
	}
	if q, orders, _ := s.OrderedForTest(ctx, "TOTE-NAT"); q != 1 || orders != 1 {
		t.Errorf("orders: got %d items in %d orders, want exactly one order", q, orders)
	}
}
