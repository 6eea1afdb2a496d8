// Package shop is the demo shop of affordances-go: a small real shop whose
// pages answer HTML to people and an Affordances graph to agents from the
// same URLs, sessions and domain code (docs/protocol.md §1).
//
// Data lives in one SQLite file (modernc.org/sqlite, no cgo), or in
// PostgreSQL (pgx; [Options.Database]), which several instances may share
// with Redis for their rate limits and Idempotency-Keys ([Options.Redis]).
// The same store code serves both. The catalog is seeded on first open
// with a handful of products (or some 200 with their reviews:
// [Options.Seed]); the user alice@example.com (password "alice") has two
// cards on file (ending 4242 and 1881), two shipping addresses, and a
// bearer token the caller may choose ([Options.DemoToken]).
//
//	s, err := shop.Open(ctx, &shop.Options{DataDir: dir})
//	if err != nil { ... }
//	defer s.Close()
//	http.ListenAndServe("127.0.0.1:8080", s.Handler())
//
// Routes: / (catalog and search, 24 products a page), /products/[slug],
// /products/[slug]/reviews (all of them, 10 a page), /cart,
// /checkout/shipping, /checkout/payment, /checkout, /orders, /orders/[id]
// and /login. Every page is an ordinary HTML page with forms that work
// without JavaScript; the same URL asked for with
// Accept: application/vnd.affordances+json is its graph.
//
// A product page lists the product's 10 latest reviews, and links the
// rest when there are more; a signed-in customer writes
// one review of a product and may delete it. /orders is the customer's
// order history; an order can be cancelled within 30 minutes of placing
// it, and its items go back in stock.
//
// Accounts: /signup creates one; /account holds the profile and the
// shipping addresses, /account/tokens the bearer tokens of one's agents.
//
// A shop that knows its origin ([Options.Origin]) is also an OAuth 2.1
// authorization server (package oauth): the assistants people run connect
// to its /mcp, the person signs in on /login and grants them AAL's trust
// classes on the consent page, and sees them on /oauth/assistants, linked
// from /account. Its tokens and grants live in the shop's database (or in
// Redis, [Options.Redis]), signed with a key kept there, so a restart
// signs no assistant out.
// The administrator, admin@example.com (password "admin"), also sees /admin
// (prices and stock) and /admin/users (accounts), not found for anyone
// else.
//
// The shop also publishes AAL 0.1.1 (docs/protocol.md §28 to §44): a manifest at
// /.well-known/agent-affordances.json, a fragment for every page beside it
// and inline in the page, and a data-aal attribute on the element of each
// action. The checkout is a flow of four steps: the cart, the shipping
// address, the card, and the review where the order is placed.
//
// For agents that live in the browser, every page with a graph registers
// its available actions as WebMCP tools (affordances.Page.Head), and the
// forms a person fills are the same tools, declared by their attributes;
// /llms.txt describes the site in Markdown.
package shop

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/sqldb"
	"github.com/affordances/affordances-go/oauth"
	"github.com/affordances/affordances-go/redisstore"
	"github.com/affordances/affordances-go/sqlstore"
	"github.com/redis/go-redis/v9"
)

// DemoEmail and DemoPassword sign in the seeded demo user.
const (
	DemoEmail    = "alice@example.com"
	DemoPassword = "alice"
)

// Options configures [Open]. The zero value of every field is a sound
// default.
type Options struct {
	// DataDir is the directory of the SQLite file, shop.db, created when
	// missing. Empty: a new temporary directory, removed by [Shop.Close].
	DataDir string

	// Database is a PostgreSQL URL (postgres://user@host/db): the shop's
	// data lives there instead, its tables created and seeded when missing,
	// and several instances of the shop may share it. DataDir is then
	// unused. Empty: the SQLite file in DataDir.
	Database string

	// DemoToken is the demo user's bearer token. Empty: a random one is made
	// at each Open. Either way it replaces the token the previous Open made,
	// and [Shop.Token] returns it.
	DemoToken string

	// Logger receives unexpected failures. Nil is silent.
	Logger *slog.Logger

	// Origin is the site's origin ("https://shop.example"), the only Origin
	// a cookie call or a form post may carry, and the issuer of the shop's
	// OAuth authorization server ([Shop.OAuth]). Empty: derived from each
	// request's scheme and Host, and no OAuth.
	Origin string

	// OAuthMetadataClient fetches the metadata documents OAuth clients
	// name themselves by (oauth.Options.MetadataClient). Nil: one that
	// reaches public addresses only; a test that serves a document on
	// loopback passes its server's client.
	OAuthMetadataClient *http.Client

	// Redis, when set, keeps the site's rate limits and Idempotency-Keys, so
	// several instances of the shop share them. Nil: the keys are kept in
	// the shop's database (a restart forgets none; instances sharing a
	// PostgreSQL database share them) and the limits in memory.
	Redis redis.UniversalClient

	// NoApproval lets placeOrder run on confirm: true alone. By default an
	// order is human-verified (docs/protocol.md decision 10): the agent's call gets
	// the URL of the shop's approval page, the person approves there,
	// signed in, and only then does the call run.
	NoApproval bool

	// Seed is what a new database is seeded with: "" or "demo", the
	// handful of products above; "realistic", a catalog of the size a
	// small real shop has besides them, about 200 products with their
	// variants, and the reviews of 40 seeded shoppers (0 to 12 a product),
	// made alike at every seeding. A database seeded already keeps what it
	// holds.
	Seed string

	// MCP is the path of the shop's MCP endpoint, advertised as "mcp" in
	// its site index; the caller mounts the endpoint there (the demo
	// command mounts mcpbridge.Handler at /mcp). Empty: none.
	MCP string
}

// siteName is the shop's name, in its site index and on its consent page.
const siteName = "Demo Shop"

// A Shop is the demo shop: its database, its Affordances site and its HTML
// pages. It is safe for concurrent use.
type Shop struct {
	store   *store
	site    *affordances.Site
	handler http.Handler
	logger  *slog.Logger
	token   string
	tmpDir  string // removed by Close when Open made it
	secure  bool   // cookies get the Secure attribute
	// noApproval is Options.NoApproval.
	noApproval bool
	// oauth is the shop's authorization server, nil without an Origin.
	oauth *oauth.Server
	views *views
	// now is the clock of order cancelling (the 30 minutes); tests set
	// it.
	now func() time.Time
}

// Open opens (creating and seeding when new) the shop's database in
// opts.DataDir and declares its routes. opts may be nil. The caller must
// call [Shop.Close].
func Open(ctx context.Context, opts *Options) (*Shop, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Shop{logger: o.Logger, now: time.Now, noApproval: o.NoApproval}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if o.Seed != "" && o.Seed != "demo" && o.Seed != "realistic" {
		return nil, fmt.Errorf("shop: Options.Seed %q is neither demo nor realistic", o.Seed)
	}
	source, err := s.source(&o)
	if err != nil {
		return nil, err
	}
	st, err := openStore(ctx, source, o.Seed == "realistic")
	if err != nil {
		s.removeTmp()
		return nil, err
	}
	s.store = st
	s.token = o.DemoToken
	if s.token == "" {
		s.token = randomToken()
	}
	if err := st.setDemoToken(ctx, DemoEmail, s.token); err != nil {
		s.Close()
		return nil, err
	}
	if o.Origin != "" {
		u, err := originScheme(o.Origin)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.secure = u == "https"
	}
	s.views = mustParseViews()
	secret, err := st.secret(ctx)
	if err != nil {
		s.Close()
		return nil, err
	}
	authenticate, resourceMetadata := s.authenticate, ""
	if o.Origin != "" {
		if s.oauth, err = s.authorizationServer(ctx, &o, secret); err != nil {
			s.Close()
			return nil, err
		}
		authenticate, resourceMetadata = s.oauth.Authenticate(s.authenticate), s.oauth.ResourceMetadata()
	}
	siteOpts := &affordances.SiteOptions{
		Name:         siteName,
		Description:  "A small demo shop of clothes, bags and homeware: search the catalog, fill a cart, check out with a card on file, review what you bought.",
		Origin:       o.Origin,
		SigningKey:   secret,
		Authenticate: authenticate,
		SignInReason: signInReason,
		Logger:       s.logger,
		MCP:          o.MCP,
		OAuth:        resourceMetadata,
	}
	if err := stores(ctx, o.Redis, st.db.Pool(), siteOpts); err != nil {
		s.Close()
		return nil, err
	}
	s.site = affordances.NewSite(siteOpts)
	s.declare()
	s.handler = s.site.Handler(s.pages())
	if s.oauth != nil {
		s.handler = s.oauth.Handler(s.handler)
	}
	s.handler = withHeaders(s.handler)
	return s, nil
}

// authorizationServer returns the shop's OAuth authorization server: the
// person signs in with the shop's own sign-in, a token acts for an
// account while it is enabled, and tokens are signed with a key derived
// from the shop's secret and kept where the site keeps its approvals.
func (s *Shop) authorizationServer(ctx context.Context, o *Options, secret []byte) (*oauth.Server, error) {
	key := hmac.New(sha256.New, secret)
	key.Write([]byte("affordances-go shop: OAuth tokens"))
	opts := &oauth.Options{
		Issuer:         o.Origin,
		Name:           siteName,
		Authenticate:   s.authenticate,
		Principal:      s.accountPrincipal,
		SignIn:         routeLogin,
		Secret:         key.Sum(nil),
		MetadataClient: o.OAuthMetadataClient,
		Logger:         s.logger,
	}
	if o.Redis != nil {
		opts.Store, opts.RateLimiter = redisstore.NewOAuth(o.Redis, nil), redisstore.NewRateLimiter(o.Redis, nil)
	} else {
		var err error
		if opts.Store, err = sqlstore.NewOAuth(ctx, s.store.db.Pool(), nil); err != nil {
			return nil, fmt.Errorf("shop: %w", err)
		}
	}
	return oauth.New(opts)
}

// accountPrincipal is the account with the id an OAuth token acts for; a
// disabled or deleted one ends the token.
func (s *Shop) accountPrincipal(ctx context.Context, id string) (affordances.Principal, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return affordances.Principal{}, affordances.ErrInvalidToken
	}
	u, err := s.store.user(ctx, n)
	if err != nil {
		return affordances.Principal{}, err
	}
	if u == nil {
		return affordances.Principal{}, affordances.ErrInvalidToken
	}
	return principal(u, affordances.AuthBearer), nil
}

// OAuth returns the shop's OAuth authorization server, nil when
// [Options.Origin] is empty. The caller mounts the shop's /mcp behind its
// Protect, so that an assistant without a token is told where to sign in.
func (s *Shop) OAuth() *oauth.Server { return s.oauth }

// source returns where the shop's data lives: o.Database, or the SQLite
// file in o.DataDir (a temporary directory when empty, which Close removes).
func (s *Shop) source(o *Options) (string, error) {
	if o.Database != "" {
		if !sqldb.IsPostgres(o.Database) {
			return "", fmt.Errorf("shop: Options.Database %q is not a PostgreSQL URL (postgres://…)", o.Database)
		}
		return o.Database, nil
	}
	dir := o.DataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "affordances-shop-")
		if err != nil {
			return "", fmt.Errorf("shop: %w", err)
		}
		dir, s.tmpDir = tmp, tmp
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("shop: %w", err)
	}
	return filepath.Join(dir, "shop.db"), nil
}

// stores sets the site's rate limiter, idempotency store and approvals
// store in opts: in Redis when rdb is set, else the limiter in memory (the
// site's default) and the others in db.
func stores(ctx context.Context, rdb redis.UniversalClient, db *sql.DB, opts *affordances.SiteOptions) error {
	if rdb != nil {
		opts.RateLimiter, opts.Idempotency, opts.Approvals = redisstore.NewRateLimiter(rdb, nil), redisstore.NewIdempotency(rdb, nil), redisstore.NewApprovals(rdb, nil)
		return nil
	}
	var err error
	if opts.Idempotency, err = sqlstore.NewIdempotency(ctx, db, nil); err != nil {
		return fmt.Errorf("shop: %w", err)
	}
	if opts.Approvals, err = sqlstore.NewApprovals(ctx, db, nil); err != nil {
		return fmt.Errorf("shop: %w", err)
	}
	return nil
}

// Handler returns the shop's HTTP handler: the Affordances site, which
// answers agents' calls and people's forms alike, wrapped around the HTML
// pages and the stylesheet.
func (s *Shop) Handler() http.Handler { return s.handler }

// Token returns the demo user's bearer token.
func (s *Shop) Token() string { return s.token }

// Path returns where the shop's data lives: the path of its SQLite file,
// or its PostgreSQL URL without the password.
func (s *Shop) Path() string { return s.store.where() }

// CreateUser adds a customer who signs in with email and password and
// returns a new bearer token for them. Like the demo user, a new customer
// gets the shop's test card (ending 4242) and a sample shipping address, so
// they can check out. An email already taken is an error.
func (s *Shop) CreateUser(ctx context.Context, email, password string) (token string, err error) {
	if email == "" || password == "" {
		return "", errors.New("shop: an email and a password are required")
	}
	id, err := s.store.createUser(ctx, email, "Customer", password)
	if err != nil {
		return "", err
	}
	token = randomToken()
	if err := s.store.addToken(ctx, id, "api", token); err != nil {
		return "", err
	}
	return token, nil
}

// Close closes the database, and removes the data directory when Open made
// a temporary one.
func (s *Shop) Close() error {
	var err error
	if s.store != nil {
		err = s.store.close()
	}
	s.removeTmp()
	return err
}

func (s *Shop) removeTmp() {
	if s.tmpDir != "" {
		os.RemoveAll(s.tmpDir)
		s.tmpDir = ""
	}
}

// randomToken returns 32 random bytes, base64url without padding.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}
