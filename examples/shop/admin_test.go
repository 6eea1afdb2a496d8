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

// Decision (docs/protocol.md decision 1): the admin pages are not found for anyone but
// an admin, graph (not_found, 404) and HTML (404) alike, as another
// customer's order is; the site index lists their routes with no actions;
// a call to one of their actions is refused as for any hidden action,
// unauthorized (401 for nobody, 403 for a customer, docs/protocol.md decision 2).

var (
	adminPages   = []string{"/admin", "/admin/users"}
	adminActions = map[string][]string{
		"/admin":       {"setPrice", "setStock"},
		"/admin/users": {"disableUser", "enableUser", "deleteUser"},
	}
)

// checkNotFound checks that a's request for page, its graph and its AAL
// fragment are all not found, and that the 404 page publishes nothing.
func checkNotFound(t *testing.T, a *agent, page string) {
	t.Helper()
	resp, body := a.page(page)
	fresp, _ := a.fragment(page)
	status, _ := a.graph(page)
	if resp == nil || fresp == nil {
		t.FailNow()
	}
	if resp.StatusCode != http.StatusNotFound || fresp.StatusCode != http.StatusNotFound || status != http.StatusNotFound {
		t.Errorf("%s: got HTML %d, fragment %d and graph %d, want 404 for each", page, resp.StatusCode, fresp.StatusCode, status)
	}
	if strings.Contains(body, aal.MediaType) || strings.Contains(body, "data-aal") {
		t.Errorf("%s: got a 404 page with AAL in it", page)
	}
}

// TestAdminIsForAdmins: the admin sees the admin pages and their actions;
// alice and nobody do not (see the decision above).
func TestAdminIsForAdmins(t *testing.T) {
	_, srv := newShop(t)
	admin := newBrowser(t, srv)
	admin.signIn(shop.AdminEmail, shop.AdminPassword)
	aliceCookie := newBrowser(t, srv)
	aliceCookie.signIn(shop.DemoEmail, shop.DemoPassword)

	t.Run("the admin", func(t *testing.T) {
		admin.t = t
		for _, page := range adminPages {
			status, g := admin.graph(page)
			if status != http.StatusOK {
				t.Fatalf("%s: got %d, want 200", page, status)
			}
			var names []string
			for _, d := range g.Actions {
				names = append(names, d.Name)
				if !d.Available {
					t.Errorf("%s: got %s unavailable (%s), want available", page, d.Name, d.Reason)
				}
			}
			if !slices.Equal(names, adminActions[page]) {
				t.Errorf("%s: got actions %v, want %v", page, names, adminActions[page])
			}
			see(t, admin, page, "Admin", `data-aal="`+aal.ID(adminActions[page][0])+`"`)
		}
		see(t, admin, "/", `<a href="/admin">Admin</a>`)
		if _, g := admin.graph("/"); !slices.ContainsFunc(g.Nav, func(l affordances.NavLink) bool { return l.To == "/admin" }) {
			t.Errorf("got nav %v, want a link to /admin", g.Nav)
		}
		if got := indexActions(t, admin, "/admin/users"); !slices.Equal(got, adminActions["/admin/users"]) {
			t.Errorf("index: got /admin/users actions %v, want %v", got, adminActions["/admin/users"])
		}
	})

	for _, tc := range []struct {
		name       string
		who        *agent
		wantStatus int
	}{
		{"alice by cookie", aliceCookie, http.StatusForbidden},
		{"alice by token", newAgent(t, srv, demoToken), http.StatusForbidden},
		{"nobody", newBrowser(t, srv), http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.who.t = t
			for _, page := range adminPages {
				checkNotFound(t, tc.who, page)
				if got := indexActions(t, tc.who, page); len(got) != 0 {
					t.Errorf("index: got %s actions %v, want none", page, got)
				}
			}
			status, d, _ := tc.who.call("/admin", "setPrice", map[string]any{"slug": "canvas-tote", "price": 1}, false)
			wantError(t, "setPrice", status, d, tc.wantStatus, affordances.Unauthorized, "")
			status, d, _ = tc.who.call("/admin/users", "deleteUser", map[string]any{"email": shop.AdminEmail}, true)
			wantError(t, "deleteUser", status, d, tc.wantStatus, affordances.Unauthorized, "")
			if _, g := tc.who.graph("/"); slices.ContainsFunc(g.Nav, func(l affordances.NavLink) bool { return l.To == "/admin" }) {
				t.Errorf("got nav %v, want no link to /admin", g.Nav)
			}
			if _, body := tc.who.page("/"); strings.Contains(body, `href="/admin"`) {
				t.Errorf("got a page that links /admin")
			}
		})
	}

	t.Run("a customer's forms and nobody's are not found", func(t *testing.T) {
		aliceCookie.t = t
		resp := aliceCookie.form("/admin", url.Values{"_action": {"setPrice"}, "slug": {"canvas-tote"}, "price": {"1"}}, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("alice's setPrice form: got %d, want 404", resp.StatusCode)
		}
		resp = newBrowser(t, srv).form("/admin/users", url.Values{"_action": {"disableUser"}, "email": {shop.DemoEmail}}, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("nobody's disableUser form: got %d, want 404", resp.StatusCode)
		}
		if _, g := newAgent(t, srv, demoToken).graph("/products/canvas-tote"); num(obj(asMap(g.Entities), "product", "price")) != 1800 {
			t.Errorf("got price %v, want 1800: nothing changed", obj(asMap(g.Entities), "product", "price"))
		}
	})
}

// indexActions returns the actions the site index lists on route for a.
func indexActions(t *testing.T, a *agent, route string) []string {
	t.Helper()
	_, body := a.do(http.MethodGet, affordances.IndexPath, nil, nil)
	checkDocument(t, "index", body)
	var idx affordances.SiteIndex
	if err := json.Unmarshal(body, &idx); err != nil {
		t.Fatal(err)
	}
	for _, r := range idx.Routes {
		if r.Route == route {
			var names []string
			for _, a := range r.Actions {
				names = append(names, a.Name)
			}
			return names
		}
	}
	t.Errorf("index: no route %s", route)
	return nil
}

// TestSetPrice: a price the admin sets is the price alice sees on the
// product page, graph and HTML, and in her cart.
func TestSetPrice(t *testing.T) {
	_, srv := newShop(t)
	admin := newBrowser(t, srv)
	admin.signIn(shop.AdminEmail, shop.AdminPassword)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	callOK(t, alice, "/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"})

	d := callOK(t, admin, "/admin", "setPrice", map[string]any{"slug": "canvas-tote", "price": "24.50"})
	if d.Message != "Canvas Tote now costs $24.50 (was $18.00)." {
		t.Errorf("got message %q", d.Message)
	}
	if _, g := alice.graph("/products/canvas-tote"); num(obj(asMap(g.Entities), "product", "price")) != 2450 {
		t.Errorf("alice's graph: got price %v, want 2450", obj(asMap(g.Entities), "product", "price"))
	}
	see(t, alice, "/products/canvas-tote", "$24.50")
	if _, g := alice.graph("/cart"); num(obj(asMap(g.Entities), "cart", "total")) != 2450 {
		t.Errorf("alice's cart: got total %v, want 2450", obj(asMap(g.Entities), "cart", "total"))
	}

	resp := admin.form("/admin?page=2", url.Values{"_action": {"setPrice"}, "slug": {"canvas-tote"}, "price": {"$19.5"}}, nil)
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/admin?page=2" {
		t.Fatalf("form: got %d to %q, want 303 to /admin?page=2", resp.StatusCode, loc)
	}
	see(t, admin, "/admin?page=2", "Canvas Tote now costs $19.50 (was $24.50).")
	see(t, alice, "/products/canvas-tote", "$19.50")

	for _, tc := range []struct {
		name  string
		input map[string]any
		issue string
	}{
		{"an unknown product", map[string]any{"slug": "no-such-thing", "price": "1.00"}, "/slug"},
		{"a negative price", map[string]any{"slug": "canvas-tote", "price": "-1"}, "/price"},
		{"not dollars", map[string]any{"slug": "canvas-tote", "price": "12 euros"}, "/price"},
		{"a price in cents", map[string]any{"slug": "canvas-tote", "price": 1950}, "/price"},
		{"more than $100,000", map[string]any{"slug": "canvas-tote", "price": "100000.01"}, "/price"},
	} {
		status, d, _ := admin.call("/admin", "setPrice", tc.input, false)
		wantError(t, tc.name, status, d, http.StatusBadRequest, affordances.InvalidInput, tc.issue)
	}
	resp, page := admin.post("/admin", url.Values{"_action": {"setPrice"}, "slug": {"canvas-tote"}, "price": {"twelve"}}, nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(issueAt(page, "price"), "not a price in dollars") || !strings.Contains(page, `value="twelve"`) {
		t.Errorf("twelve: got %d with the issue %q, want 400 with the issue at the price and what was typed", resp.StatusCode, issueAt(page, "price"))
	}
	see(t, alice, "/products/canvas-tote", "$19.50")
}

// TestSetStock: the stock the admin sets is what alice can buy.
func TestSetStock(t *testing.T) {
	s, srv := newShop(t)
	admin := newBrowser(t, srv)
	admin.signIn(shop.AdminEmail, shop.AdminPassword)
	alice := newAgent(t, srv, demoToken)

	callOK(t, admin, "/admin", "setStock", map[string]any{"sku": "TOTE-NAT", "stock": 0})
	_, g := alice.graph("/products/canvas-tote")
	if add := descriptor(g.Actions, "addToCart"); variantStock(g, "TOTE-NAT") != 0 || add == nil || add.Available || add.Reason != "Out of stock." {
		t.Errorf("got stock %d and addToCart %+v, want 0 and unavailable: Out of stock.", variantStock(g, "TOTE-NAT"), add)
	}

	admin.form("/admin", url.Values{"_action": {"setStock"}, "sku": {"TOTE-NAT"}, "stock": {"7"}}, nil)
	see(t, admin, "/admin", "Canvas Tote (Natural): 7 in stock (was 0).")
	if got, _ := s.StockForTest(t.Context(), "TOTE-NAT"); got != 7 {
		t.Errorf("got stock %d, want 7", got)
	}
	callOK(t, alice, "/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT", "quantity": 7})

	status, d, _ := admin.call("/admin", "setStock", map[string]any{"sku": "TOTE-NAT", "stock": -1}, false)
	wantError(t, "a negative stock", status, d, http.StatusBadRequest, affordances.InvalidInput, "/stock")
	status, d, _ = admin.call("/admin", "setStock", map[string]any{"sku": "NOPE", "stock": 1}, false)
	wantError(t, "an unknown sku", status, d, http.StatusBadRequest, affordances.InvalidInput, "/sku")
	resp, page := admin.post("/admin", url.Values{"_action": {"setStock"}, "sku": {"TOTE-NAT"}, "stock": {"-3"}}, nil)
	if resp.StatusCode != http.StatusBadRequest || issueAt(page, "stock") == "" {
		t.Errorf("a negative stock by the form: got %d with the issue %q, want 400 with an issue at the stock", resp.StatusCode, issueAt(page, "stock"))
	}
	if got, _ := s.StockForTest(t.Context(), "TOTE-NAT"); got != 7 {
		t.Errorf("got stock %d, want 7: the refused form changed nothing", got)
	}
}

// TestDisableUser: a disabled account cannot sign in (the answer of a
// wrong password), and its session and token stop working at once;
// enabling it brings the token back. An admin cannot disable themselves.
func TestDisableUser(t *testing.T) {
	_, srv := newShop(t)
	admin := newBrowser(t, srv)
	admin.signIn(shop.AdminEmail, shop.AdminPassword)
	aliceCookie := newBrowser(t, srv)
	aliceCookie.signIn(shop.DemoEmail, shop.DemoPassword)
	aliceToken := newAgent(t, srv, demoToken)

	d := callOK(t, admin, "/admin/users", "disableUser", map[string]any{"email": shop.DemoEmail})
	if got := obj(d.Changed, "counts", "disabled"); num(got) != 1 {
		t.Errorf("got changed.counts.disabled %v, want 1", got)
	}
	if _, g := aliceCookie.graph("/login"); g.Entities["signedIn"] != false {
		t.Errorf("alice's session: got %v, want nobody", g.Entities)
	}
	if status, _ := aliceToken.graph("/account"); status != http.StatusUnauthorized {
		t.Errorf("alice's token: got %d, want 401", status)
	}
	status, d, _ := newBrowser(t, srv).call("/login", "signIn", map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}, false)
	wantError(t, "signIn", status, d, http.StatusUnauthorized, affordances.Unauthorized, "")
	if d.Error != nil && d.Error.Message != "Wrong email or password." {
		t.Errorf("got message %q, want the answer of a wrong password", d.Error.Message)
	}
	see(t, admin, "/admin/users", "Disabled", `aria-label="Enable alice@example.com"`)

	admin.form("/admin/users", url.Values{"_action": {"enableUser"}, "email": {shop.DemoEmail}}, nil)
	see(t, admin, "/admin/users", "alice@example.com is enabled again")
	if status, _ := aliceToken.graph("/account"); status != http.StatusOK {
		t.Errorf("alice's token after enableUser: got %d, want 200", status)
	}
	newBrowser(t, srv).signIn(shop.DemoEmail, shop.DemoPassword)

	admin.form("/admin/users", url.Values{"_action": {"disableUser"}, "email": {shop.DemoEmail}}, nil)
	see(t, admin, "/admin/users", "alice@example.com is disabled")
	if status, _ := aliceToken.graph("/account"); status != http.StatusUnauthorized {
		t.Errorf("alice's token after the disable form: got %d, want 401", status)
	}

	status, d, _ = admin.call("/admin/users", "disableUser", map[string]any{"email": shop.AdminEmail}, false)
	wantError(t, "disabling oneself", status, d, http.StatusConflict, affordances.Unavailable, "")
	status, d, _ = admin.call("/admin/users", "disableUser", map[string]any{"email": "nobody@example.com"}, false)
	wantError(t, "an unknown account", status, d, http.StatusBadRequest, affordances.InvalidInput, "/email")
}

// TestDeleteUser: deleteUser is confirmed first (docs/protocol.md §19, step 6),
// then deletes the account with its sessions, tokens, cart, addresses,
// cards and reviews. An account with orders is kept (the shop keeps its
// order records; disable it instead), and an admin cannot delete themselves.
func TestDeleteUser(t *testing.T) {
	s, srv := newShop(t)
	ctx := t.Context()
	admin := newBrowser(t, srv)
	admin.signIn(shop.AdminEmail, shop.AdminPassword)

	bob := newBrowser(t, srv)
	callOK(t, bob, "/signup", "signUp", signUpInput("Bob Builder", "bob@example.com", "bobs password"))
	callOK(t, bob, "/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"})
	callOK(t, bob, "/account", "addAddress", map[string]any{"name": "Bob", "line1": "2 Site Rd", "city": "Leeds", "postcode": "LS1", "country": "GB"})
	token, _ := obj(callOK(t, bob, "/account/tokens", "createToken", map[string]any{"name": "agent"}).Output, "token").(string)
	if err := s.AddReviewForTest(ctx, "bob@example.com", "canvas-tote"); err != nil {
		t.Fatal(err)
	}
	id, err := s.UserIDForTest(ctx, "bob@example.com")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.UserRowsForTest(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for table, n := range rows {
		if n == 0 && table != "orders" && table != "checkout_choices" {
			t.Errorf("before: got no %s of bob's, want some: the test checks nothing", table)
		}
	}

	status, d, _ := admin.call("/admin/users", "deleteUser", map[string]any{"email": "bob@example.com"}, false)
	wantError(t, "deleteUser without confirm", status, d, http.StatusPreconditionRequired, affordances.ConfirmRequired, "")
	if want := "Delete the account of Bob Builder (bob@example.com) with its sessions, tokens, cart, addresses, cards and 1 review. This cannot be undone."; d.Error == nil || d.Error.Message != want {
		t.Errorf("got %+v, want the summary %q", d.Error, want)
	}
	if rows, _ := s.UserRowsForTest(ctx, id); rows["users"] != 1 {
		t.Fatalf("got %v, want bob still there: nothing runs without confirm", rows)
	}

	status, d, _ = admin.call("/admin/users", "deleteUser", map[string]any{"email": "bob@example.com"}, true)
	wantOK(t, "deleteUser", status, d)
	rows, err = s.UserRowsForTest(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for table, n := range rows {
		if n != 0 {
			t.Errorf("after: got %d rows of bob's in %s, want none", n, table)
		}
	}
	if status, _ := newAgent(t, srv, token).graph("/"); status != http.StatusUnauthorized {
		t.Errorf("bob's token: got %d, want 401", status)
	}
	if _, g := bob.graph("/login"); g.Entities["signedIn"] != false {
		t.Errorf("bob's session: got %v, want nobody", g.Entities)
	}

	t.Run("an account with orders is kept", func(t *testing.T) {
		alice := newAgent(t, srv, demoToken)
		callOK(t, alice, "/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"})
		if status, d, _ := alice.call("/checkout", "placeOrder", nil, true); status != http.StatusOK {
			t.Fatalf("placeOrder: got %d %+v", status, d.Error)
		}
		admin.t = t
		for _, confirm := range []bool{false, true} {
			status, d, _ := admin.call("/admin/users", "deleteUser", map[string]any{"email": shop.DemoEmail}, confirm)
			wantError(t, "deleting alice", status, d, http.StatusConflict, affordances.Unavailable, "")
			if d.Error != nil && !strings.Contains(d.Error.Message, "has 1 order, and the shop keeps its order records") {
				t.Errorf("got message %q, want why", d.Error.Message)
			}
		}
		if status, _ := alice.graph("/account"); status != http.StatusOK {
			t.Errorf("alice's token: got %d, want 200: alice is kept", status)
		}
	})

	t.Run("an admin cannot delete themselves", func(t *testing.T) {
		admin.t = t
		status, d, _ := admin.call("/admin/users", "deleteUser", map[string]any{"email": shop.AdminEmail}, true)
		wantError(t, "deleting oneself", status, d, http.StatusConflict, affordances.Unavailable, "")
		if _, g := admin.graph("/admin/users"); num(obj(asMap(g.Entities), "counts", "admins")) != 1 {
			t.Errorf("got counts %v, want the admin kept", g.Entities["counts"])
		}
		see(t, admin, "/admin/users", "You</span>")
	})

	t.Run("by the form, asked first", func(t *testing.T) {
		admin.t = t
		token, err := s.CreateUser(ctx, "carol@example.com", "password")
		if err != nil {
			t.Fatal(err)
		}
		resp, body := admin.do(http.MethodPost, "/admin/users", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
			[]byte(url.Values{"_action": {"deleteUser"}, "email": {"carol@example.com"}}.Encode()))
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Delete the account of Customer (carol@example.com)") ||
			!strings.Contains(string(body), `name="_confirm" value="yes"`) {
			t.Fatalf("got %d without the summary, want a page that asks", resp.StatusCode)
		}
		if status, _ := newAgent(t, srv, token).graph("/"); status != http.StatusOK {
			t.Errorf("carol's token before confirming: got %d, want 200", status)
		}
		resp = admin.form("/admin/users", url.Values{"_action": {"deleteUser"}, "email": {"carol@example.com"}, "_confirm": {"yes"}}, nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/admin/users" {
			t.Fatalf("got %d to %q, want 303 to /admin/users", resp.StatusCode, loc)
		}
		see(t, admin, "/admin/users", "Deleted the account of carol@example.com")
		if status, _ := newAgent(t, srv, token).graph("/"); status != http.StatusUnauthorized {
			t.Errorf("carol's token: got %d, want 401", status)
		}
		resp, page := admin.post("/admin/users", url.Values{"_action": {"deleteUser"}, "email": {shop.AdminEmail}}, nil)
		if resp.StatusCode != http.StatusConflict || !strings.Contains(page, flashErr("You cannot delete your own account.")) {
			t.Fatalf("deleting oneself: got %d, want the page again, 409, saying why", resp.StatusCode)
		}
	})
}

// TestAdminPages: the admin pages, as the admin sees them, publish their
// AAL (checkAALPage, as TestAALPages does for the other pages: the
// fragment, one element for each affordance, what each declares), show
// every string of their graph (as TestParity asks), and keep their graphs
// small (as TestGraphsStaySmall asks); anyone else finds nothing there.
func TestAdminPages(t *testing.T) {
	s, srv := newShop(t)
	for i := range 6 { // two pages of users
		if _, err := s.CreateUser(t.Context(), "customer"+string(rune('a'+i))+"@example.com", "password"); err != nil {
			t.Fatal(err)
		}
	}
	admin := newBrowser(t, srv)
	admin.signIn(shop.AdminEmail, shop.AdminPassword)
	callOK(t, admin, "/admin/users", "disableUser", map[string]any{"email": "customera@example.com"})
	callOK(t, admin, "/admin", "setStock", map[string]any{"sku": "HWT-BLK-S", "stock": 0})
	pages := []string{"/admin", "/admin?page=2", "/admin?page=4", "/admin/users", "/admin/users?page=2"}
	for _, page := range pages {
		t.Run("admin "+page, func(t *testing.T) {
			admin.t = t
			checkAALPage(t, admin, page, false)
			status, g := admin.graph(page)
			if status != http.StatusOK {
				t.Fatalf("got %d, want 200", status)
			}
			_, body := admin.do(http.MethodGet, page, http.Header{"Accept": {affordances.MediaType}}, nil)
			if len(body) > 1600 { // as TestGraphsStaySmall
				t.Errorf("got a graph of %d bytes, want at most 1600:\n%s", len(body), body)
			}
			text := html.UnescapeString(hiddenInput.ReplaceAllString(pageText(t, admin, page), ""))
			seen := 0
			walkStrings(asMap(g.Entities), "", func(ptr, s string) {
				seen++
				if !strings.Contains(text, s) {
					t.Errorf("got HTML without %q, the entity at %s", s, ptr)
				}
			})
			if seen == 0 {
				t.Errorf("got no strings among the entities: the test checks nothing")
			}
		})
	}
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	for _, who := range []struct {
		name string
		a    *agent
	}{{"nobody", newBrowser(t, srv)}, {"alice", alice}, {"alice by token", newAgent(t, srv, demoToken)}} {
		for _, page := range pages {
			t.Run(who.name+" "+page, func(t *testing.T) {
				who.a.t = t
				checkNotFound(t, who.a, page)
			})
		}
	}
}

// TestPageNumbers: a page number no listing has (0, a word, one whose
// offset overflows) is 404 on every paged list, the catalog and the admin
// pages included, before any query sees it: on PostgreSQL,
// ?page=9223372036854775807 was a 500, "OFFSET must not be negative".
func TestPageNumbers(t *testing.T) {
	_, srv := newShop(t)
	admin := newBrowser(t, srv)
	admin.signIn(shop.AdminEmail, shop.AdminPassword)
	for _, path := range []string{"/", "/?q=tote", "/orders", "/products/canvas-tote/reviews", "/admin", "/admin/users"} {
		for _, page := range []string{"9223372036854775807", "384307168202282326", "99999999999999999999", "0", "-3", "two"} {
			u := path + map[bool]string{true: "&", false: "?"}[strings.Contains(path, "?")] + "page=" + page
			if status, _ := admin.graph(u); status != http.StatusNotFound {
				t.Errorf("GET %s: got %d, want 404", u, status)
			}
			if resp, _ := admin.page(u); resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s as HTML: got %d, want 404", u, resp.StatusCode)
			}
		}
	}
}
