package shop_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/oauth"
)

// oauthOrigin is the origin of the shops of these tests, as
// demotest.SignIn's requests carry it.
const oauthOrigin = "http://demo.test"

// browse serves one request to h from oauthOrigin's browser: header's
// cookies and Origin, a form body when form is not nil.
func browse(t *testing.T, h http.Handler, method, target string, form url.Values, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	var r *http.Request
	if form != nil {
		r = httptest.NewRequest(method, oauthOrigin+target, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, oauthOrigin+target, nil)
	}
	for k, v := range header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestSignInNext: the sign-in form sends the person on to ?next= when it
// is a path of the shop, such as the consent page's URL with its query,
// and never to another host.
func TestSignInNext(t *testing.T) {
	s, _ := newShop(t)
	h := s.Handler()
	consent := oauth.AuthorizePath + "?response_type=code&client_id=c&state=a%26b&scope=safe+user"
	page := browse(t, h, "GET", "/login?next="+url.QueryEscape(consent), nil, nil)
	if !strings.Contains(page.Body.String(), `type="hidden" value="/oauth/authorize?response_type=code&amp;client_id=c&amp;state=a%26b&amp;scope=safe&#43;user"`) {
		t.Errorf("the sign-in page for ?next=%s: its form does not carry it:\n%s", consent, page.Body)
	}
	for _, tc := range []struct{ next, want string }{
		{consent, consent},
		{"/cart", "/cart"},
		{"", "/"},
		{"//evil.example/x", ""},
		{"https://evil.example/", ""},
		{"/\\evil.example", ""},
		{"/\t/evil.example", ""},
	} {
		res := browse(t, h, "POST", "/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}, "next": {tc.next}},
			http.Header{"Origin": {oauthOrigin}})
		if tc.want == "" {
			if res.Code/100 == 3 {
				t.Errorf("next=%q: got a redirect to %q, want the sign-in page again", tc.next, res.Header().Get("Location"))
			}
			continue
		}
		if loc := res.Header().Get("Location"); res.Code != http.StatusSeeOther || loc != tc.want {
			t.Errorf("next=%q: got %d to %q, want 303 to %q", tc.next, res.Code, loc, tc.want)
		}
	}
}

// TestOAuthShop: a shop that knows its origin is an OAuth authorization
// server whose sign-in is the shop's: an assistant registers, alice signs
// in through /login and allows it ordinary changes, and its token acts as
// alice, also after the shop restarts on the same data (the key and the
// grants are in its database), until an administrator disables her.
// Her account page links her connected assistants, where it is listed.
func TestOAuthShop(t *testing.T) {
	dir := demotest.ShopData(t)
	open := func() *shop.Shop {
		s, err := shop.Open(t.Context(), &shop.Options{DataDir: dir, Origin: oauthOrigin, MCP: "/mcp"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	h := s.Handler()

	reg := httptest.NewRequest("POST", oauthOrigin+oauth.RegisterPath, strings.NewReader(`{"client_name":"Test Assistant","redirect_uris":["http://127.0.0.1:9/cb"]}`))
	reg.Header.Set("Content-Type", "application/json")
	res := httptest.NewRecorder()
	h.ServeHTTP(res, reg)
	var client struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &client); res.Code != http.StatusCreated || err != nil {
		t.Fatalf("registering: %d %s", res.Code, res.Body)
	}
	cfg := &oauth2.Config{ClientID: client.ClientID, RedirectURL: "http://127.0.0.1:9/cb", Scopes: []string{"safe", "user"},
		Endpoint: oauth2.Endpoint{AuthURL: oauthOrigin + oauth.AuthorizePath, TokenURL: oauthOrigin + oauth.TokenPath}}
	verifier := oauth2.GenerateVerifier()
	authorize, _ := url.Parse(cfg.AuthCodeURL("state-of-the-assistant", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", oauthOrigin+"/mcp")))

	// Not signed in: the shop's sign-in, which comes back here.
	res = browse(t, h, "GET", authorize.RequestURI(), nil, nil)
	if loc := res.Header().Get("Location"); res.Code != http.StatusSeeOther || loc != "/login?next="+url.QueryEscape(authorize.RequestURI()) {
		t.Fatalf("the consent page, signed out: got %d to %q, want the shop's /login with next", res.Code, loc)
	}
	res = browse(t, h, "POST", "/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}, "next": {authorize.RequestURI()}},
		http.Header{"Origin": {oauthOrigin}})
	if loc := res.Header().Get("Location"); res.Code != http.StatusSeeOther || loc != authorize.RequestURI() {
		t.Fatalf("signing in: got %d to %q, want back to the consent page", res.Code, loc)
	}
	alice := http.Header{"Cookie": {res.Result().Cookies()[0].String()}}
	res = browse(t, h, "GET", authorize.RequestURI(), nil, alice)
	if res.Code != http.StatusOK || !strings.Contains(res.Body.String(), "as you, "+shop.DemoEmail) || !strings.Contains(res.Body.String(), "Test Assistant") {
		t.Fatalf("the consent page: got %d, want it to name alice and the assistant:\n%s", res.Code, res.Body)
	}
	res = browse(t, h, "POST", authorize.RequestURI(), url.Values{"class": {"safe", "user"}, "decision": {"allow"}}, http.Header{"Cookie": alice["Cookie"], "Origin": {oauthOrigin}})
	back, _ := url.Parse(res.Header().Get("Location"))
	if res.Code/100 != 3 || back.Query().Get("code") == "" || back.Query().Get("iss") != oauthOrigin {
		t.Fatalf("Allow: got %d to %q, want the redirect with a code and iss", res.Code, back)
	}
	tokenReq := httptest.NewRequest("POST", oauthOrigin+oauth.TokenPath, strings.NewReader(url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")},
		"redirect_uri": {cfg.RedirectURL}, "client_id": {client.ClientID}, "code_verifier": {verifier}, "resource": {oauthOrigin + "/mcp"}}.Encode()))
	tokenReq.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res = httptest.NewRecorder()
	h.ServeHTTP(res, tokenReq)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &tok); res.Code != http.StatusOK || err != nil || tok.AccessToken == "" {
		t.Fatalf("the token: %d %s", res.Code, res.Body)
	}

	// addToCart, an ordinary change, runs as alice; the cart is hers.
	addToCart := func(h http.Handler) (int, string) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"action": "addToCart", "input": map[string]any{"sku": "TOTE-NAT", "quantity": 1}})
		r := httptest.NewRequest("POST", oauthOrigin+"/products/canvas-tote", bytes.NewReader(body))
		r.Header.Set("Content-Type", affordances.MediaType)
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Header().Get("WWW-Authenticate")
	}
	if code, _ := addToCart(h); code != http.StatusOK {
		t.Fatalf("addToCart with the token: got %d, want 200", code)
	}
	if n, err := s.CartCountForTest(t.Context(), shop.DemoEmail); err != nil || n != 1 {
		t.Errorf("alice's cart: got %d items (%v), want 1", n, err)
	}
	if page := browse(t, h, "GET", "/account", nil, alice).Body.String(); !strings.Contains(page, `href="`+oauth.AssistantsPath+`"`) {
		t.Errorf("alice's account page does not link %s", oauth.AssistantsPath)
	}
	if page := browse(t, h, "GET", oauth.AssistantsPath, nil, alice).Body.String(); !strings.Contains(page, "Test Assistant") {
		t.Errorf("alice's connected assistants do not list the assistant:\n%s", page)
	}
	var index map[string]any
	json.Unmarshal(browse(t, h, "GET", "/.well-known/affordances.json", nil, nil).Body.Bytes(), &index)
	if index["oauth"] != oauthOrigin+oauth.ProtectedResourceMetadataPath {
		t.Errorf("the site index's oauth: got %v, want the protected resource metadata", index["oauth"])
	}

	// The shop restarts on its data: the token still acts as alice.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open()
	t.Cleanup(func() { s.Close() })
	h = s.Handler()
	if code, _ := addToCart(h); code != http.StatusOK {
		t.Fatalf("addToCart with the token after a restart: got %d, want 200", code)
	}

	// Disabled, alice's token is refused.
	admin := demotest.SignIn(t, h, "203.0.113.7", demotest.Account{Email: shop.AdminEmail, Password: shop.AdminPassword})
	body, _ := json.Marshal(map[string]any{"action": "disableUser", "input": map[string]any{"email": shop.DemoEmail}})
	r := httptest.NewRequest("POST", oauthOrigin+"/admin/users", bytes.NewReader(body))
	r.Header.Set("Content-Type", affordances.MediaType)
	r.Header.Set("Origin", oauthOrigin)
	r.Header.Set("Cookie", admin.Get("Cookie"))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("disableUser: %d %s", w.Code, w.Body)
	}
	if code, challenge := addToCart(h); code != http.StatusUnauthorized || !strings.Contains(challenge, "resource_metadata=") {
		t.Errorf("addToCart with the token of a disabled account: got %d %q, want 401 with where to sign in again", code, challenge)
	}
}
