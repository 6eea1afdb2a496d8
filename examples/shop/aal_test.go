package shop_test

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/htmlcheck"
)

// fragment GETs the AAL fragment of the page at path, with the page's
// query when it has one (the page's state may depend on it).
func (a *agent) fragment(page string) (*http.Response, []byte) {
	a.t.Helper()
	return a.do(http.MethodGet, fragmentURL(page), nil, nil)
}

// fragmentURL returns where the fragment of page is: its aal.FragmentPath and
// its query.
func fragmentURL(page string) string {
	path, query, _ := strings.Cut(page, "?")
	if query != "" {
		return aal.FragmentPath(path) + "?" + query
	}
	return aal.FragmentPath(path)
}

// inlineAAL finds the fragments inlined in a page.
var inlineAAL = regexp.MustCompile(`<script type="application/aal\+json">(.*?)</script>`)

// wantAAL is what each action of the shop declares to an AAL consumer
// (docs/protocol.md decisions 7 to 9), by affordance id, and the classes a consumer's gate
// must then ask a person about (docs/protocol.md decision 8).
var wantAAL = map[string]struct {
	action        aal.ActionType
	trust         aal.Trust
	destructive   bool
	reversible    bool
	preconditions []string
	classes       []aal.Class
}{
	"search":           {action: aal.Search, trust: aal.TrustSafe, reversible: true},
	"add-to-cart":      {action: aal.Submit, trust: aal.TrustUser, reversible: true},
	"update-quantity":  {action: aal.Update, trust: aal.TrustUser, reversible: true},
	"remove-from-cart": {action: aal.Update, trust: aal.TrustUser, reversible: true},
	"choose-address":   {action: aal.Select, trust: aal.TrustPersonal, reversible: true},
	"choose-payment":   {action: aal.Select, trust: aal.TrustPersonal, reversible: true},
	"place-order": {action: aal.Purchase, trust: aal.TrustFinancial, destructive: true, reversible: false,
		preconditions: []string{"cart.non_empty", "payment.attached"},
		classes:       []aal.Class{aal.ClassDestructive, aal.ClassFinancial, aal.ClassConfirm}},
	"sign-in":      {action: aal.Authenticate, trust: aal.TrustPersonal, reversible: true},
	"sign-out":     {action: aal.Submit, trust: aal.TrustUser, reversible: true},
	"write-review": {action: aal.Create, trust: aal.TrustUser, reversible: true},
	"delete-review": {action: aal.Delete, trust: aal.TrustUser, destructive: true, reversible: false,
		classes: []aal.Class{aal.ClassDestructive}},
	"cancel-order": {action: aal.Update, trust: aal.TrustFinancial, reversible: true,
		classes: []aal.Class{aal.ClassFinancial}},
	// Accounts (accounts.go): a delete is destructive and irreversible
	// whatever is declared (docs/protocol.md decision 8), and they declare it so.
	"sign-up":        {action: aal.Authenticate, trust: aal.TrustPersonal},
	"update-profile": {action: aal.Update, trust: aal.TrustPersonal, reversible: true},
	"add-address":    {action: aal.Create, trust: aal.TrustPersonal, reversible: true},
	"delete-address": {action: aal.Delete, trust: aal.TrustPersonal, destructive: true, classes: []aal.Class{aal.ClassDestructive}},
	"create-token":   {action: aal.Create, trust: aal.TrustPersonal, reversible: true},
	"revoke-token":   {action: aal.Delete, trust: aal.TrustPersonal, destructive: true, classes: []aal.Class{aal.ClassDestructive}},
	// Admin (admin.go): trust admin, which the gate always asks about.
	"set-price":    {action: aal.Update, trust: aal.TrustAdmin, reversible: true, classes: []aal.Class{aal.ClassAdmin}},
	"set-stock":    {action: aal.Update, trust: aal.TrustAdmin, reversible: true, classes: []aal.Class{aal.ClassAdmin}},
	"disable-user": {action: aal.Update, trust: aal.TrustAdmin, reversible: true, classes: []aal.Class{aal.ClassAdmin}},
	"enable-user":  {action: aal.Update, trust: aal.TrustAdmin, reversible: true, classes: []aal.Class{aal.ClassAdmin}},
	"delete-user": {action: aal.Delete, trust: aal.TrustAdmin, destructive: true,
		classes: []aal.Class{aal.ClassDestructive, aal.ClassAdmin, aal.ClassConfirm}},
}

// wantFlow is the checkout flow's step of each page in it.
var wantFlow = map[string]*aal.Flow{
	"/cart":              {ID: "checkout", Step: 1, Of: 4},
	"/checkout/shipping": {ID: "checkout", Step: 2, Of: 4},
	"/checkout/payment":  {ID: "checkout", Step: 3, Of: 4},
	"/checkout":          {ID: "checkout", Step: 4, Of: 4},
}

// TestAALPages: every page the shop serves, to nobody and to alice (with
// an empty cart and a full one, by cookie and by token), publishes the AAL
// fragment of its graph (docs/protocol.md decisions 7 and 9): the served
// fragment validates and is the one inlined in the page, every available
// affordance selects one element of the page, or several that each carry
// the input of their item (docs/protocol.md decision 11), no element carries a
// data-aal of no affordance, an unavailable action's one element is
// disabled with the graph's reason beside it, each graph action has its affordance and the
// reverse, the checkout's steps carry their flow, and placing the order
// costs the cart's total.
func TestAALPages(t *testing.T) {
	_, srv := newShop(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	alice.call("/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"}, false)
	_, d, _ := alice.call("/checkout", "placeOrder", nil, true)
	if !strings.HasPrefix(d.Redirect, "/orders/") {
		t.Fatalf("placeOrder: got %+v, want a redirect to the order", d)
	}
	// A cancelled order, and a review of one product and not of another:
	// the review and cancel actions both available and not.
	alice.call("/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"}, false)
	_, cancelled, _ := alice.call("/checkout", "placeOrder", nil, true)
	if status, d, _ := alice.call(cancelled.Redirect, "cancelOrder", nil, false); status != 200 {
		t.Fatalf("cancelOrder: got %d %+v, want 200", status, d.Error)
	}
	if status, d, _ := alice.call("/products/heavyweight-tee", "writeReview", map[string]any{"rating": 5, "body": "Worth the weight."}, false); status != 200 {
		t.Fatalf("writeReview: got %d %+v, want 200", status, d.Error)
	}
	pages := []string{"/", "/?q=tee", "/?q=linen&category=home", "/products/heavyweight-tee", "/products/canvas-cap", "/cart",
		"/checkout/shipping", "/checkout/payment", "/checkout", d.Redirect, cancelled.Redirect, "/orders", "/login",
		"/signup", "/account", "/account/tokens"}

	run := func(who string, a *agent) {
		for _, page := range pages {
			t.Run(who+" "+page, func(t *testing.T) {
				a.t = t
				checkAALPage(t, a, page, who == "nobody")
			})
		}
	}
	run("nobody", newBrowser(t, srv))
	run("alice, empty cart", alice)
	alice.t = t
	alice.call("/products/heavyweight-tee", "addToCart", map[string]any{"sku": "HWT-BLK-M", "quantity": 2}, false)
	alice.call("/products/stoneware-mug", "addToCart", map[string]any{"sku": "MUG-SLT"}, false)
	run("alice", alice)
	run("alice by token", newAgent(t, srv, demoToken))
}

// checkAALPage checks the AAL of one page as a sees it (see TestAALPages).
func checkAALPage(t *testing.T, a *agent, page string, nobody bool) {
	path, _, _ := strings.Cut(page, "?")
	resp, body := a.page(page)
	fresp, fragment := a.fragment(page)
	if resp == nil || fresp == nil {
		t.FailNow()
	}
	if nobody && strings.HasPrefix(path, "/orders/") {
		if resp.StatusCode != 404 || fresp.StatusCode != 404 {
			t.Errorf("nobody's order: got HTML %d and fragment %d, want 404 and 404", resp.StatusCode, fresp.StatusCode)
		}
		if strings.Contains(body, aal.MediaType) {
			t.Errorf("got a 404 page with an AAL fragment")
		}
		return
	}
	if resp.StatusCode != 200 || fresp.StatusCode != 200 {
		t.Fatalf("got HTML %d and fragment %d, want 200 and 200: %s", resp.StatusCode, fresp.StatusCode, fragment)
	}
	if ct := fresp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("fragment: got Content-Type %q, want application/json", ct)
	}
	for _, p := range aal.ValidateFragment(fragment) {
		t.Errorf("fragment: %s\n%s", p, fragment)
	}
	var f aal.Fragment
	if err := json.Unmarshal(fragment, &f); err != nil {
		t.Fatalf("fragment: %v", err)
	}
	if f.Page != path {
		t.Errorf("got page %q, want %q", f.Page, path)
	}

	// The head links the graph, the page's query kept (docs/protocol.md decision 3),
	// and the fragment, and inlines the same one.
	graph := "?affordances=1"
	if _, q, ok := strings.Cut(page, "?"); ok {
		graph = "?" + q + "&affordances=1"
	}
	for _, want := range []string{`<link rel="affordances" href="` + html.EscapeString(graph) + `">`, `<link rel="agent-affordances" href="` + html.EscapeString(fragmentURL(page)) + `">`} {
		if !strings.Contains(body, want) {
			t.Errorf("got HTML without %s", want)
		}
	}
	inline := inlineAAL.FindAllStringSubmatch(body, -1)
	if len(inline) != 1 {
		t.Fatalf("got %d inline AAL fragments, want 1", len(inline))
	}
	if inline[0][1] != string(fragment) {
		t.Errorf("got inline fragment\n%s\nwant the served one\n%s", inline[0][1], fragment)
	}

	// One affordance for each action of the graph, in the same order.
	status, g := a.graph(page)
	if status != 200 {
		t.Fatalf("graph: got %d, want 200", status)
	}
	var fromGraph, fromFragment []string
	for _, d := range g.Actions {
		fromGraph = append(fromGraph, aal.ID(d.Name))
	}
	for _, af := range f.Affordances {
		fromFragment = append(fromFragment, af.ID)
	}
	if !slices.Equal(fromGraph, fromFragment) {
		t.Fatalf("got affordances %v, want one for each action of the graph: %v", fromFragment, fromGraph)
	}

	doc, err := htmlcheck.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	count := func(selector string) int {
		t.Helper()
		n, err := doc.Count(selector)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	marked := 0 // elements that an affordance's selector matches
	for i, af := range f.Affordances {
		d := g.Actions[i]
		if af.Selector != aal.Selector(d.Name) {
			t.Errorf("%s: got selector %q, want %q", af.ID, af.Selector, aal.Selector(d.Name))
		}
		inputs, err := doc.Inputs(af.Selector)
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range aal.CheckMatches(d.Available, inputs) {
			t.Errorf("%s: selector %s: %s (docs/protocol.md decision 11)", af.ID, af.Selector, problem)
		}
		if !d.Available && len(inputs) != 1 {
			t.Errorf("%s: unavailable, and its selector matches %d elements, want its one disabled element", af.ID, len(inputs))
		}
		marked += len(inputs)
		if d.Available {
			if n := count(af.Selector + "[disabled]"); n != 0 {
				t.Errorf("%s: available, but its element is disabled", af.ID)
			}
		} else {
			if n := count(af.Selector + "[disabled]"); n != 1 {
				t.Errorf("%s: unavailable (%s), but its element is not disabled", af.ID, d.Reason)
			}
			if n := count(af.Selector + " ~ .reason:contains(" + cssString(d.Reason) + ")"); n != 1 {
				t.Errorf("%s: got no reason %q beside its disabled element", af.ID, d.Reason)
			}
		}
		checkDeclared(t, af, d)
		switch {
		case af.ID == "place-order":
			want := &aal.Cost{Currency: "USD", Amount: float64(num(obj(asMap(g.Entities), "cart", "total"))) / 100}
			if af.Cost == nil || *af.Cost != *want {
				t.Errorf("place-order: got cost %+v, want the cart's total %+v", af.Cost, want)
			}
		case af.Cost != nil:
			t.Errorf("%s: got cost %+v, want none", af.ID, *af.Cost)
		}
	}
	if n := count("[data-aal]"); n != marked {
		t.Errorf("got %d elements with data-aal, want %d, those of the page's affordances", n, marked)
	}
	if want := wantFlow[path]; (want == nil) != (f.Flow == nil) || (want != nil && *want != *f.Flow) {
		t.Errorf("got flow %+v, want %+v", f.Flow, want)
	}
}

// checkDeclared checks that af declares what the shop means (wantAAL) and
// that a consumer's gate asks a person exactly where it should.
func checkDeclared(t *testing.T, af aal.Affordance, d affordances.ActionDescriptor) {
	t.Helper()
	want, ok := wantAAL[af.ID]
	if !ok {
		t.Errorf("%s: an affordance this test does not know", af.ID)
		return
	}
	if af.Action != want.action || af.Trust != want.trust || af.Destructive != want.destructive || af.Reversible != want.reversible {
		t.Errorf("%s: got %s/%s destructive %v reversible %v, want %s/%s destructive %v reversible %v", af.ID,
			af.Action, af.Trust, af.Destructive, af.Reversible, want.action, want.trust, want.destructive, want.reversible)
	}
	if !slices.Equal(af.Preconditions, want.preconditions) {
		t.Errorf("%s: got preconditions %v, want %v", af.ID, af.Preconditions, want.preconditions)
	}
	if got := aal.Classify(af, string(d.Expose)).Classes; !slices.Equal(got, want.classes) {
		t.Errorf("%s: the gate asks about %v, want %v", af.ID, got, want.classes)
	}
	if af.ID == "place-order" && af.SuccessSchema["orderId"] != "string" {
		t.Errorf("place-order: got success_schema %v, want it to name orderId", af.SuccessSchema)
	}
}

// cssString quotes s as a CSS string.
func cssString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestAALManifest: the manifest validates and lists every route of the site
// index, each with its fragment path (docs/protocol.md decision 7).
func TestAALManifest(t *testing.T) {
	_, srv := newShop(t)
	a := newAgent(t, srv, "")
	resp, body := a.do(http.MethodGet, aal.ManifestPath, nil, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %q, want 200 application/json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, p := range aal.ValidateManifest(body) {
		t.Errorf("manifest: %s", p)
	}
	var m aal.Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if m.Site.Name != "Demo Shop" || m.Site.Origin != srv.URL {
		t.Errorf("got site %+v, want Demo Shop at %s", m.Site, srv.URL)
	}
	_, body = a.do(http.MethodGet, affordances.IndexPath, nil, nil)
	var idx affordances.SiteIndex
	if err := json.Unmarshal(body, &idx); err != nil {
		t.Fatal(err)
	}
	var indexed, listed []string
	for _, r := range idx.Routes {
		indexed = append(indexed, r.Route)
	}
	for _, r := range m.Routes {
		listed = append(listed, r.Route)
		if want := aal.FragmentPath(r.Route); r.Fragment != want {
			t.Errorf("route %s: got fragment %s, want %s", r.Route, r.Fragment, want)
		}
	}
	want := []string{"/", "/products/[slug]", "/products/[slug]/reviews", "/cart", "/checkout/shipping", "/checkout/payment", "/checkout", "/orders/[id]", "/login", "/orders",
		"/signup", "/account", "/account/tokens", "/admin", "/admin/users"}
	if !slices.Equal(listed, want) || !slices.Equal(indexed, want) {
		t.Errorf("got manifest routes %v and index routes %v, want %v", listed, indexed, want)
	}
}
