package oauth_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/pdeathsig"
	"github.com/affordances/affordances-go/oauth"
)

// TestMain makes this test binary, run with OAUTH_TEST_ISSUER set, the
// stand-in of an authorization server of the application's own (a
// Keycloak, an Auth0): a separate process, as the real one would be.
func TestMain(m *testing.M) {
	if os.Getenv("OAUTH_TEST_ISSUER") != "" {
		issuer()
		return
	}
	os.Exit(m.Run())
}

// issuer serves, on a loopback port it prints, its metadata, its keys
// (one P-256 key), introspection for the client site:secret, and /mint
// and /revoke, where a test makes and ends tokens. It stops when its
// standard input closes.
func issuer() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	base := "http://" + l.Addr().String()
	var mu sync.Mutex
	opaque := map[string]map[string]any{}
	mux := http.NewServeMux()
	answer := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		answer(w, map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"jwks_uri": base + "/jwks", "introspection_endpoint": base + "/introspect", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		answer(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	mux.HandleFunc("POST /mint", func(w http.ResponseWriter, r *http.Request) {
		exp, _ := strconv.Atoi(r.FormValue("exp"))
		claims := map[string]any{"iss": cmpOr(r.FormValue("iss"), base), "sub": r.FormValue("sub"), "aud": r.FormValue("aud"),
			"scope": r.FormValue("scope"), "client_id": "assistant", "exp": time.Now().Add(time.Duration(exp) * time.Second).Unix(), "iat": time.Now().Unix()}
		if r.FormValue("opaque") != "" {
			tok := "opaque-" + rand.Text()
			claims["active"] = true
			mu.Lock()
			opaque[tok] = claims
			mu.Unlock()
			io.WriteString(w, tok)
			return
		}
		opts := (&jose.SignerOptions{}).WithType(jose.ContentType(cmpOr(r.FormValue("typ"), "at+jwt"))).WithHeader("kid", "k1")
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
		if err != nil {
			panic(err)
		}
		tok, err := jwt.Signed(signer).Claims(claims).Serialize()
		if err != nil {
			panic(err)
		}
		io.WriteString(w, tok)
	})
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		delete(opaque, r.FormValue("token"))
		mu.Unlock()
	})
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("token") == "app-token" {
			// The application's own token must never reach this server.
			answer(w, map[string]any{"active": true, "sub": "mallory", "scope": "admin", "aud": r.FormValue("aud"), "exp": time.Now().Add(time.Hour).Unix()})
			return
		}
		if id, secret, ok := r.BasicAuth(); !ok || id != "site" || secret != "secret" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		mu.Lock()
		claims, ok := opaque[r.FormValue("token")]
		mu.Unlock()
		if !ok {
			answer(w, map[string]any{"active": false})
			return
		}
		answer(w, claims)
	})
	fmt.Println(base)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	http.Serve(l, mux)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// startIssuer starts the stand-in authorization server and returns its
// issuer URL.
func startIssuer(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "OAUTH_TEST_ISSUER=1")
	pdeathsig.Set(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the issuer process said nothing: %v", err)
	}
	return strings.TrimSpace(line)
}

// mint has the issuer make a token of claims.
func mint(t *testing.T, issuer string, claims url.Values) string {
	t.Helper()
	res, err := http.PostForm(issuer+"/mint", claims)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// externalSite is a site whose tokens the issuer makes, checked as opts
// says, with look (safe), note (user) and buy (financial, $30); the
// application's own token is "app-token".
func externalSite(t *testing.T, opts oauth.ExternalOptions) (*httptest.Server, *oauth.ResourceServer) {
	t.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	opts.Resource = srv.URL
	opts.Principal = func(_ context.Context, id string) (affordances.Principal, error) {
		return affordances.Principal{ID: id}, nil
	}
	rs, err := oauth.NewResourceServer(t.Context(), &opts)
	if err != nil {
		t.Fatal(err)
	}
	app := func(r *http.Request) (affordances.Principal, error) {
		if r.Header.Get("Authorization") == "Bearer app-token" {
			return affordances.Principal{ID: "bob"}, nil
		}
		if r.Header.Get("Authorization") != "" {
			return affordances.Principal{}, affordances.ErrInvalidToken
		}
		return affordances.Principal{}, nil
	}
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: rs.Authenticate(app), OAuth: rs.ResourceMetadata()})
	rt := site.Route("/", nil)
	for _, a := range []*affordances.Action{
		{Name: "look", ReadOnly: true, AAL: &aal.Meta{Action: aal.Navigate, Trust: aal.TrustSafe}},
		{Name: "note", AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustUser, Reversible: true}},
		{Name: "buy", AAL: &aal.Meta{Action: aal.Purchase, Trust: aal.TrustFinancial,
			Cost: func(map[string]any) *aal.Cost { return &aal.Cost{Currency: "USD", Amount: 30} }}},
	} {
		a.Description, a.Expose = "Does "+a.Name+".", affordances.ExposeSession
		affordances.AddAction(rt, a, func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", rs.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "mcp") })))
	mux.Handle("/", site.Handler(http.NotFoundHandler()))
	h = rs.Handler(mux)
	return srv, rs
}

// callAs makes a bearer call of action with tok on srv.
func callAs(t *testing.T, srv *httptest.Server, tok, action string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(`{"action":"`+action+`"}`))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("WWW-Authenticate")
}

// TestExternalJWT: a site whose tokens an authorization server of its own
// issues, in another process, checks its JWT access tokens (RFC 9068) by
// that server's keys: the trust classes of their scope, for this site
// only, not expired, access tokens only, unaltered; the application's own
// tokens still work; its metadata names that server.
func TestExternalJWT(t *testing.T) {
	iss := startIssuer(t)
	srv, _ := externalSite(t, oauth.ExternalOptions{Issuer: iss})
	token := func(scope string, edit func(url.Values)) string {
		v := url.Values{"sub": {"alice"}, "aud": {srv.URL}, "scope": {scope}, "exp": {"300"}}
		if edit != nil {
			edit(v)
		}
		return mint(t, iss, v)
	}
	good := token("user", nil)
	for _, tc := range []struct {
		name, tok, action string
		status            int
		challenge         string
	}{
		{"user calls an ordinary change", good, "note", 200, ""},
		{"safe is always granted", good, "look", 200, ""},
		{"financial was not granted", good, "buy", 403, `scope="financial"`},
		{"financial, but no ceiling here", token("user financial", nil), "buy", 403, `scope="financial"`},
		{"the /mcp path form of this site", token("user", func(v url.Values) { v.Set("aud", srv.URL+"/mcp") }), "note", 200, ""},
		{"another site's token", token("user", func(v url.Values) { v.Set("aud", "https://bank.example") }), "note", 401, "resource_metadata"},
		{"expired", token("user", func(v url.Values) { v.Set("exp", "-120") }), "note", 401, ""},
		{"an ID token, not an access token", token("user", func(v url.Values) { v.Set("typ", "JWT") }), "note", 401, ""},
		{"altered", good[:len(good)-4] + "AAAA", "note", 401, ""},
		{"another issuer's, which the application does not know", token("user", func(v url.Values) { v.Set("iss", "https://elsewhere.example") }), "note", 401, ""},
		{"the application's own token", "app-token", "note", 200, ""},
	} {
		status, challenge := callAs(t, srv, tc.tok, tc.action)
		if status != tc.status || !strings.Contains(challenge, tc.challenge) {
			t.Errorf("%s: got %d %q, want %d with %q", tc.name, status, challenge, tc.status, tc.challenge)
		}
	}
	var prm struct {
		Resource string   `json:"resource"`
		Servers  []string `json:"authorization_servers"`
	}
	getJSON(t, srv.URL+oauth.ProtectedResourceMetadataPath, &prm)
	if prm.Resource != srv.URL || len(prm.Servers) != 1 || prm.Servers[0] != iss {
		t.Errorf("the protected resource metadata: got %+v, want this site and %s", prm, iss)
	}
	res, err := http.Get(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 || !strings.Contains(res.Header.Get("WWW-Authenticate"), srv.URL+oauth.ProtectedResourceMetadataPath) {
		t.Errorf("/mcp without a token: got %d %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
}

// TestExternalIntrospection: with the site's credentials there, opaque
// tokens are checked at the server's introspection endpoint (RFC 7662):
// an active one for this site calls what its scope grants; a revoked one,
// one for another site, and one the server does not know are refused.
func TestExternalIntrospection(t *testing.T) {
	iss := startIssuer(t)
	srv, _ := externalSite(t, oauth.ExternalOptions{Issuer: iss, ClientID: "site", ClientSecret: "secret"})
	token := func(aud string) string {
		return mint(t, iss, url.Values{"sub": {"alice"}, "aud": {aud}, "scope": {"user"}, "exp": {"300"}, "opaque": {"1"}})
	}
	good, revoked := token(srv.URL), token(srv.URL)
	if res, err := http.PostForm(iss+"/revoke", url.Values{"token": {revoked}}); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	for _, tc := range []struct {
		name, tok string
		status    int
	}{
		{"active, for this site", good, 200},
		{"revoked", revoked, 401},
		{"for another site", token("https://bank.example"), 401},
		{"unknown", "opaque-nobody-made-this", 401},
		{"the application's own token", "app-token", 200},
	} {
		if status, challenge := callAs(t, srv, tc.tok, "note"); status != tc.status {
			t.Errorf("%s: got %d %q, want %d", tc.name, status, challenge, tc.status)
		}
	}
	if status, challenge := callAs(t, srv, good, "buy"); status != 403 || !strings.Contains(challenge, `scope="financial"`) {
		t.Errorf("buy without financial: got %d %q, want 403 insufficient_scope", status, challenge)
	}
}
