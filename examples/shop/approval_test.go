package shop_test

// Human-verified confirmation (docs/protocol.md decision 10) in real Chromium: the
// shop as the demo runs it, where an agent's placeOrder waits for alice's
// decision on the shop's approval page. Without Chromium these skip; under
// make check they fail instead.

import (
	"bytes"
	"encoding/json"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/store"
)

// approvalShop opens the shop with orders human-verified, its default (no
// NoApproval), on SQLite as every browser test, and serves it.
func approvalShop(t *testing.T) (*shop.Shop, *httptest.Server) {
	t.Helper()
	return demotest.Shop(t, &shop.Options{DemoToken: demoToken}, nil)
}

// The tote alice's agent orders, at $18.00.
const toteSKU = "TOTE-NAT"

// pendingOrder has alice's agent fill her cart with a tote and ask to
// place the order, first without confirm, then with confirm: true as a
// model told to would: both answer confirm_required with the same
// approval, and nothing is ordered. It returns the agent, the approval and
// the summary the delta gave.
func pendingOrder(t *testing.T, s *shop.Shop, srv *httptest.Server) (*agent, *affordances.PendingApproval, string) {
	t.Helper()
	bot := newAgent(t, srv, s.Token())
	if status, d, _ := bot.call("/products/canvas-tote", "addToCart", map[string]any{"sku": toteSKU, "quantity": 1}, false); status != http.StatusOK || !d.OK {
		t.Fatalf("addToCart: got %d %+v, want 200 ok", status, d.Error)
	}
	ap, summary := wantApproval(t, bot, "placeOrder without confirm", false)
	again, _ := wantApproval(t, bot, "placeOrder with confirm: true before any approval", true)
	if again.URL != ap.URL {
		t.Errorf("the same call asked twice: approvals %s and %s, want one", ap.URL, again.URL)
	}
	wantOrdered(t, s, 0)
	if got := approvalState(t, bot, ap.URL); got != affordances.ApprovalPending {
		t.Errorf("the approval's status before alice decides: got %q, want pending", got)
	}
	return bot, ap, summary
}

// wantApproval calls placeOrder on /checkout and checks the answer is 428
// confirm_required with an approval page that expires in the future. It
// returns the approval and the summary of the call.
func wantApproval(t *testing.T, bot *agent, what string, confirm bool) (*affordances.PendingApproval, string) {
	t.Helper()
	status, d, _ := bot.call("/checkout", "placeOrder", nil, confirm)
	if status != http.StatusPreconditionRequired || d.OK || d.Error == nil || d.Error.Code != affordances.ConfirmRequired {
		t.Fatalf("%s: got %d %+v, want 428 confirm_required", what, status, d.Error)
	}
	ap := d.Approval
	if ap == nil || !strings.HasPrefix(ap.URL, affordances.ApprovalsPath) || len(ap.URL) == len(affordances.ApprovalsPath) {
		t.Fatalf("%s: got approval %+v, want a page under %s", what, ap, affordances.ApprovalsPath)
	}
	if left := time.Until(ap.Expires); left <= 0 || left > store.ApprovalTTL {
		t.Errorf("%s: the approval expires at %s, want within %s from now", what, ap.Expires, store.ApprovalTTL)
	}
	summary, _, _ := strings.Cut(d.Error.Message, " A person must approve")
	return ap, summary
}

// approvalState GETs the approval's status as JSON, as an agent polls it
// with its own credentials.
func approvalState(t *testing.T, a *agent, path string) affordances.ApprovalState {
	t.Helper()
	resp, body := a.do(http.MethodGet, path, http.Header{"Accept": {affordances.MediaType}}, nil)
	if resp == nil {
		return ""
	}
	var st affordances.ApprovalStatus
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &st) != nil {
		t.Fatalf("GET %s as JSON: got %d %s, want 200 and the status", path, resp.StatusCode, body)
	}
	return st.State
}

// wantOrdered checks how many orders hold the tote, and that each holds
// one.
func wantOrdered(t *testing.T, s *shop.Shop, orders int) {
	t.Helper()
	q, n, err := s.OrderedForTest(t.Context(), toteSKU)
	if err != nil {
		t.Fatal(err)
	}
	if q != orders || n != orders {
		t.Errorf("orders of the tote: got %d items in %d orders, want %d in %d", q, n, orders, orders)
	}
}

// readApproval is alice reading the approval page of the pending order
// ap: whose site asks (its name and host), the summary of the delta, the
// cost of her cart, the risks of paying in sentences, no empty input,
// and a button to approve and one to deny, on a page with a title and
// headings a screen reader can follow, that logs nothing wrong.
func readApproval(t *testing.T, x *person, ap *affordances.PendingApproval, summary string) {
	t.Helper()
	x.visit(ap.URL)
	if !strings.HasPrefix(summary, "Place order: ") {
		t.Errorf("the delta's summary is %q, want it to start with %q", summary, "Place order: ")
	}
	x.see(".summary", summary)
	x.see(".summary", "total $18.00", "card ending 4242")
	x.see(".bar", "Demo Shop", strings.TrimPrefix(x.base, "http://"))
	x.see("h1", "Place order")
	x.see(".cost", "Cost: "+(aal.Cost{Currency: "USD", Amount: 18}).String())
	x.see(".risks", "It spends money.", "It deletes or overwrites something.", "It cannot be undone.")
	x.see("dl", "What it does Order the cart", "Page /checkout")
	if n := x.count("dl dl"); n != 0 {
		t.Errorf("the approval page of placeOrder, whose input is empty, lists %d inputs, want none", n)
	}

	var title string
	if err := x.p.Eval(t.Context(), "document.title", &title); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(title, "Approve: Place order") {
		t.Errorf("the approval page's title is %q, want it to name the action", title)
	}
	nodes, err := x.p.Accessibility(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var buttons []string
	first := 0
	for _, n := range nodes {
		switch n.Role {
		case "heading":
			if first == 0 {
				first = n.Level
			}
		case "button", "link", "textbox":
			if strings.TrimSpace(n.Name) == "" {
				t.Errorf("the approval page: a %s has no accessible name", n.Role)
			}
			if n.Role == "button" {
				buttons = append(buttons, n.Name)
			}
		}
	}
	if first != 1 {
		t.Errorf("the approval page's first heading is h%d, want h1", first)
	}
	if strings.Join(buttons, ",") != "Approve,Deny" {
		t.Errorf("the approval page's buttons read %q, want Approve and Deny", buttons)
	}
	checkConsole(t, x, 0)
}

// TestApprovalInBrowser: a model's confirm: true alone places no order;
// alice, signed in in Chromium, reads the call on the approval page and
// approves it; the agent's same call then places one order, and the same
// call once more needs a new approval.
func TestApprovalInBrowser(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	s, srv := approvalShop(t)
	bot, ap, summary := pendingOrder(t, s, srv)

	alice := newPerson(t, b, srv, "alice")
	alice.signInByForm(shop.DemoEmail, shop.DemoPassword)
	readApproval(t, alice, ap, summary)

	// What alice saw, as a picture.
	shot, err := alice.p.Screenshot(t.Context(), 1280, 0)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the approval page's screenshot is not a PNG: %v", err)
	}
	size := img.Bounds().Size()
	if size.X != 1280 || size.Y < 300 {
		t.Errorf("the approval page's screenshot is %dx%d, want 1280 wide and the page's height", size.X, size.Y)
	}
	colours := map[[4]uint32]bool{}
	for y := 0; y < size.Y; y += 4 {
		for x := 0; x < size.X; x += 4 {
			r, g, b, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, b, a}] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("the approval page's screenshot has %d colours: nothing rendered", len(colours))
	}
	dir := t.TempDir()
	if *screenshotsDir != "" {
		dir = *screenshotsDir
	}
	file := filepath.Join(dir, "approval-desktop.png")
	if err := os.WriteFile(file, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%dx%d, %d KB)", file, size.X, size.Y, len(shot)/1024)

	// And on a phone, where it fits the width.
	if err := alice.p.SetViewport(t.Context(), 390, 844); err != nil {
		t.Fatal(err)
	}
	if w, _, err := alice.p.ContentSize(t.Context()); err != nil {
		t.Fatal(err)
	} else if w > 390 {
		t.Errorf("the approval page at 390px is %dpx wide, a person must scroll sideways", w)
	}
	if shot, err = alice.p.Screenshot(t.Context(), 390, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "approval-phone.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}

	alice.click(".buttons button.approve")
	alice.at(ap.URL)
	alice.see(".state", "Approved.")
	if n := alice.count("button"); n != 0 {
		t.Errorf("the decided approval page still has %d buttons", n)
	}
	checkConsole(t, alice, 0)
	checkSentHTML(t, alice)
	if got := approvalState(t, bot, ap.URL); got != affordances.ApprovalApproved {
		t.Errorf("the approval's status after alice approved: got %q, want approved", got)
	}

	status, d, _ := bot.call("/checkout", "placeOrder", nil, true)
	if status != http.StatusOK || !d.OK || !strings.HasPrefix(d.Redirect, "/orders/") {
		t.Fatalf("placeOrder with confirm: true after the approval: got %d %+v, want 200 and the order", status, d.Error)
	}
	wantOrdered(t, s, 1)
	if n, err := s.CartCountForTest(t.Context(), shop.DemoEmail); err != nil || n != 0 {
		t.Errorf("alice's cart after the order: %d items (%v), want 0", n, err)
	}

	// The approval let one call run: the same call again, the cart filled
	// again, needs a new one.
	if status, d, _ := bot.call("/products/canvas-tote", "addToCart", map[string]any{"sku": toteSKU, "quantity": 1}, false); status != http.StatusOK || !d.OK {
		t.Fatalf("addToCart: got %d %+v, want 200 ok", status, d.Error)
	}
	next, _ := wantApproval(t, bot, "placeOrder with confirm: true once more", true)
	if next.URL == ap.URL {
		t.Errorf("the same call once more was given the used approval %s, want a new one", ap.URL)
	}
	wantOrdered(t, s, 1)
	if resp, err := alice.p.Navigate(t.Context(), srv.URL+ap.URL); err != nil {
		t.Fatal(err)
	} else if resp.Status != http.StatusNotFound {
		t.Errorf("the used approval's page: got status %d, want 404", resp.Status)
	}
}

// TestDenyInBrowser: alice denies the call on the approval page; the
// agent's confirm: true is refused, nothing is ordered and her cart is as
// it was.
func TestDenyInBrowser(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	s, srv := approvalShop(t)
	bot, ap, summary := pendingOrder(t, s, srv)
	stock, err := s.StockForTest(t.Context(), toteSKU)
	if err != nil {
		t.Fatal(err)
	}

	alice := newPerson(t, b, srv, "alice")
	alice.signInByForm(shop.DemoEmail, shop.DemoPassword)
	readApproval(t, alice, ap, summary)
	alice.click(".buttons form:has(input[value=deny]) button")
	alice.at(ap.URL)
	alice.see(".state", "Denied.")
	checkConsole(t, alice, 0)
	if got := approvalState(t, bot, ap.URL); got != affordances.ApprovalDenied {
		t.Errorf("the approval's status after alice denied: got %q, want denied", got)
	}

	status, d, _ := bot.call("/checkout", "placeOrder", nil, true)
	if status != http.StatusForbidden || d.OK || d.Error == nil || !strings.Contains(d.Error.Message, "denied") {
		t.Fatalf("placeOrder with confirm: true after alice denied: got %d %+v, want 403 saying she denied it", status, d.Error)
	}
	wantOrdered(t, s, 0)
	if n, err := s.CartCountForTest(t.Context(), shop.DemoEmail); err != nil || n != 1 {
		t.Errorf("alice's cart after the denial: %d items (%v), want the tote still in it", n, err)
	}
	if got, err := s.StockForTest(t.Context(), toteSKU); err != nil || got != stock {
		t.Errorf("the tote's stock after the denial: %d (%v), want %d", got, err, stock)
	}
}

// TestApprovalPageRefusesOthers: bob, signed in, finds alice's approval
// unknown, with nothing to press; alice's agent, with her token, cannot
// decide it, with the site's Origin or without; it stays pending.
func TestApprovalPageRefusesOthers(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	s, srv := approvalShop(t)
	bot, ap, _ := pendingOrder(t, s, srv)
	const bobEmail, bobPassword = "bob@example.com", "bob password"
	if _, err := s.CreateUser(t.Context(), bobEmail, bobPassword); err != nil {
		t.Fatal(err)
	}

	bob := newPerson(t, b, srv, "bob")
	bob.signInByForm(bobEmail, bobPassword)
	resp, err := bob.p.Navigate(t.Context(), srv.URL+ap.URL)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusNotFound {
		t.Errorf("bob opens alice's approval: got status %d, want 404", resp.Status)
	}
	bob.see(".error", "unknown")
	if n := bob.count("button, form"); n != 0 {
		t.Errorf("bob sees alice's approval with %d buttons and forms, want none", n)
	}
	for _, leak := range []string{"Place order", "$18.00", "4242"} {
		if strings.Contains(bob.text("body"), leak) {
			t.Errorf("bob reads %q of alice's call on her approval page", leak)
		}
	}
	// A document answered 404 is the one error Chromium logs.
	lines, err := bob.p.ConsoleNow(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if l != "error: Failed to load resource: the server responded with a status of 404 (Not Found)" {
			t.Errorf("bob's console says %q", l)
		}
	}

	for _, h := range []struct {
		name   string
		header http.Header
	}{
		{"with the site's Origin", http.Header{"Origin": {srv.URL}}},
		{"with Sec-Fetch-Site", http.Header{"Sec-Fetch-Site": {"same-origin"}}},
		{"without an Origin", nil},
	} {
		resp, page := bot.post(ap.URL, url.Values{"decision": {"approve"}}, h.header)
		if resp == nil {
			continue
		}
		if resp.StatusCode != http.StatusForbidden || strings.Contains(page, "Approved.") {
			t.Errorf("alice's agent approves %s: got %d, want 403", h.name, resp.StatusCode)
		}
	}
	if got := approvalState(t, bot, ap.URL); got != affordances.ApprovalPending {
		t.Errorf("after the agent tried to approve: got %q, want pending", got)
	}
	status, d, _ := bot.call("/checkout", "placeOrder", nil, true)
	if status != http.StatusPreconditionRequired || d.Approval == nil || d.Approval.URL != ap.URL {
		t.Errorf("placeOrder with confirm: true after the agent tried to approve: got %d %+v, want 428 and the same approval", status, d.Error)
	}
	wantOrdered(t, s, 0)
}
