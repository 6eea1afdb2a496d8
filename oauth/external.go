package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/weborigin"
)

// ExternalOptions configures a [ResourceServer]. Issuer, Resource and
// Principal are required.
type ExternalOptions struct {
	// Issuer is the authorization server's issuer ("https://id.example"):
	// its metadata is read from it (RFC 8414, or OpenID discovery), and a
	// token must name it.
	Issuer string
	// Resource is the site's origin: the audience a token must be for.
	Resource string
	// Name is the site's name, in its protected resource metadata.
	Name string
	// ClientID and ClientSecret, when set, are the site's credentials at
	// the server's introspection endpoint (RFC 7662): tokens are checked
	// there, whatever they are. Empty: tokens are JWTs (RFC 9068), checked
	// by the server's keys (its jwks_uri).
	ClientID, ClientSecret string
	// Principal returns the account a token's subject is, as the
	// application's sign-in would.
	Principal func(ctx context.Context, subject string) (affordances.Principal, error)
	// HTTPClient reaches the server. Nil: one that gives up after 10
	// seconds.
	HTTPClient *http.Client
}

// A ResourceServer is a site whose tokens an authorization server of the
// application's own issues (Keycloak, Auth0, an OpenID provider): the site
// only checks them (docs/protocol.md decision 14). Its protected resource metadata
// names that server; a token's scope holds AAL's trust classes by their
// names ([Scopes]). No such server keeps a spending ceiling here, so its
// tokens may spend nothing: a call that costs money is insufficient_scope.
// It is safe for concurrent use.
type ResourceServer struct {
	*resourceServer
	opts  ExternalOptions
	hc    *http.Client
	algs  []jose.SignatureAlgorithm
	jwks  string // the server's key set's URL
	intro string // its introspection endpoint's

	mu        sync.Mutex
	keys      *jose.JSONWebKeySet
	fetched   time.Time           // when keys were last fetched
	inspected map[[32]byte]intros // introspection answers, by the token's hash
}

type intros struct {
	p       affordances.Principal
	ours    bool
	expires time.Time
}

// NewResourceServer reads the authorization server's metadata and returns
// the resource server opts describe, or why it cannot.
func NewResourceServer(ctx context.Context, opts *ExternalOptions) (*ResourceServer, error) {
	var o ExternalOptions
	if opts != nil {
		o = *opts
	}
	origin, err := weborigin.Parse(o.Resource)
	if err != nil {
		return nil, fmt.Errorf("oauth: ExternalOptions.Resource %q is not an origin: %w", o.Resource, err)
	}
	if o.Principal == nil || o.Issuer == "" {
		return nil, errors.New("oauth: ExternalOptions.Issuer and ExternalOptions.Principal are required")
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	meta, err := oauthex.GetAuthServerMeta(ctx, strings.TrimSuffix(o.Issuer, "/")+AuthorizationServerMetadataPath, o.Issuer, o.HTTPClient)
	if err == nil && meta == nil { // none there: an OpenID provider's
		meta, err = openIDConfiguration(ctx, o.Issuer, o.HTTPClient)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: the metadata of %s: %w", o.Issuer, err)
	}
	rs := &ResourceServer{resourceServer: newResourceServer(origin, o.Issuer, o.Name), opts: o, hc: o.HTTPClient,
		jwks: meta.JWKSURI, intro: meta.IntrospectionEndpoint, inspected: map[[32]byte]intros{},
		algs: []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512, jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}}
	switch {
	case o.ClientID != "" && rs.intro == "":
		return nil, fmt.Errorf("oauth: %s names no introspection_endpoint", o.Issuer)
	case o.ClientID == "" && rs.jwks == "":
		return nil, fmt.Errorf("oauth: %s names no jwks_uri: set ExternalOptions.ClientID to introspect its tokens instead", o.Issuer)
	}
	rs.verify = rs.principal
	return rs, nil
}

// openIDConfiguration reads an OpenID provider's discovery document,
// which has the fields of RFC 8414's metadata this server reads.
func openIDConfiguration(ctx context.Context, issuer string, hc *http.Client) (*oauthex.AuthServerMeta, error) {
	var meta oauthex.AuthServerMeta
	if err := getJSON(ctx, hc, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration", &meta); err != nil {
		return nil, err
	}
	if meta.Issuer != issuer {
		return nil, fmt.Errorf("its discovery document names the issuer %q", meta.Issuer)
	}
	return &meta, nil
}

// getJSON reads the JSON document at u, of at most 1 MiB, into v.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, res.Status)
	}
	return json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(v)
}

// Handler serves the site's protected resource metadata, which names the
// authorization server, and hands every other request to next.
func (rs *ResourceServer) Handler(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	rs.handle(mux)
	mux.Handle("/", next)
	return mux
}

// Authenticate returns the site's authenticator: a token of the
// authorization server's is the account it acts for, with a grant of the
// trust classes its scope names; anything else is app's to say. With
// introspection, app is asked first, and only a token it does not know
// goes to the server: the application's own tokens never leave the site.
// Pass it as affordances.SiteOptions.Authenticate.
func (rs *ResourceServer) Authenticate(app func(*http.Request) (affordances.Principal, error)) func(*http.Request) (affordances.Principal, error) {
	if rs.opts.ClientID == "" {
		return rs.authenticate(app)
	}
	theirs := rs.authenticate(func(*http.Request) (affordances.Principal, error) {
		return affordances.Principal{}, affordances.ErrInvalidToken
	})
	return func(r *http.Request) (affordances.Principal, error) {
		p, err := app(r)
		_, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !bearer || (err == nil && !p.Anonymous()) || (err != nil && !errors.Is(err, affordances.ErrInvalidToken)) {
			return p, err
		}
		return theirs(r)
	}
}

// Protect answers a request without an Authorization header with 401 and
// the challenge that starts an MCP host's sign-in, and hands the others
// to h. With JWTs, a token of the server's that is expired or altered is
// 401 invalid_token too; with introspection, a token is the site's to
// judge, so that the application's own never go to the server.
func (rs *ResourceServer) Protect(h http.Handler) http.Handler {
	if rs.opts.ClientID == "" {
		return rs.protect(h)
	}
	judge := *rs.resourceServer
	judge.verify = func(context.Context, string) (affordances.Principal, bool, error) {
		return affordances.Principal{}, false, nil
	}
	return judge.protect(h)
}

// ResourceMetadata is the URL of the site's protected resource metadata,
// for affordances.SiteOptions.OAuth.
func (rs *ResourceServer) ResourceMetadata() string { return rs.metadata() }

// A claimed is what a token says, checked: who, for whom, what.
type claimed struct {
	Issuer   string           `json:"iss"`
	Subject  string           `json:"sub"`
	Audience jwt.Audience     `json:"aud"`
	Expiry   *jwt.NumericDate `json:"exp"`
	Scope    string           `json:"scope"`
	ClientID string           `json:"client_id"`
	Active   *bool            `json:"active,omitempty"` // introspection's
}

// principal returns who a token of the server's acts for; ok false for a
// token that is not the server's.
func (rs *ResourceServer) principal(ctx context.Context, tok string) (affordances.Principal, bool, error) {
	var c claimed
	if rs.opts.ClientID != "" {
		return rs.introspected(ctx, tok)
	}
	parsed, err := jwt.ParseSigned(tok, rs.algs)
	if err != nil {
		return affordances.Principal{}, false, nil // not a JWT: the application's own
	}
	if parsed.UnsafeClaimsWithoutVerification(&c) != nil || c.Issuer != rs.opts.Issuer {
		return affordances.Principal{}, false, nil // another issuer's
	}
	if typ, _ := parsed.Headers[0].ExtraHeaders[jose.HeaderType].(string); !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
		return affordances.Principal{}, true, affordances.ErrInvalidToken // an ID token, say: not an access token (RFC 9068, section 4)
	}
	keys, err := rs.keySet(ctx, parsed.Headers[0].KeyID)
	if err != nil {
		return affordances.Principal{}, true, err
	}
	c = claimed{}
	if err := parsed.Claims(keys, &c); err != nil {
		return affordances.Principal{}, true, affordances.ErrInvalidToken
	}
	p, err := rs.granted(ctx, &c)
	return p, true, err
}

// granted checks c's issuer, audience and expiry and returns its account
// with the grant its scope names.
func (rs *ResourceServer) granted(ctx context.Context, c *claimed) (affordances.Principal, error) {
	if c.Issuer != rs.opts.Issuer || !rs.ours([]string(c.Audience)) || c.Expiry == nil || !time.Now().Before(c.Expiry.Time().Add(time.Minute)) {
		return affordances.Principal{}, affordances.ErrInvalidToken
	}
	p, err := account(ctx, rs.opts.Principal, c.Subject)
	if err != nil {
		return affordances.Principal{}, err
	}
	p.Grant = &affordances.Grant{Client: c.ClientID, Trust: trust(strings.Fields(c.Scope))}
	return p, nil
}

// keySet returns the server's keys, fetched again when they hold no key
// kid, at most once a minute.
func (rs *ResourceServer) keySet(ctx context.Context, kid string) (*jose.JSONWebKeySet, error) {
	rs.mu.Lock()
	keys, fetched := rs.keys, rs.fetched
	rs.mu.Unlock()
	if keys != nil && (len(keys.Key(kid)) > 0 || time.Since(fetched) < time.Minute) {
		return keys, nil
	}
	var set jose.JSONWebKeySet
	if err := getJSON(ctx, rs.hc, rs.jwks, &set); err != nil {
		return nil, fmt.Errorf("oauth: the keys of %s: %w", rs.opts.Issuer, err)
	}
	rs.mu.Lock()
	rs.keys, rs.fetched = &set, time.Now()
	rs.mu.Unlock()
	return &set, nil
}

// introspected asks the server about tok (RFC 7662), and keeps its answer
// for 30 seconds at most, never past the token's expiry.
func (rs *ResourceServer) introspected(ctx context.Context, tok string) (affordances.Principal, bool, error) {
	key := sha256.Sum256([]byte(tok))
	rs.mu.Lock()
	hit, ok := rs.inspected[key]
	rs.mu.Unlock()
	if ok && time.Now().Before(hit.expires) {
		return hit.p, hit.ours, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rs.intro, strings.NewReader(url.Values{"token": {tok}, "token_type_hint": {"access_token"}}.Encode()))
	if err != nil {
		return affordances.Principal{}, false, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(rs.opts.ClientID), url.QueryEscape(rs.opts.ClientSecret))
	res, err := rs.hc.Do(req)
	if err != nil {
		return affordances.Principal{}, true, fmt.Errorf("oauth: introspecting a token at %s: %w", rs.intro, err)
	}
	defer res.Body.Close()
	var c claimed
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&c) != nil || c.Active == nil {
		return affordances.Principal{}, true, fmt.Errorf("oauth: introspecting a token at %s: %s", rs.intro, res.Status)
	}
	hit = intros{expires: time.Now().Add(30 * time.Second)}
	if *c.Active { // an inactive token may be the application's own
		if c.Issuer == "" {
			c.Issuer = rs.opts.Issuer
		}
		hit.ours = true
		hit.p, err = rs.granted(ctx, &c)
		if err != nil && !errors.Is(err, affordances.ErrInvalidToken) {
			return affordances.Principal{}, true, err
		}
		if c.Expiry != nil && c.Expiry.Time().Before(hit.expires) {
			hit.expires = c.Expiry.Time()
		}
		if err != nil {
			hit.p = affordances.Principal{}
		}
	}
	rs.mu.Lock()
	if len(rs.inspected) > 10_000 {
		clear(rs.inspected)
	}
	rs.inspected[key] = hit
	rs.mu.Unlock()
	if hit.ours && hit.p.ID == "" {
		return affordances.Principal{}, true, affordances.ErrInvalidToken
	}
	return hit.p, hit.ours, nil
}
