package shop_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
)

// wantOK fails the test unless a call answered 200 with an ok delta.
func wantOK(t *testing.T, what string, status int, d affordances.Delta) {
	t.Helper()
	if status != http.StatusOK || !d.OK {
		t.Fatalf("%s: got %d %+v, want 200 ok", what, status, d.Error)
	}
}

// wantError fails the test unless a call answered status with an error
// delta of code, with an issue at issue when issue is not empty.
func wantError(t *testing.T, what string, status int, d affordances.Delta, wantStatus int, code affordances.Code, issue string) {
	t.Helper()
	if status != wantStatus || d.OK || d.Error == nil || d.Error.Code != code {
		t.Errorf("%s: got %d %+v, want %d %s", what, status, d.Error, wantStatus, code)
		return
	}
	if issue != "" && !slices.ContainsFunc(d.Error.Issues, func(i affordances.Issue) bool { return i.Path == issue }) {
		t.Errorf("%s: got issues %+v, want one at %s", what, d.Error.Issues, issue)
	}
}

// signUpInput is the input of the signUp action.
func signUpInput(name, email, password string) map[string]any {
	return map[string]any{"name": name, "email": email, "password": password}
}

// pageText GETs a page's HTML, unescaped, and fails unless it is a 200.
func pageText(t *testing.T, a *agent, path string) string {
	t.Helper()
	resp, body := a.page(path)
	if resp == nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: got %v, want 200", path, resp)
	}
	return html.UnescapeString(body)
}

// see fails the test unless the page at path shows every one of want.
func see(t *testing.T, a *agent, path string, want ...string) {
	t.Helper()
	text := pageText(t, a, path)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("GET %s: got a page without %q", path, w)
		}
	}
}

// TestSignUp: a person signs up by the action (an agent) or by the form (a
// browser) and is then signed in to the new account; an email that has an
// account is refused with invalid_input at /email (docs/protocol.md decision 2) and
// creates nothing.
func TestSignUp(t *testing.T) {
	_, srv := newShop(t)
	admin := newBrowser(t, srv)
	admin.signIn(shop.AdminEmail, shop.AdminPassword)
	accounts := func(t *testing.T) int {
		t.Helper()
		admin.t = t
		_, g := admin.graph("/admin/users")
		return num(obj(asMap(g.Entities), "counts", "users"))
	}
	before := accounts(t)

	t.Run("by the action", func(t *testing.T) {
		b := newBrowser(t, srv)
		status, d, h := b.call("/signup", "signUp", signUpInput("Bob Builder", "bob@example.com", "correct horse"), false)
		wantOK(t, "signUp", status, d)
		if !strings.Contains(h.Get("Set-Cookie"), "sid=") {
			t.Errorf("got Set-Cookie %q, want a session", h.Get("Set-Cookie"))
		}
		if d.Redirect != "/account" || d.Changed["signedIn"] != true || d.Changed["email"] != "bob@example.com" {
			t.Errorf("got redirect %q and changed %v, want /account, signed in as bob@example.com", d.Redirect, d.Changed)
		}
		if got := obj(d.Output, "email"); got != "bob@example.com" {
			t.Errorf("got output.email %v, want bob@example.com", got)
		}
		_, g := b.graph("/account")
		if got := obj(asMap(g.Entities), "profile"); !equalJSON(got, map[string]any{"name": "Bob Builder", "email": "bob@example.com"}) {
			t.Errorf("got profile %v, want Bob Builder, bob@example.com", got)
		}
		// A new customer can check out: the demo's test card and a sample
		// address come with the account.
		_, g = b.graph("/checkout/shipping")
		if got := obj(asMap(g.Entities), "addresses", 0, "name"); got != "Bob Builder" {
			t.Errorf("got first address's name %v, want Bob Builder", got)
		}
	})

	t.Run("by the form", func(t *testing.T) {
		b := newBrowser(t, srv)
		see(t, b, "/signup", `data-aal="sign-up"`, "Create an account")
		resp := b.form("/signup", url.Values{"_action": {"signUp"}, "name": {"Carol Cook"}, "email": {"carol@example.com"}, "password": {"carols-secret"}}, nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/account" {
			t.Fatalf("got %d to %q, want 303 to /account", resp.StatusCode, loc)
		}
		see(t, b, "/account", "Welcome, Carol Cook.", "carol@example.com", "Shipping addresses")
		if _, g := b.graph("/login"); g.Entities["email"] != "carol@example.com" {
			t.Errorf("got signed in as %v, want carol@example.com", g.Entities["email"])
		}
	})

	t.Run("docs/protocol.md decision 2: an email with an account is invalid_input at /email, and nothing changes", func(t *testing.T) {
		b := newBrowser(t, srv)
		status, d, h := b.call("/signup", "signUp", signUpInput("Impostor", "BOB@example.com", "another password"), false)
		wantError(t, "signUp again", status, d, http.StatusBadRequest, affordances.InvalidInput, "/email")
		if h.Get("Set-Cookie") != "" {
			t.Errorf("got Set-Cookie %q, want none", h.Get("Set-Cookie"))
		}
		resp, page := b.post("/signup", url.Values{"_action": {"signUp"}, "name": {"Impostor"}, "email": {"carol@example.com"}, "password": {"another password"}}, nil)
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Set-Cookie") != "" {
			t.Fatalf("form: got %d with Set-Cookie %q, want the page again, 400, and no session", resp.StatusCode, resp.Header.Get("Set-Cookie"))
		}
		if got := issueAt(page, "email"); !strings.Contains(got, "has an account already") {
			t.Errorf("form: got the issue %q at the email, want why", got)
		}
		if !strings.Contains(page, `value="Impostor"`) || !strings.Contains(page, `value="carol@example.com"`) {
			t.Errorf("form: got a page without the name and email typed")
		}
		if status, d, _ := b.call("/login", "signIn", map[string]any{"email": "bob@example.com", "password": "another password"}, false); status != http.StatusUnauthorized {
			t.Errorf("signIn with the refused password: got %d %+v, want 401", status, d.Error)
		}
		b.signIn("bob@example.com", "correct horse")
		if _, g := b.graph("/account"); obj(asMap(g.Entities), "profile", "name") != "Bob Builder" {
			t.Errorf("got profile %v, want Bob Builder's, unchanged", g.Entities["profile"])
		}
		if got, want := accounts(t), before+2; got != want {
			t.Errorf("got %d accounts, want %d: the refused sign-ups created none", got, want)
		}
	})

	t.Run("a short password or a bad email is refused, by the action and the form", func(t *testing.T) {
		b := newBrowser(t, srv)
		status, d, _ := b.call("/signup", "signUp", signUpInput("Dan", "dan@example.com", "short"), false)
		wantError(t, "short password", status, d, http.StatusBadRequest, affordances.InvalidInput, "/password")
		status, d, _ = b.call("/signup", "signUp", signUpInput("Dan", "not an email", "long enough"), false)
		wantError(t, "bad email", status, d, http.StatusBadRequest, affordances.InvalidInput, "/email")
		resp, page := b.post("/signup", url.Values{"_action": {"signUp"}, "name": {"Dan"}, "email": {"dan@example.com"}, "password": {"short"}}, nil)
		if resp.StatusCode != http.StatusBadRequest || issueAt(page, "password") == "" || issueAt(page, "email") != "" {
			t.Errorf("a short password by the form: got %d with issues %q at the password and %q at the email, want 400 and one at the password",
				resp.StatusCode, issueAt(page, "password"), issueAt(page, "email"))
		}
		if strings.Contains(page, "short") {
			t.Errorf("got a page that shows the password typed")
		}
		if got, want := accounts(t), before+2; got != want {
			t.Errorf("got %d accounts, want %d", got, want)
		}
	})
}

// equalJSON reports whether got, a decoded JSON value, is want.
func equalJSON(got any, want map[string]any) bool {
	m, ok := got.(map[string]any)
	if !ok || len(m) != len(want) {
		return false
	}
	for k, v := range want {
		if m[k] != v {
			return false
		}
	}
	return true
}

// TestProfile: the account page shows the profile and the addresses, and
// updateProfile changes the name, by the action and by the form.
func TestProfile(t *testing.T) {
	_, srv := newShop(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)

	status, d, _ := alice.call("/account", "updateProfile", map[string]any{"name": "Alice Pleasance"}, false)
	wantOK(t, "updateProfile", status, d)
	if got := obj(d.Changed, "profile", "name"); got != "Alice Pleasance" {
		t.Errorf("got changed.profile.name %v, want Alice Pleasance", got)
	}
	see(t, alice, "/account", "Alice Pleasance", shop.DemoEmail, "500 Market St")

	alice.form("/account", url.Values{"_action": {"updateProfile"}, "name": {"  Alice L.  "}}, nil)
	see(t, alice, "/account", "Your name is now Alice L..")
	if _, g := alice.graph("/account"); obj(asMap(g.Entities), "profile", "name") != "Alice L." {
		t.Errorf("got profile %v, want the name Alice L.", g.Entities["profile"])
	}

	status, d, _ = alice.call("/account", "updateProfile", map[string]any{"name": ""}, false)
	wantError(t, "an empty name", status, d, http.StatusBadRequest, affordances.InvalidInput, "/name")

	// Nobody sees no profile and no actions, but a way to sign in
	// (docs/protocol.md decision 1: the actions are hidden from nobody).
	nobody := newAgent(t, srv, "")
	_, g := nobody.graph("/account")
	if len(g.Actions) != 0 || g.Entities["signedIn"] != false {
		t.Errorf("nobody: got actions %v and entities %v, want none and signedIn false", g.Actions, g.Entities)
	}
	see(t, nobody, "/account", "Sign in to see your account")
	if status, d, _ := nobody.call("/account", "updateProfile", map[string]any{"name": "X"}, false); status != http.StatusUnauthorized {
		t.Errorf("nobody's updateProfile: got %d %+v, want 401", status, d.Error)
	}
}

// TestAddresses: a person adds an address, the checkout ships to it, and
// they delete addresses, but never their last one.
func TestAddresses(t *testing.T) {
	s, srv := newShop(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)

	status, d, _ := alice.call("/account", "addAddress", map[string]any{
		"name": "Alice Liddell", "line1": "7 Rabbit Hole", "city": "Oxford", "postcode": "OX1 1DP", "country": "GB"}, false)
	wantOK(t, "addAddress", status, d)
	if got := obj(d.Changed, "addresses", 2, "line1"); got != "7 Rabbit Hole" {
		t.Errorf("got changed.addresses[2].line1 %v, want 7 Rabbit Hole", got)
	}
	id, _ := obj(d.Changed, "addresses", 2, "id").(string)
	if !addressID.MatchString(id) || !strings.Contains(d.Message, "("+id+")") {
		t.Errorf("got id %q and message %q, want a new id, named in the message", id, d.Message)
	}
	see(t, alice, "/account", "7 Rabbit Hole", "OX1 1DP", id)

	t.Run("the checkout ships to the new address", func(t *testing.T) {
		alice.t = t
		_, g := alice.graph("/checkout/shipping")
		if got := obj(asMap(g.Entities), "addresses", 2, "id"); got != id {
			t.Errorf("got shipping addresses %v, want the new one third", g.Entities["addresses"])
		}
		callOK(t, alice, "/checkout/shipping", "chooseAddress", map[string]any{"address": id})
		callOK(t, alice, "/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"})
		status, d, _ := alice.call("/checkout", "placeOrder", nil, false)
		if status != http.StatusPreconditionRequired || d.Error == nil || !strings.Contains(d.Error.Message, "ship to Alice Liddell, 7 Rabbit Hole, Oxford OX1 1DP, GB.") {
			t.Errorf("placeOrder without confirm: got %d %+v, want 428 naming the new address", status, d.Error)
		}
		status, d, _ = alice.call("/checkout", "placeOrder", nil, true)
		wantOK(t, "placeOrder", status, d)
		see(t, alice, d.Redirect, "Alice Liddell, 7 Rabbit Hole, Oxford OX1 1DP, GB")
	})

	t.Run("deleting the chosen address ships to the first one left", func(t *testing.T) {
		alice.t = t
		status, d, _ := alice.call("/account", "deleteAddress", map[string]any{"address": id}, false)
		wantOK(t, "deleteAddress", status, d)
		if got, _ := d.Changed["addresses"].([]any); len(got) != 2 {
			t.Errorf("got changed.addresses %v, want 2 addresses", d.Changed["addresses"])
		}
		if _, g := alice.graph("/checkout/shipping"); g.Entities["chosen"] != "home" {
			t.Errorf("got chosen %v, want home", g.Entities["chosen"])
		}
		status, d, _ = alice.call("/account", "deleteAddress", map[string]any{"address": id}, false)
		wantError(t, "deleting it again", status, d, http.StatusBadRequest, affordances.InvalidInput, "/address")
	})

	t.Run("by the form", func(t *testing.T) {
		alice.t = t
		resp := alice.form("/account", url.Values{"_action": {"addAddress"}, "name": {"Alice"}, "line1": {"1 Looking Glass Ln"},
			"city": {"Daresbury"}, "postcode": {"WA4 4AB"}, "country": {"GB"}}, nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/account" {
			t.Fatalf("got %d to %q, want 303 to /account", resp.StatusCode, loc)
		}
		see(t, alice, "/account", "Added the address 1 Looking Glass Ln, Daresbury (addr-", "WA4 4AB")
		_, g := alice.graph("/account")
		if again, _ := obj(asMap(g.Entities), "addresses", 2, "id").(string); again == id || !addressID.MatchString(again) {
			t.Errorf("got id %q for the next address, want a new one, not %q again", again, id)
		}
		resp, page := alice.post("/account", url.Values{"_action": {"addAddress"}, "name": {"Alice"}, "line1": {""}, "city": {"Xanadu"}, "postcode": {"1"}, "country": {"GB"}}, nil)
		if resp.StatusCode != http.StatusBadRequest || issueAt(page, "line1") != "must be 1 to 100 characters" || !strings.Contains(page, `value="Xanadu"`) {
			t.Errorf("an empty street: got %d with the issue %q, want 400 with the issue at the street and the city kept", resp.StatusCode, issueAt(page, "line1"))
		}
		alice.form("/account", url.Values{"_action": {"deleteAddress"}, "address": {"work"}}, nil)
		see(t, alice, "/account", "Deleted the address 500 Market St, Shelbyville.")
		if _, g := alice.graph("/checkout/shipping"); len(obj(asMap(g.Entities), "addresses").([]any)) != 2 {
			t.Errorf("got addresses %v, want home and the new one", g.Entities["addresses"])
		}
	})

	t.Run("the last address stays: deleteAddress is unavailable, with its reason", func(t *testing.T) {
		token, err := s.CreateUser(t.Context(), "one@example.com", "password")
		if err != nil {
			t.Fatal(err)
		}
		one := newAgent(t, srv, token)
		_, g := one.graph("/account")
		if del := descriptor(g.Actions, "deleteAddress"); del == nil || del.Available || !strings.Contains(del.Reason, "Keep at least one shipping address") {
			t.Errorf("got deleteAddress %+v, want it unavailable: keep one address", del)
		}
		status, d, _ := one.call("/account", "deleteAddress", map[string]any{"address": "home"}, false)
		wantError(t, "deleting the last address", status, d, http.StatusConflict, affordances.Unavailable, "")
		if _, g := one.graph("/checkout/shipping"); len(obj(asMap(g.Entities), "addresses").([]any)) != 1 {
			t.Errorf("got addresses %v, want the one kept", g.Entities["addresses"])
		}
	})
}

// callOK calls action on path as a and fails the test unless it ran.
func callOK(t *testing.T, a *agent, path, action string, input any) affordances.Delta {
	t.Helper()
	status, d, _ := a.call(path, action, input, false)
	wantOK(t, action, status, d)
	return d
}

// addressID is the id of an address a person added.
var addressID = regexp.MustCompile(`^addr-[a-z2-7]{6}$`)

// newTokenField finds the token a page shows once.
var newTokenField = regexp.MustCompile(`id="new-token"[^>]*value="([^"]+)"`)

// graphs GETs the graph of every page a signed-in customer sees and
// returns the bodies, to look for secrets in them.
func graphs(a *agent) map[string]string {
	out := map[string]string{}
	for _, path := range []string{"/", "/products/canvas-tote", "/cart", "/checkout/shipping", "/checkout", "/login", "/signup", "/account", "/account/tokens"} {
		_, body := a.do(http.MethodGet, path, http.Header{"Accept": {affordances.MediaType}}, nil)
		out[path] = string(body)
	}
	return out
}

// TestTokens: a person creates a bearer token for an agent, which is shown
// once (in the delta's output, or on the page right after the form) and
// never in a graph (docs/protocol.md §7: entities carry no secrets); the
// agent uses it (docs/protocol.md decision 4); once revoked it is refused at once
// (docs/protocol.md decision 2: 401).
func TestTokens(t *testing.T) {
	_, srv := newShop(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)

	useAndRevoke := func(t *testing.T, token, name string, revoke func()) {
		t.Helper()
		for path, body := range graphs(alice) {
			if strings.Contains(body, token) {
				t.Errorf("the graph of %s holds the token", path)
			}
		}
		agent := newAgent(t, srv, token)
		if status, g := agent.graph("/account"); status != http.StatusOK || obj(asMap(g.Entities), "profile", "email") != shop.DemoEmail {
			t.Fatalf("the new token: got %d %v, want alice's account", status, g.Entities)
		}
		callOK(t, agent, "/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"})
		revoke()
		if _, g := alice.graph("/account/tokens"); slices.ContainsFunc(obj(asMap(g.Entities), "tokens").([]any), func(v any) bool { return obj(v, "name") == name }) {
			t.Errorf("got tokens %v, want %q gone", g.Entities["tokens"], name)
		}
		status, g := agent.graph("/account")
		if status != http.StatusUnauthorized {
			t.Errorf("the revoked token: got %d %v, want 401", status, g.Entities)
		}
		status, d, h := agent.call("/products/canvas-tote", "addToCart", map[string]any{"sku": "TOTE-NAT"}, false)
		wantError(t, "a call with the revoked token", status, d, http.StatusUnauthorized, affordances.Unauthorized, "")
		if h.Get("WWW-Authenticate") != "Bearer" {
			t.Errorf("got WWW-Authenticate %q, want Bearer", h.Get("WWW-Authenticate"))
		}
	}

	t.Run("by the action", func(t *testing.T) {
		alice.t = t
		status, d, _ := alice.call("/account/tokens", "createToken", map[string]any{"name": "shopping agent"}, false)
		wantOK(t, "createToken", status, d)
		token, _ := obj(d.Output, "token").(string)
		if len(token) < 32 || obj(d.Output, "name") != "shopping agent" {
			t.Fatalf("got output %v, want the name and a token", d.Output)
		}
		tokens, _ := d.Changed["tokens"].([]any)
		if !slices.ContainsFunc(tokens, func(v any) bool { return obj(v, "name") == "shopping agent" && obj(v, "created") != nil }) {
			t.Errorf("got changed.tokens %v, want the new token's name and date", d.Changed["tokens"])
		}
		if changed, _ := json.Marshal(d.Changed); strings.Contains(string(changed), token) {
			t.Errorf("the delta's changed entities hold the token")
		}
		status, d, _ = alice.call("/account/tokens", "createToken", map[string]any{"name": "shopping agent"}, false)
		wantError(t, "the same name again", status, d, http.StatusBadRequest, affordances.InvalidInput, "/name")
		useAndRevoke(t, token, "shopping agent", func() {
			callOK(t, alice, "/account/tokens", "revokeToken", map[string]any{"name": "shopping agent"})
		})
	})

	t.Run("by the form, shown once", func(t *testing.T) {
		alice.t = t
		resp := alice.form("/account/tokens", url.Values{"_action": {"createToken"}, "name": {"laptop"}}, nil)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/account/tokens" {
			t.Fatalf("got %d to %q, want 303 to /account/tokens", resp.StatusCode, loc)
		}
		res, body := alice.page("/account/tokens")
		m := newTokenField.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("got a page without the new token")
		}
		token := html.UnescapeString(m[1])
		if got := res.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("got Cache-Control %q on the page with the token, want no-store", got)
		}
		if !strings.Contains(html.UnescapeString(body), "Created the token “laptop”.") {
			t.Errorf("got a page without the message")
		}
		if _, again := alice.page("/account/tokens"); strings.Contains(again, token) || strings.Contains(again, `id="new-token"`) {
			t.Errorf("got the token a second time")
		}
		useAndRevoke(t, token, "laptop", func() {
			alice.form("/account/tokens", url.Values{"_action": {"revokeToken"}, "name": {"laptop"}}, nil)
			see(t, alice, "/account/tokens", "Revoked the token “laptop”. It no longer works.")
		})
	})

	t.Run("another person's token is never shown", func(t *testing.T) {
		bob := newBrowser(t, srv)
		callOK(t, bob, "/signup", "signUp", signUpInput("Bob", "bob@example.com", "bobs password"))
		alice.t = t
		alice.form("/account/tokens", url.Values{"_action": {"createToken"}, "name": {"phone"}}, nil)
		// Alice's browser carries the one-time cookie; a page view by
		// someone else with it (a shared computer) shows nothing.
		u, _ := url.Parse(srv.URL + "/account/tokens")
		for _, c := range alice.client.Jar.Cookies(u) {
			if c.Name != "sid" {
				bob.client.Jar.SetCookies(u, []*http.Cookie{c})
			}
		}
		if _, body := bob.page("/account/tokens"); strings.Contains(body, `id="new-token"`) {
			t.Errorf("bob's page shows alice's new token")
		}
	})
}

// TestSignUpIsLimited: sign-ups from one host share one budget, by the
// form and by the action (docs/protocol.md §19, step 3; docs/protocol.md decision 2: 429
// with Retry-After): each costs a password hash and an account.
func TestSignUpIsLimited(t *testing.T) {
	_, srv := newShop(t)
	b := newBrowser(t, srv)
	var last *http.Response
	for i := range 11 {
		last = b.form("/signup", url.Values{"_action": {"signUp"}, "name": {"Spam"}, "email": {fmt.Sprintf("spam%d@example.com", i)}, "password": {"short"}}, nil)
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Errorf("11th sign-up by the form: got %d with Retry-After %q, want 429 with Retry-After", last.StatusCode, last.Header.Get("Retry-After"))
	}
	status, d, _ := b.call("/signup", "signUp", signUpInput("Spam", "spam@example.com", "long enough"), false)
	wantError(t, "a sign-up by the action after 11 by the form", status, d, http.StatusTooManyRequests, affordances.RateLimited, "")
}
