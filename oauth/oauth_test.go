package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/text/language"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/oauth"
	"github.com/affordances/affordances-go/store"
)

// shop is a site with its own sign-in (a cookie who=NAME), an OAuth
// server, and three actions: look (safe), note (user) and buy (financial,
// $30). runs counts what ran, by action.
type shop struct {
	t    *testing.T
	srv  *httptest.Server
	as   *oauth.Server
	runs map[string]*atomic.Int32
}

func newShop(t *testing.T, opts *oauth.Options) *shop {
	t.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	app := func(r *http.Request) (affordances.Principal, error) {
		if c, err := r.Cookie("who"); err == nil {
			return affordances.Principal{ID: c.Value}, nil
		}
		return affordances.Principal{}, nil
	}
	var o oauth.Options
	if opts != nil {
		o = *opts
	}
	o.Issuer, o.Name, o.Authenticate, o.SignIn = srv.URL, "Test Shop", app, "/login"
	o.Principal = func(_ context.Context, id string) (affordances.Principal, error) {
		if id == "gone" {
			return affordances.Principal{}, affordances.ErrInvalidToken
		}
		return affordances.Principal{ID: id}, nil
	}
	as, err := oauth.New(&o)
	if err != nil {
		t.Fatal(err)
	}
	s := &shop{t: t, srv: srv, as: as, runs: map[string]*atomic.Int32{}}
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Test Shop", Authenticate: as.Authenticate(app), OAuth: as.ResourceMetadata()})
	rt := site.Route("/", nil)
	for _, a := range []*affordances.Action{
		{Name: "look", ReadOnly: true, AAL: &aal.Meta{Action: aal.Navigate, Trust: aal.TrustSafe}},
		{Name: "note", AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustUser, Reversible: true}},
		{Name: "buy", AAL: &aal.Meta{Action: aal.Purchase, Trust: aal.TrustFinancial,
			Cost: func(map[string]any) *aal.Cost { return &aal.Cost{Currency: "USD", Amount: 30} }}},
	} {
		n := new(atomic.Int32)
		s.runs[a.Name] = n
		a.Description, a.Expose = "Does "+a.Name+".", affordances.ExposeSession
		affordances.AddAction(rt, a, func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			n.Add(1)
			return struct{}{}, nil
		})
	}
	mcp := as.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "mcp") }))
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp)
	mux.Handle("/", site.Handler(http.NotFoundHandler()))
	h = as.Handler(mux)
	return s
}

// noRedirect is a client that reads redirects rather than follow them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// register registers a client by RFC 7591 and returns its id.
func (s *shop) register(redirect string) string {
	s.t.Helper()
	res, err := http.Post(s.srv.URL+oauth.RegisterPath, "application/json", strings.NewReader(`{"client_name":"Test Assistant","redirect_uris":["`+redirect+`"]}`))
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); res.StatusCode != http.StatusCreated || err != nil || out.ClientID == "" {
		s.t.Fatalf("registering: got %d %v %+v", res.StatusCode, err, out)
	}
	return out.ClientID
}

// flow is one sign-in of an assistant: its config, PKCE verifier, state.
type flow struct {
	s        *shop
	cfg      *oauth2.Config
	verifier string
	state    string
}

func (s *shop) flow(client, redirect string) *flow {
	return &flow{s: s, verifier: oauth2.GenerateVerifier(), state: "st-" + oauth2.GenerateVerifier()[:8], cfg: &oauth2.Config{
		ClientID: client, RedirectURL: redirect, Scopes: oauth.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: s.srv.URL + oauth.AuthorizePath, TokenURL: s.srv.URL + oauth.TokenPath, AuthStyle: oauth2.AuthStyleInParams},
	}}
}

// authURL is where the assistant sends the person, with opts.
func (f *flow) authURL(opts ...oauth2.AuthCodeOption) string {
	opts = append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(f.verifier), oauth2.SetAuthURLParam("resource", f.s.srv.URL)}, opts...)
	return f.cfg.AuthCodeURL(f.state, opts...)
}

// consent is alice at the consent page of u: she allows form's scopes.
// It returns the response to her post, a redirect unless refused.
func (f *flow) consent(u string, form url.Values, header map[string]string) *http.Response {
	f.s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "who=alice")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		f.s.t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode == 400 {
		f.s.t.Logf("%s", b)
	}
	return res
}

// code is alice allowing scopes, and the code the redirect carries.
func (f *flow) code(scopes ...string) string {
	f.s.t.Helper()
	res := f.consent(f.authURL(), url.Values{"decision": {"allow"}, "class": scopes, "ceiling": {"50"}}, nil)
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || err != nil || loc.Query().Get("code") == "" {
		f.s.t.Fatalf("alice allowing: got %d to %q, want a redirect with a code", res.StatusCode, res.Header.Get("Location"))
	}
	if q := loc.Query(); q.Get("state") != f.state || q.Get("iss") != f.s.srv.URL {
		f.s.t.Errorf("the redirect's state %q and iss %q, want %q and %q (RFC 9207)", q.Get("state"), q.Get("iss"), f.state, f.s.srv.URL)
	}
	return loc.Query().Get("code")
}

// exchange trades code for tokens.
func (f *flow) exchange(code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error) {
	opts = append([]oauth2.AuthCodeOption{oauth2.VerifierOption(f.verifier), oauth2.SetAuthURLParam("resource", f.s.srv.URL)}, opts...)
	return f.cfg.Exchange(context.Background(), code, opts...)
}

// call makes a bearer call of action with token; it returns the status.
func (s *shop) call(token, action string) (int, http.Header) {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/", strings.NewReader(`{"action":"`+action+`"}`))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header
}

// TestSignInAndCall: an assistant registers, alice signs in and grants
// reading, ordinary changes and spending up to $50; the token calls
// those, is refused buying past $50 and anything not granted, refreshes
// into a new pair, and the refresh token it replaced, used again, ends
// the grant: every token of it is refused after.
func TestSignInAndCall(t *testing.T) {
	s := newShop(t, nil)
	const redirect = "http://127.0.0.1:9/callback"
	f := s.flow(s.register(redirect), redirect)
	tok, err := f.exchange(f.code("safe", "user", "financial"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		action string
		status int
	}{{"look", 200}, {"note", 200}, {"buy", 200}, {"buy", 403}} {
		if got, h := s.call(tok.AccessToken, c.action); got != c.status {
			t.Errorf("%s: got %d (%s), want %d", c.action, got, h.Get("WWW-Authenticate"), c.status)
		}
	}
	if n := s.runs["buy"].Load(); n != 1 {
		t.Errorf("buy ran %d times on a ceiling of $50 at $30 a call, want 1", n)
	}

	fresh, err := f.cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil || fresh.AccessToken == tok.AccessToken || fresh.RefreshToken == tok.RefreshToken {
		t.Fatalf("refreshing: got %+v, %v; want a new access and refresh token", fresh, err)
	}
	if got, _ := s.call(tok.AccessToken, "look"); got != 401 {
		t.Errorf("the access token a refresh replaced: got %d, want 401", got)
	}
	if got, _ := s.call(fresh.AccessToken, "note"); got != 200 {
		t.Errorf("the refreshed access token: got %d, want 200", got)
	}
	if _, err := f.cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err == nil {
		t.Error("the replaced refresh token, used again: got tokens, want a refusal")
	}
	if got, _ := s.call(fresh.AccessToken, "look"); got != 401 {
		t.Errorf("after a replaced refresh token was used again, the grant's access token: got %d, want 401", got)
	}
	if _, err := f.cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: fresh.RefreshToken}).Token(); err == nil {
		t.Error("after a replaced refresh token was used again, the grant's refresh token: got tokens, want a refusal")
	}
}

// TestScopesAndMetadata: what a token was not granted is 403
// insufficient_scope naming the class; /mcp without a token is 401
// pointing to the protected resource metadata, which names this site and
// its authorization server, whose metadata says S256 only.
func TestScopesAndMetadata(t *testing.T) {
	s := newShop(t, nil)
	const redirect = "http://127.0.0.1:9/callback"
	f := s.flow(s.register(redirect), redirect)
	tok, err := f.exchange(f.code("safe"))
	if err != nil {
		t.Fatal(err)
	}
	if got, h := s.call(tok.AccessToken, "note"); got != 403 || !strings.Contains(h.Get("WWW-Authenticate"), `error="insufficient_scope", scope="user"`) {
		t.Errorf("note with a token of safe only: got %d %q, want 403 insufficient_scope for user", got, h.Get("WWW-Authenticate"))
	}
	res, err := http.Post(s.srv.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	want := `Bearer resource_metadata="` + s.srv.URL + oauth.ProtectedResourceMetadataPath + `"`
	if res.StatusCode != 401 || res.Header.Get("WWW-Authenticate") != want {
		t.Errorf("/mcp without a token: got %d %q, want 401 %q", res.StatusCode, res.Header.Get("WWW-Authenticate"), want)
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	getJSON(t, s.srv.URL+oauth.ProtectedResourceMetadataPath, &prm)
	if prm.Resource != s.srv.URL || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != s.srv.URL {
		t.Errorf("the protected resource metadata: got %+v, want this site and its server", prm)
	}
	var meta struct {
		Issuer    string   `json:"issuer"`
		Methods   []string `json:"code_challenge_methods_supported"`
		CIMD      bool     `json:"client_id_metadata_document_supported"`
		Iss       bool     `json:"authorization_response_iss_parameter_supported"`
		Registers string   `json:"registration_endpoint"`
	}
	getJSON(t, s.srv.URL+oauth.AuthorizationServerMetadataPath, &meta)
	if meta.Issuer != s.srv.URL || len(meta.Methods) != 1 || meta.Methods[0] != "S256" || !meta.CIMD || !meta.Iss || meta.Registers == "" {
		t.Errorf("the authorization server's metadata: got %+v", meta)
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); res.StatusCode != 200 || err != nil {
		t.Fatalf("GET %s: %d %v", u, res.StatusCode, err)
	}
}

// TestRefusals: each way an assistant or another site may try to get or
// use a token it should not have is refused, and nothing is granted.
func TestRefusals(t *testing.T) {
	s := newShop(t, nil)
	const redirect = "http://127.0.0.1:9/callback"
	client := s.register(redirect)
	errorOf := func(res *http.Response) string {
		loc, _ := url.Parse(res.Header.Get("Location"))
		if loc == nil || loc.Query().Get("iss") != s.srv.URL && loc.Query().Get("error") != "" {
			t.Errorf("an error redirect without iss: %q", res.Header.Get("Location"))
		}
		return loc.Query().Get("error")
	}
	get := func(u string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Cookie", "who=alice")
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}

	t.Run("no PKCE", func(t *testing.T) {
		f := s.flow(client, redirect)
		if e := errorOf(get(f.cfg.AuthCodeURL(f.state))); e != "invalid_request" {
			t.Errorf("got error %q, want invalid_request", e)
		}
	})
	t.Run("plain PKCE", func(t *testing.T) {
		f := s.flow(client, redirect)
		u := f.cfg.AuthCodeURL(f.state, oauth2.SetAuthURLParam("code_challenge", f.verifier), oauth2.SetAuthURLParam("code_challenge_method", "plain"))
		if e := errorOf(get(u)); e != "invalid_request" {
			t.Errorf("got error %q, want invalid_request", e)
		}
	})
	t.Run("a wrong verifier", func(t *testing.T) {
		f := s.flow(client, redirect)
		code := f.code("safe")
		if _, err := f.exchange(code, oauth2.VerifierOption(oauth2.GenerateVerifier())); !isOAuthError(err, "invalid_grant") {
			t.Errorf("got %v, want invalid_grant", err)
		}
	})
	t.Run("a code used twice", func(t *testing.T) {
		f := s.flow(client, redirect)
		code := f.code("safe", "user")
		tok, err := f.exchange(code)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.exchange(code); !isOAuthError(err, "invalid_grant") {
			t.Errorf("the code again: got %v, want invalid_grant", err)
		}
		if got, _ := s.call(tok.AccessToken, "look"); got != 401 {
			t.Errorf("the first exchange's token after the code was used again: got %d, want 401", got)
		}
	})
	t.Run("an unregistered redirect URI", func(t *testing.T) {
		f := s.flow(client, "https://evil.example/callback")
		res := get(f.authURL())
		if res.StatusCode < 400 || strings.Contains(res.Header.Get("Location"), "evil.example") {
			t.Errorf("got %d to %q, want an error page and no redirect", res.StatusCode, res.Header.Get("Location"))
		}
	})
	t.Run("another resource", func(t *testing.T) {
		f := s.flow(client, redirect)
		if e := errorOf(get(f.authURL(oauth2.SetAuthURLParam("resource", "https://bank.example")))); e != "invalid_target" {
			t.Errorf("authorize: got error %q, want invalid_target", e)
		}
		code := f.code("safe")
		if _, err := f.exchange(code, oauth2.SetAuthURLParam("resource", "https://bank.example")); !isOAuthError(err, "invalid_target") {
			t.Errorf("token: got %v, want invalid_target", err)
		}
	})
	t.Run("an altered or revoked token", func(t *testing.T) {
		f := s.flow(client, redirect)
		tok, err := f.exchange(f.code("safe", "user"))
		if err != nil {
			t.Fatal(err)
		}
		altered := tok.AccessToken[:len(tok.AccessToken)-2] + "xx"
		if got, _ := s.call(altered, "look"); got != 401 {
			t.Errorf("an altered token: got %d, want 401", got)
		}
		res, err := http.PostForm(s.srv.URL+oauth.RevokePath, url.Values{"token": {tok.RefreshToken}, "client_id": {client}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got, _ := s.call(tok.AccessToken, "look"); res.StatusCode != 200 || got != 401 {
			t.Errorf("revoking: got %d, then the access token %d; want 200 and 401", res.StatusCode, got)
		}
	})
	t.Run("a consent posted from another site", func(t *testing.T) {
		f := s.flow(client, redirect)
		res := f.consent(f.authURL(), url.Values{"decision": {"allow"}, "class": {"safe", "user"}}, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"})
		if res.StatusCode != http.StatusForbidden || res.Header.Get("Location") != "" {
			t.Errorf("got %d to %q, want 403 and no code", res.StatusCode, res.Header.Get("Location"))
		}
	})
	t.Run("the person says no", func(t *testing.T) {
		f := s.flow(client, redirect)
		if e := errorOf(f.consent(f.authURL(), url.Values{"decision": {"deny"}}, nil)); e != "access_denied" {
			t.Errorf("got error %q, want access_denied", e)
		}
	})
}

// isOAuthError reports whether err is the token endpoint's error code.
func isOAuthError(err error, code string) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.ErrorCode == code
}

// TestSignInFirst: a person who is not signed in is sent to the site's
// sign-in page, to come back; one who arrives from the assistant's window
// (another site), whose SameSite=Strict cookie stayed behind, gets a page
// that loads the consent page again from this site.
func TestSignInFirst(t *testing.T) {
	s := newShop(t, nil)
	const redirect = "http://127.0.0.1:9/callback"
	f := s.flow(s.register(redirect), redirect)
	u := f.authURL()
	res, err := noRedirect.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/login?next=%2Foauth%2Fauthorize%3F") {
		t.Errorf("not signed in: got %d to %q, want the sign-in page, then back", res.StatusCode, loc)
	}
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err = noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), `http-equiv="refresh"`) {
		t.Errorf("from another site: got %d\n%s\nwant a page that loads it again", res.StatusCode, body)
	}
}

// TestClientMetadataDocument: a client named by the https URL of its
// metadata document is that document's; one whose document names another
// URL is refused; and the server fetches no document from a private or
// loopback address.
func TestClientMetadataDocument(t *testing.T) {
	const redirect = "http://127.0.0.1:9/callback"
	var docs *httptest.Server
	docs = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := docs.URL + r.URL.Path
		if r.URL.Path == "/liar.json" {
			id = "https://assistant.example/client.json"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"client_id":%q,"client_name":"Doc Assistant","redirect_uris":[%q]}`, id, redirect)
	}))
	t.Cleanup(docs.Close)
	s := newShop(t, &oauth.Options{MetadataClient: docs.Client()})

	f := s.flow(docs.URL+"/client.json", redirect)
	req, _ := http.NewRequest(http.MethodGet, f.authURL(), nil)
	req.Header.Set("Cookie", "who=alice")
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "Doc Assistant") || !strings.Contains(string(body), strings.TrimPrefix(docs.URL, "https://")) {
		t.Errorf("the consent page: got %d\n%s\nwant it to name the assistant and its host", res.StatusCode, body)
	}
	if _, err := f.exchange(f.code("safe")); err != nil {
		t.Errorf("exchanging the code: %v", err)
	}

	liar := s.flow(docs.URL+"/liar.json", redirect)
	req, _ = http.NewRequest(http.MethodGet, liar.authURL(), nil)
	req.Header.Set("Cookie", "who=alice")
	if res, err = noRedirect.Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode < 400 {
		t.Errorf("a document that names another URL: got %d, want a refusal", res.StatusCode)
	}

	// The default client reaches public addresses only.
	s = newShop(t, nil)
	f = s.flow(docs.URL+"/client.json", redirect)
	req, _ = http.NewRequest(http.MethodGet, f.authURL(), nil)
	req.Header.Set("Cookie", "who=alice")
	if res, err = noRedirect.Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode < 400 {
		t.Errorf("a document on a loopback address: got %d, want a refusal", res.StatusCode)
	}
}

// TestConsentInFrench: the consent page speaks the person's language,
// from the site's languages (French, the package's own), by
// Accept-Language; English otherwise.
func TestConsentInFrench(t *testing.T) {
	s := newShop(t, &oauth.Options{Languages: map[language.Tag]map[string]string{language.French: nil}, Language: func(r *http.Request, who affordances.Principal) language.Tag {
		if who.Anonymous() {
			t.Error("Language was not told who reads the page")
		}
		if r.Header.Get("X-User-Lang") != "" { // the user's setting, as the app would read it
			return language.Make(r.Header.Get("X-User-Lang"))
		}
		return language.Und
	}})
	const redirect = "http://127.0.0.1:9/callback"
	f := s.flow(s.register(redirect), redirect)
	for _, tc := range []struct{ accept, user, lang, want string }{
		{"fr-CA,fr;q=0.9", "", "fr", "Dépenser votre argent, jusqu'au montant que vous fixez ici"},
		{"de", "", "en", "Spend your money, up to the amount you set here"},
		{"en-US", "fr", "fr", "Dépenser votre argent, jusqu'au montant que vous fixez ici"},
	} {
		req, _ := http.NewRequest(http.MethodGet, f.authURL(), nil)
		req.Header.Set("Cookie", "who=alice")
		req.Header.Set("Accept-Language", tc.accept)
		req.Header.Set("X-User-Lang", tc.user)
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		page := html.UnescapeString(string(b))
		if res.StatusCode != 200 || !strings.Contains(page, `<html lang="`+tc.lang+`">`) || !strings.Contains(page, tc.want) {
			t.Errorf("Accept-Language %s: got %d\n%s\nwant lang %s and %q", tc.accept, res.StatusCode, page, tc.lang, tc.want)
		}
	}
	if _, err := oauth.New(&oauth.Options{Issuer: "http://x", Authenticate: func(*http.Request) (affordances.Principal, error) { return affordances.Principal{}, nil },
		Principal: func(context.Context, string) (affordances.Principal, error) { return affordances.Principal{}, nil }, SignIn: "/login",
		Languages: map[language.Tag]map[string]string{language.German: {"Allow": "Erlauben", "Allo": "?"}}}); err == nil {
		t.Error("a language with a message the package does not write: got no error")
	}
}

// TestMCPChallenge: /mcp answers no token, and a token of the server's
// that is revoked or altered, with 401 (invalid_token for the second),
// so that an MCP host signs in or refreshes; a good token, and a token of
// the application's own, reach the endpoint.
func TestMCPChallenge(t *testing.T) {
	s := newShop(t, nil)
	const redirect = "http://127.0.0.1:9/callback"
	client := s.register(redirect)
	f := s.flow(client, redirect)
	tok, err := f.exchange(f.code("safe", "user"))
	if err != nil {
		t.Fatal(err)
	}
	post := func(auth string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/mcp", strings.NewReader(`{}`))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("WWW-Authenticate")
	}
	meta := `resource_metadata="` + s.srv.URL + oauth.ProtectedResourceMetadataPath + `"`
	altered := tok.AccessToken[:len(tok.AccessToken)-2] + "xx"
	for _, tc := range []struct {
		name, auth string
		status     int
		challenge  string
	}{
		{"no token", "", 401, "Bearer " + meta},
		{"a good token", "Bearer " + tok.AccessToken, 200, ""},
		{"an altered token", "Bearer " + altered, 401, `Bearer error="invalid_token", ` + meta},
		{"the application's own token", "Bearer app-token", 200, ""},
	} {
		if status, challenge := post(tc.auth); status != tc.status || challenge != tc.challenge {
			t.Errorf("%s: got %d %q, want %d %q", tc.name, status, challenge, tc.status, tc.challenge)
		}
	}
	res, err := http.PostForm(s.srv.URL+oauth.RevokePath, url.Values{"token": {tok.RefreshToken}, "client_id": {client}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if status, challenge := post("Bearer " + tok.AccessToken); status != 401 || !strings.Contains(challenge, "invalid_token") {
		t.Errorf("a revoked token: got %d %q, want 401 invalid_token", status, challenge)
	}
}

// TestOnlyThePersonGrants: the consent and assistants pages answer the
// person's browser session alone: a request with a bearer token (the
// application's own, or an assistant's) is refused, and so is a post
// with neither of a browser's origin headers, so that no token grants
// itself more or takes back a grant. A refusal that would send the
// person to a web address, before they decided anything, is a page with
// a link, never a redirect (RFC 9700, section 4.11.2).
func TestOnlyThePersonGrants(t *testing.T) {
	s := newShop(t, nil)
	const redirect = "http://127.0.0.1:9/callback"
	f := s.flow(s.register(redirect), redirect)
	for _, tc := range []struct {
		name   string
		header map[string]string
	}{
		{"with a bearer token", map[string]string{"Authorization": "Bearer app-token"}},
		{"without a browser's headers", map[string]string{"Sec-Fetch-Site": "", "Origin": ""}},
	} {
		res := f.consent(f.authURL(), url.Values{"decision": {"allow"}, "class": {"safe", "user", "admin"}}, tc.header)
		if res.StatusCode != http.StatusForbidden || res.Header.Get("Location") != "" {
			t.Errorf("a consent %s: got %d to %q, want 403 and no code", tc.name, res.StatusCode, res.Header.Get("Location"))
		}
	}
	req, _ := http.NewRequest(http.MethodGet, s.srv.URL+oauth.AssistantsPath, nil)
	req.Header.Set("Authorization", "Bearer app-token")
	if res, err := noRedirect.Do(req); err != nil {
		t.Fatal(err)
	} else if res.Body.Close(); res.StatusCode != http.StatusForbidden {
		t.Errorf("the assistants page with a bearer token: got %d, want 403", res.StatusCode)
	}

	web := s.flow(s.register("https://evil.example/cb"), "https://evil.example/cb")
	u := web.cfg.AuthCodeURL(web.state) // no PKCE: refused before anyone decides
	res, err := noRedirect.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || res.Header.Get("Location") != "" || !strings.Contains(string(body), `href="https://evil.example/cb?error=invalid_request`) {
		t.Errorf("a refusal for a web redirect URI: got %d to %q\n%s\nwant 400, a page with the link, no redirect", res.StatusCode, res.Header.Get("Location"), body)
	}
}

// TestRegistrationLimit: one address registers a few clients at most in a
// while (429 with Retry-After past them), so a flood of registrations
// cannot fill the site's store (security review).
func TestRegistrationLimit(t *testing.T) {
	s := newShop(t, &oauth.Options{RegistrationLimit: store.Limit{Calls: 2, Per: time.Hour, Burst: 2}})
	for i := range 3 {
		res, err := http.Post(s.srv.URL+oauth.RegisterPath, "application/json", strings.NewReader(`{"redirect_uris":["http://127.0.0.1:9/cb"]}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		want := http.StatusCreated
		if i == 2 {
			want = http.StatusTooManyRequests
		}
		if res.StatusCode != want || (want == 429) != (res.Header.Get("Retry-After") != "") {
			t.Errorf("registration %d: got %d (Retry-After %q), want %d", i+1, res.StatusCode, res.Header.Get("Retry-After"), want)
		}
	}
}
