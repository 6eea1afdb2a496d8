package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"golang.org/x/text/language"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/weborigin"
	"github.com/affordances/affordances-go/store"
)

// Scopes are the scopes this server grants: AAL's trust classes
// (docs/protocol.md decision 14). safe is granted to every token.
var Scopes = []string{string(aal.TrustSafe), string(aal.TrustUser), string(aal.TrustPersonal), string(aal.TrustFinancial), string(aal.TrustAdmin)}

// The paths this server answers at, on the site's origin.
const (
	AuthorizationServerMetadataPath = "/.well-known/oauth-authorization-server" // RFC 8414
	ProtectedResourceMetadataPath   = "/.well-known/oauth-protected-resource"   // RFC 9728
	AuthorizePath                   = "/oauth/authorize"
	TokenPath                       = "/oauth/token"
	RevokePath                      = "/oauth/revoke"
	RegisterPath                    = "/oauth/register"
	AssistantsPath                  = "/oauth/assistants" // the person's connected assistants
)

// Options configures a [Server]. Issuer, Authenticate, Principal and
// SignIn are required; the zero value of every other field is a sound
// default.
type Options struct {
	// Issuer is the site's origin ("https://shop.example"): the
	// authorization server's issuer and the resource its tokens are for.
	Issuer string
	// Name is the site's name, on the consent page. Empty: its host.
	Name string
	// Authenticate is the application's own sign-in, as the site's
	// (affordances.SiteOptions.Authenticate): it says who the person at
	// the consent page is, from their browser session. The page names
	// them by their Principal.User when it is a fmt.Stringer (an email),
	// else by their ID.
	Authenticate func(*http.Request) (affordances.Principal, error)
	// Principal returns the account a token acts for, by its ID: the
	// application's record of it, as Authenticate would. An
	// [affordances.ErrInvalidToken] ends the token (the account is gone
	// or disabled).
	Principal func(ctx context.Context, id string) (affordances.Principal, error)
	// SignIn is the path of the application's sign-in page. A person who
	// is not signed in is sent there with ?next= the page to come back
	// to, a path of this site.
	SignIn string
	// Store keeps clients, grants and tokens. Nil: in memory, for one
	// instance; sqlstore and redisstore keep them across restarts and
	// instances.
	Store store.OAuth
	// Secret is the key tokens are signed with (hashed to 32 bytes), at
	// least 32 bytes, shared by every instance of the site. Nil: a random
	// one, so that tokens do not outlive the process.
	Secret []byte
	// AccessTokenLifetime is how long an access token is good for (0: 10
	// minutes); RefreshTokenLifetime how long a grant lasts unused (0: 30
	// days): each refresh rotates the refresh token and starts it again.
	AccessTokenLifetime, RefreshTokenLifetime time.Duration
	// MetadataClient fetches the metadata documents that clients name
	// themselves by. Nil: one that reaches public addresses only, follows
	// no redirect and gives up after 10 seconds.
	MetadataClient *http.Client
	// RateLimiter counts registrations (RFC 7591) by client address,
	// RegistrationLimit at most (zero: 20 an hour, 10 at once): an
	// assistant registers once per person, and a flood of registrations
	// would fill the store. Nil: in memory, for one instance; several
	// instances share redisstore's.
	RateLimiter       store.RateLimiter
	RegistrationLimit store.Limit
	// Logger receives what goes wrong on the server's side. Nil:
	// slog.Default().
	Logger *slog.Logger
	// Languages are the pages' beside English, chosen by
	// Accept-Language, as affordances.SiteOptions.Languages are: each
	// maps the package's English messages to its own; nil for French is
	// the package's French.
	Languages map[language.Tag]map[string]string
	// Language is the application's word on the language who, the person
	// at r, reads (anonymous before they signed in), as
	// affordances.SiteOptions.Language is: the site's function serves
	// both. Nil: Accept-Language alone.
	Language func(r *http.Request, who affordances.Principal) language.Tag
}

// A Server is a site's own OAuth 2.1 authorization server and the
// resource server its tokens are checked by (docs/protocol.md decision 14): the
// assistants people run (MCP hosts) discover it from the site's /mcp,
// register or name themselves by a metadata document, send the person to
// sign in on the site and grant them AAL's trust classes, then call the
// site's graph, calls and /mcp with the token. Its protocol is
// github.com/ory/fosite's: the authorization code flow with PKCE S256
// only, refresh tokens rotated on each use, revocation. It is safe for
// concurrent use.
type Server struct {
	*resourceServer
	opts     Options
	issuer   string
	provider fosite.OAuth2Provider
	st       store.OAuth
	clients  *clients
	logger   *slog.Logger
	langs    *langs

	mu   sync.Mutex
	used map[string]time.Time // when a grant's last use was recorded
}

// New returns the authorization server opts describe, or why it cannot.
func New(opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	issuer, err := weborigin.Parse(o.Issuer)
	switch {
	case err != nil:
		return nil, fmt.Errorf("oauth: Options.Issuer %q is not an origin: %w", o.Issuer, err)
	case o.Authenticate == nil || o.Principal == nil:
		return nil, errors.New("oauth: Options.Authenticate and Options.Principal are required")
	case !strings.HasPrefix(o.SignIn, "/") || strings.HasPrefix(o.SignIn, "//"):
		return nil, fmt.Errorf("oauth: Options.SignIn %q is not a path of the site", o.SignIn)
	case o.Secret != nil && len(o.Secret) < 32:
		return nil, errors.New("oauth: Options.Secret is shorter than 32 bytes")
	}
	if o.Secret == nil {
		o.Secret = make([]byte, 32)
		rand.Read(o.Secret)
	}
	key := sha256.Sum256(o.Secret) // fosite's HMAC key is 32 bytes: all of the secret's, whatever its length
	o.Secret = key[:]
	if o.Store == nil {
		o.Store = store.NewMemoryOAuth(nil)
	}
	if o.MetadataClient == nil {
		o.MetadataClient = metadataClient()
	}
	if o.RateLimiter == nil {
		o.RateLimiter = store.NewMemoryRateLimiter(nil)
	}
	if o.RegistrationLimit == (store.Limit{}) {
		o.RegistrationLimit = store.Limit{Calls: 20, Per: time.Hour, Burst: 10}
	}
	if o.AccessTokenLifetime <= 0 {
		o.AccessTokenLifetime = 10 * time.Minute
	}
	if o.RefreshTokenLifetime <= 0 {
		o.RefreshTokenLifetime = 30 * 24 * time.Hour
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	langs, err := newLangs(o.Languages, o.Language)
	if err != nil {
		return nil, err
	}
	s := &Server{resourceServer: newResourceServer(issuer, issuer, o.Name), opts: o, issuer: issuer, st: o.Store, logger: o.Logger, langs: langs,
		used: map[string]time.Time{}}
	s.verify = s.principal
	s.clients = &clients{st: o.Store, resource: s.audiences, hc: o.MetadataClient, cached: map[string]cachedClient{}}
	cfg := &fosite.Config{
		AccessTokenLifespan:   o.AccessTokenLifetime,
		RefreshTokenLifespan:  o.RefreshTokenLifetime,
		AuthorizeCodeLifespan: time.Minute,
		GlobalSecret:          o.Secret,
		// PKCE for every client, S256 only (OAuth 2.1, MCP).
		EnforcePKCE:                    true,
		EnablePKCEPlainChallengeMethod: false,
		// A refresh token with every grant, without offline_access.
		RefreshTokenScopes:         []string{},
		ScopeStrategy:              fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:   fosite.ExactAudienceMatchingStrategy,
		AccessTokenIssuer:          issuer,
		TokenURL:                   issuer + TokenPath,
		SendDebugMessagesToClients: false,
	}
	st := &storage{st: o.Store, clients: s.clients}
	// The code flow, refresh with rotation and reuse detection,
	// revocation (RFC 7009), introspection for this resource server, PKCE:
	// no implicit flow, no password grant.
	s.provider = compose.Compose(cfg, st, compose.NewOAuth2HMACStrategy(cfg),
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2TokenRevocationFactory,
		compose.OAuth2TokenIntrospectionFactory,
		compose.OAuth2PKCEFactory,
	)
	return s, nil
}

// Handler serves the server's endpoints and metadata, the consent page
// and the person's page of connected assistants, and hands every other
// request to next.
func (s *Server) Handler(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+AuthorizationServerMetadataPath, s.serveMetadata)
	s.handle(mux)
	mux.HandleFunc(AuthorizePath, s.serveAuthorize)
	mux.HandleFunc("POST "+TokenPath, s.serveToken)
	mux.HandleFunc("POST "+RevokePath, s.serveRevoke)
	mux.HandleFunc("POST "+RegisterPath, s.serveRegister)
	mux.HandleFunc(AssistantsPath, s.serveAssistants)
	mux.Handle("/", next)
	return mux
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// serveMetadata answers the authorization server's metadata (RFC 8414).
func (s *Server) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, &oauthex.AuthServerMeta{
		Issuer:                                     s.issuer,
		AuthorizationEndpoint:                      s.issuer + AuthorizePath,
		TokenEndpoint:                              s.issuer + TokenPath,
		RegistrationEndpoint:                       s.issuer + RegisterPath,
		RevocationEndpoint:                         s.issuer + RevokePath,
		ScopesSupported:                            Scopes,
		ResponseTypesSupported:                     responseTypes,
		GrantTypesSupported:                        grantTypes,
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		RevocationEndpointAuthMethodsSupported:     []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          true,
		AuthorizationResponseIssParameterSupported: true,
	})
}

// checkResource checks the resource indicators of a request (RFC 8707): none,
// or one of this site's. Another resource gets no token.
func (s *Server) checkResource(values []string) error {
	for _, v := range values {
		if !slices.Contains(s.audiences, v) {
			return errInvalidTarget
		}
	}
	if len(values) > 1 {
		return errInvalidTarget
	}
	return nil
}

var errInvalidTarget = &fosite.RFC6749Error{ErrorField: "invalid_target", CodeField: http.StatusBadRequest,
	DescriptionField: "The requested resource is not this site's; this server grants tokens for its own site only."}

// serveToken is the token endpoint: a code for tokens, a refresh token
// for new ones (the old one retired).
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ar, err := s.provider.NewAccessRequest(ctx, r, new(fosite.DefaultSession))
	if err == nil {
		err = s.checkResource(r.PostForm["resource"])
	}
	if err != nil {
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	res, err := s.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	s.provider.WriteAccessResponse(ctx, w, ar, res)
}

// serveRevoke is the revocation endpoint (RFC 7009): either token of a
// grant ends the grant.
func (s *Server) serveRevoke(w http.ResponseWriter, r *http.Request) {
	s.provider.WriteRevocationResponse(r.Context(), w, s.provider.NewRevocationRequest(r.Context(), r))
}

// serveRegister is dynamic client registration (RFC 7591), for the hosts
// that register rather than name themselves by a metadata document.
func (s *Server) serveRegister(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ok, wait, err := s.opts.RateLimiter.Allow(r.Context(), "oauth-register:"+host, s.opts.RegistrationLimit)
	if err != nil {
		s.logger.Error("oauth: the rate limiter of registrations", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
		return
	}
	if !ok {
		w.Header().Set("Retry-After", strconv.Itoa(max(int(wait.Seconds()+0.5), 1)))
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "temporarily_unavailable", "error_description": "Too many registrations from this address; try again later."})
		return
	}
	var m metadata
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10)).Decode(&m); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata", "error_description": "The body is not a JSON object of at most 16 KiB."})
		return
	}
	if err := m.check(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri", "error_description": err.Error()})
		return
	}
	c := &store.OAuthClient{ID: strings.ToLower(rand.Text()), Name: m.ClientName, RedirectURIs: m.RedirectURIs, Created: time.Now()}
	if err := s.st.CreateClient(r.Context(), c); err != nil {
		s.logger.Error("oauth: registering a client", "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
		return
	}
	writeJSON(w, http.StatusCreated, &oauthex.ClientRegistrationResponse{
		ClientRegistrationMetadata: oauthex.ClientRegistrationMetadata{
			RedirectURIs: c.RedirectURIs, ClientName: c.Name, GrantTypes: grantTypes, ResponseTypes: responseTypes,
			TokenEndpointAuthMethod: "none", Scope: strings.Join(Scopes, " "),
		},
		ClientID:         c.ID,
		ClientIDIssuedAt: c.Created,
	})
}

// Authenticate returns the site's authenticator: a bearer token this
// server issued is the account it acts for, with the [affordances.Grant]
// the person gave; anything else is app's to say (a browser session, the
// application's own tokens). Pass it as affordances.SiteOptions.Authenticate.
func (s *Server) Authenticate(app func(*http.Request) (affordances.Principal, error)) func(*http.Request) (affordances.Principal, error) {
	return s.authenticate(app)
}

// Protect answers a request without an Authorization header with 401 and
// the challenge that starts an MCP host's sign-in, and hands the others
// to h: the site's /mcp, which then calls the site with that token.
func (s *Server) Protect(h http.Handler) http.Handler { return s.protect(h) }

// ResourceMetadata is the URL of the site's protected resource metadata,
// for affordances.SiteOptions.OAuth.
func (s *Server) ResourceMetadata() string { return s.metadata() }

// tokenPrefix begins every access token this server issues (fosite's
// HMAC strategy), which tells them apart from the application's own.
const tokenPrefix = "ory_at_"

// principal returns who one of this server's access tokens acts for, and
// their grant; ok false for any other token.
func (s *Server) principal(ctx context.Context, tok string) (affordances.Principal, bool, error) {
	if !strings.HasPrefix(tok, tokenPrefix) {
		return affordances.Principal{}, false, nil
	}
	use, ar, err := s.provider.IntrospectToken(ctx, tok, fosite.AccessToken, new(fosite.DefaultSession))
	switch {
	case err != nil && (errors.Is(err, fosite.ErrServerError) || errors.Is(err, fosite.ErrTemporarilyUnavailable)):
		return affordances.Principal{}, true, fmt.Errorf("oauth: checking a token: %w", err)
	case err != nil || use != fosite.AccessToken || !s.ours(ar.GetGrantedAudience()):
		return affordances.Principal{}, true, affordances.ErrInvalidToken
	}
	g, err := s.st.Grant(ctx, ar.GetID())
	if err != nil {
		return affordances.Principal{}, true, fmt.Errorf("oauth: the grant of a token: %w", err)
	}
	if g == nil {
		return affordances.Principal{}, true, affordances.ErrInvalidToken // revoked
	}
	p, err := account(ctx, s.opts.Principal, g.Subject)
	if err != nil {
		return affordances.Principal{}, true, err
	}
	p.Grant = &affordances.Grant{Client: g.Client, Trust: trust(g.Trust)}
	if g.Currency != "" {
		id := g.ID
		p.Grant.Spend = func(ctx context.Context, cost aal.Cost) (func(context.Context), error) {
			if err := s.st.Spend(ctx, id, cost.Currency, cost.Amount); errors.Is(err, store.ErrOverCeiling) {
				return nil, affordances.ErrOverCeiling
			} else if err != nil {
				return nil, err
			}
			return func(ctx context.Context) {
				if err := s.st.Spend(ctx, id, cost.Currency, -cost.Amount); err != nil {
					s.logger.Error("oauth: giving back what a call that did not run spent", "grant", id, "err", err)
				}
			}, nil
		}
	}
	s.noteUse(ctx, g.ID)
	return p, true, nil
}

// account returns the account of subject, as principal says it, signed
// in by bearer token; a principal that is not the subject's ends the
// token.
func account(ctx context.Context, principal func(context.Context, string) (affordances.Principal, error), subject string) (affordances.Principal, error) {
	p, err := principal(ctx, subject)
	if err != nil {
		return affordances.Principal{}, err
	}
	if subject == "" || p.ID != subject {
		return affordances.Principal{}, affordances.ErrInvalidToken
	}
	p.Method = affordances.AuthBearer
	return p, nil
}

// noteUse records a grant's use, at most once a minute for each.
func (s *Server) noteUse(ctx context.Context, grant string) {
	now := time.Now()
	s.mu.Lock()
	last := s.used[grant]
	fresh := now.Sub(last) < time.Minute
	if !fresh {
		if len(s.used) > 10_000 {
			clear(s.used)
		}
		s.used[grant] = now
	}
	s.mu.Unlock()
	if !fresh {
		if err := s.st.Used(ctx, grant, now); err != nil {
			s.logger.Error("oauth: recording a grant's use", "err", err)
		}
	}
}
