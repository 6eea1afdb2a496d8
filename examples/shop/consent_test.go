package shop_test

// What alice approves is what is ordered (issue 25, docs/protocol.md decision 10):
// her approval covers the cart's lines and the recipient as the summary
// showed them, checked before placeOrder runs and again in its
// transaction. These run on SQLite and, under make check's postgres job,
// on PostgreSQL.

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
)

// consentShop opens a shop whose orders alice approves on its approval
// page, with her agent (a token) and her browser (signed in), and one
// tote in her cart.
func consentShop(t *testing.T) (*shop.Shop, *agent, *agent) {
	t.Helper()
	opts := options(t)
	opts.NoApproval = false
	s, srv := demotest.Shop(t, opts, nil)
	bot := newAgent(t, srv, s.Token())
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	callOK(t, bot, "/products/canvas-tote", "addToCart", map[string]any{"sku": toteSKU, "quantity": 1})
	return s, bot, alice
}

// approve has alice's agent ask to place the order and alice approve it
// in her browser, unless she approved this very call before (an earlier
// try's, which its confirm: true found changed and did not take); it
// returns the summary she approved.
func approve(t *testing.T, bot, alice *agent) string {
	t.Helper()
	ap, summary := wantApproval(t, bot, "placeOrder without confirm", false)
	if approvalState(t, bot, ap.URL) == affordances.ApprovalApproved {
		return summary
	}
	if resp := alice.form(ap.URL, url.Values{"decision": {"approve"}}, nil); resp == nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("alice approving: got %v, want 200", resp)
	}
	return summary
}

// placed returns the count and total of each of alice's orders.
func placed(t *testing.T, bot *agent) []map[string]any {
	t.Helper()
	_, g := bot.graph("/orders")
	var out []map[string]any
	for _, o := range g.Entities["orders"].([]any) {
		out = append(out, o.(map[string]any))
	}
	return out
}

// TestApprovedOrderDoesNotGrow: alice approves "1 × Canvas Tote, $18.00";
// her agent then sends placeOrder with confirm: true together with three
// addToCart calls, four times over (four calls a try on the products'
// route stay within its burst of 20). An order placed is always the one
// she approved; the others are asked again, and never an order of 2, 3
// or 4 items. (On the main of 2026-12-01, the sweep's 12 of 12 grew.)
func TestApprovedOrderDoesNotGrow(t *testing.T) {
	s, bot, alice := consentShop(t)
	for try := range 4 {
		if try > 0 { // the cart as approved: one tote
			callOK(t, bot, "/products/canvas-tote", "addToCart", map[string]any{"sku": toteSKU, "quantity": 1})
		}
		if summary := approve(t, bot, alice); !strings.HasPrefix(summary, "Place order: 1 × Canvas Tote (Natural) $18.00; total $18.00,") {
			t.Fatalf("try %d: alice approved %q, want one tote", try, summary)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 3 {
			wg.Go(func() {
				<-start
				bot.call("/products/stoneware-mug", "addToCart", map[string]any{"sku": "MUG-CRM", "quantity": 1}, false)
			})
		}
		var status int
		var d affordances.Delta
		wg.Go(func() {
			<-start
			status, d, _ = bot.call("/checkout", "placeOrder", nil, true)
		})
		close(start)
		wg.Wait()
		switch {
		case status == http.StatusOK:
			if out, _ := d.Output.(map[string]any); out["count"] != 1.0 || out["total"] != 1800.0 {
				t.Errorf("try %d: placed %v, want the approved order: 1 item, $18.00", try, d.Output)
			}
		case status == http.StatusPreconditionRequired && d.Approval != nil:
		default:
			t.Errorf("try %d: placeOrder got %d %+v, want 200 or 428 with a new approval", try, status, d.Error)
		}
		// The cart emptied for the next try.
		if _, g := bot.graph("/cart"); g.Entities != nil {
			for _, l := range g.Entities["cart"].(map[string]any)["items"].([]any) {
				callOK(t, bot, "/cart", "removeFromCart", map[string]any{"sku": l.(map[string]any)["sku"]})
			}
		}
	}
	for _, o := range placed(t, bot) {
		if o["count"] != 1.0 || o["total"] != 1800.0 {
			t.Errorf("an order of %v items, $%v cents: want only the approved ones, 1 item, $18.00", o["count"], o["total"])
		}
	}
	if q, _, _ := s.OrderedForTest(t.Context(), "MUG-CRM"); q != 0 {
		t.Errorf("%d mugs ordered, want 0: alice approved none", q)
	}
}

// TestApprovalCoversTheCartAndTheRecipient: after alice approved, her
// agent swaps the tote for a mug of the same price, or ships to a
// lookalike address it added ("Mallory Mule, 1 Main St, Springfield"):
// confirm: true is asked again and nothing is ordered. The summary names
// every line and the recipient in full, so what she approves tells them
// apart.
func TestApprovalCoversTheCartAndTheRecipient(t *testing.T) {
	t.Run("a swapped item of the same price", func(t *testing.T) {
		s, bot, alice := consentShop(t)
		callOK(t, bot, "/cart", "removeFromCart", map[string]any{"sku": toteSKU})
		callOK(t, bot, "/products/stoneware-mug", "addToCart", map[string]any{"sku": "MUG-CRM", "quantity": 1})
		approve(t, bot, alice)
		// The cream mug for the slate one, which costs the same.
		callOK(t, bot, "/cart", "removeFromCart", map[string]any{"sku": "MUG-CRM"})
		callOK(t, bot, "/products/stoneware-mug", "addToCart", map[string]any{"sku": "MUG-SLT", "quantity": 1})
		status, d, _ := bot.call("/checkout", "placeOrder", nil, true)
		if status != http.StatusPreconditionRequired || d.Approval == nil || !strings.Contains(d.Error.Message, "1 × Stoneware Mug (Slate)") {
			t.Errorf("confirm: true after the swap: got %d %+v, want 428 asking again about the slate mug", status, d.Error)
		}
		for _, sku := range []string{"MUG-CRM", "MUG-SLT"} {
			if q, _, _ := s.OrderedForTest(t.Context(), sku); q != 0 {
				t.Errorf("%d of %s ordered, want 0", q, sku)
			}
		}
	})
	t.Run("a lookalike recipient, chosen before", func(t *testing.T) {
		_, bot, _ := consentShop(t)
		id := mallory(t, bot)
		callOK(t, bot, "/checkout/shipping", "chooseAddress", map[string]any{"address": id})
		_, summary := wantApproval(t, bot, "placeOrder without confirm", false)
		if !strings.Contains(summary, "ship to Mallory Mule, 1 Main St, Springfield 99999, Elsewhere.") {
			t.Errorf("the summary: got %q, want it to name the recipient in full", summary)
		}
	})
	t.Run("a lookalike recipient, chosen after", func(t *testing.T) {
		s, bot, alice := consentShop(t)
		id := mallory(t, bot)
		approve(t, bot, alice)
		callOK(t, bot, "/checkout/shipping", "chooseAddress", map[string]any{"address": id})
		status, d, _ := bot.call("/checkout", "placeOrder", nil, true)
		if status != http.StatusPreconditionRequired || d.Approval == nil || !strings.Contains(d.Error.Message, "Mallory Mule") {
			t.Errorf("confirm: true after switching the address: got %d %+v, want 428 asking again, naming Mallory", status, d.Error)
		}
		wantOrdered(t, s, 0)
	})
}

// mallory adds, as alice's agent, an address that reads like hers in a
// summary that names only the street and the city, and returns its id.
func mallory(t *testing.T, bot *agent) string {
	t.Helper()
	d := callOK(t, bot, "/account", "addAddress", map[string]any{
		"name": "Mallory Mule", "line1": "1 Main St", "city": "Springfield", "postcode": "99999", "country": "Elsewhere"})
	addrs, _ := d.Changed["addresses"].([]any)
	for _, a := range addrs {
		if m := a.(map[string]any); m["name"] == "Mallory Mule" {
			return m["id"].(string)
		}
	}
	t.Fatalf("addAddress: got %v, want Mallory's address", d.Changed)
	return ""
}

// TestApprovalPageShowsTheCall: alice's agent asks to order three totes
// ($54), then lowers the cart to one ($18) and sends her to the approval
// page. The page shows the call's own figures ($54, never the $18 of the
// cart as it is now), says the cart changed since, and offers nothing to
// approve; an approval posted anyway is refused. Once the cart is three
// totes again, the page offers the $54 call. (Before issue 36 the page
// read "Cost: USD 18.00" beside the $54 summary, and took the approval,
// which confirm: true then spent on $54.)
func TestApprovalPageShowsTheCall(t *testing.T) {
	_, bot, alice := consentShop(t)
	callOK(t, bot, "/cart", "updateQuantity", map[string]any{"sku": toteSKU, "quantity": 3})
	ap, summary := wantApproval(t, bot, "placeOrder without confirm", false)
	if !strings.Contains(summary, "total $54.00") {
		t.Fatalf("the summary: got %q, want three totes, $54.00", summary)
	}
	callOK(t, bot, "/cart", "updateQuantity", map[string]any{"sku": toteSKU, "quantity": 1})

	resp, page := alice.page(ap.URL)
	if resp == nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the approval page: got %v, want 200", resp)
	}
	if !strings.Contains(page, "USD 54.00") || strings.Contains(page, "USD 18.00") {
		t.Errorf("the approval page of the $54 call, the cart now $18: want USD 54.00 alone, got\n%s", page)
	}
	if !strings.Contains(page, "has changed since") || strings.Contains(page, `value="approve"`) {
		t.Errorf("the approval page after the cart changed: want it to say so and offer no Approve, got\n%s", page)
	}
	if resp := alice.form(ap.URL, url.Values{"decision": {"approve"}}, nil); resp == nil || resp.StatusCode != http.StatusConflict {
		t.Errorf("approving after the cart changed: got %v, want 409", resp)
	}
	if got := approvalState(t, bot, ap.URL); got != affordances.ApprovalPending {
		t.Errorf("the approval after a refused approve: got %q, want pending", got)
	}

	callOK(t, bot, "/cart", "updateQuantity", map[string]any{"sku": toteSKU, "quantity": 3})
	if _, page = alice.page(ap.URL); !strings.Contains(page, "USD 54.00") || !strings.Contains(page, `value="approve"`) {
		t.Errorf("the approval page with the cart as asked again: want USD 54.00 and Approve, got\n%s", page)
	}
}
