package affordances

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/weborigin"
	"github.com/affordances/affordances-go/store"
	"golang.org/x/text/language"
)

// SiteOptions configures a [Site]. The zero value of every field is a sound
// default; NewSite copies the struct.
type SiteOptions struct {
	Name        string // the site's name in its index and its llms.txt
	Description string // one line on what the site is, for its llms.txt
	// Prefix is the path the pages live under ("/app") when [http.StripPrefix]
	// or a proxy takes it off: paths on the wire and the site's documents carry
	// it, the app's own do not (docs/protocol.md decision 13).
	Prefix string
	// Mux is the app's router, when middleware wraps it or it is not an
	// [http.ServeMux] (ExampleSiteOptions_chi): its more specific patterns win
	// over routes. Nil: the handler the site wraps, if it has this method.
	Mux interface {
		Handler(r *http.Request) (h http.Handler, pattern string)
	}
	// Origin is the only Origin a cookie call may carry ("https://shop.example";
	// docs/protocol.md decision 4). Empty: each request's scheme and Host.
	Origin string
	// Authenticate says who is asking: the zero Principal without credentials,
	// [ErrInvalidToken] (or another [*Error]) for ones it refuses; any other
	// error is internal (500), logged. Nil: everyone is anonymous.
	Authenticate func(*http.Request) (Principal, error)
	// Auth lists the ways of authenticating the index advertises. Nil: cookie
	// and bearer when Authenticate is set, none otherwise.
	Auth []AuthMethod
	// MCP is the path of the site's MCP endpoint, advertised in the index.
	MCP string
	// OAuth is the URL of the OAuth protected resource metadata (RFC 9728) the
	// index and 401s name (docs/protocol.md decision 14). Empty: none.
	OAuth string
	// RateLimiter counts calls (docs/protocol.md §19, step 3). Nil: in memory.
	RateLimiter store.RateLimiter
	// Limit is the default rate limit per principal (or client address) and
	// route. Zero: 60 calls a minute, burst 20.
	Limit Limit
	// Idempotency keeps the first answer of a call with an Idempotency-Key for
	// its retries (docs/protocol.md decision 10). Nil: in memory.
	Idempotency store.Idempotency
	// Approvals keeps the approvals of human-verified confirmation
	// (docs/protocol.md decision 10). Nil: in memory.
	Approvals store.Approvals
	// VerifyConfirm makes every confirm action human-verified ([Action.Verify]).
	VerifyConfirm bool
	// MaxBodyBytes bounds the body of a call or form; a larger one gets
	// invalid_input (413). Zero: 1 MiB; NewSite panics on a negative one.
	MaxBodyBytes int64
	// SignInReason is the reason an action needing a session shows an
	// anonymous requester. Empty: "Sign in to do this.", in their language.
	SignInReason string
	// Languages maps the site's languages beside English to their words for the
	// library's messages (docs/messages.md), French to nil for the library's.
	// NewSite panics on a key the library never writes or a verb its key lacks.
	Languages map[language.Tag]map[string]string
	// Language returns the language the app says who reads (docs/protocol.md
	// decision 13); for language.Und or one not in Languages, Accept-Language
	// chooses. It is asked for every text written. Nil: Accept-Language alone.
	Language func(r *http.Request, who Principal) language.Tag
	// SigningKey is the HMAC key of the cookie that carries a form's message
	// to the next page, the same on every instance of a site. Nil: random.
	SigningKey []byte
	// Logger receives unexpected failures. Nil: [slog.Default].
	Logger *slog.Logger
}

// A Site is the publisher: routes, their state loaders and actions, served by
// [Site.Handler]. Declared before serving, it is then safe for concurrent use.
type Site struct {
	// mu guards routes and the actions of each until Handler freezes the
	// declarations; frozen, they are read without it.
	mu     sync.Mutex
	frozen bool
	opts   SiteOptions
	// prefixLinks are the Link values every page of a site under a path
	// prefix names its documents there with, for a proxy that forwards
	// only the prefix (docs/protocol.md decision 13); none without a prefix.
	prefixLinks []string
	// llmsLink is the Link header value of the site's llms.txt.
	llmsLink string
	limiter  store.RateLimiter
	idem     store.Idempotency
	appr     store.Approvals
	routes   []*Route
	logger   *slog.Logger
	// formOrigin is the browser's origin rule for forms.
	formOrigin *http.CrossOriginProtection
	secret     []byte // keys the flash cookie's signature
	lang       *languages
}

// An appMux is an app's own mux that says which of its patterns a request
// matches, as [http.ServeMux.Handler] does.
type appMux interface {
	Handler(r *http.Request) (h http.Handler, pattern string)
}

// NewSite returns a site with no routes. opts may be nil.
func NewSite(opts *SiteOptions) *Site {
	s := &Site{}
	if opts != nil {
		s.opts = *opts
	}
	s.formOrigin = http.NewCrossOriginProtection()
	s.secret = s.opts.SigningKey
	if s.secret == nil {
		s.secret = make([]byte, 32)
		rand.Read(s.secret) // never fails (crypto/rand)
	}
	if s.opts.Origin != "" {
		o, err := weborigin.Parse(s.opts.Origin)
		if err == nil {
			err = s.formOrigin.AddTrustedOrigin(o)
		}
		if err != nil {
			panic(fmt.Sprintf("affordances: SiteOptions.Origin %q: %v", s.opts.Origin, err))
		}
		s.opts.Origin = o
	}
	if p := s.opts.Prefix; p != "" && (!strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.ContainsAny(p, "?#{}[] ")) {
		panic(fmt.Sprintf("affordances: SiteOptions.Prefix %q: a path such as /app, starting with / and not ending in one", p))
	} else if p != "" {
		s.prefixLinks = []string{"<" + p + IndexPath + `>; rel="affordances-index"`, "<" + p + aal.ManifestPath + `>; rel="agent-affordances"`}
	}
	s.llmsLink = "<" + s.full(LLMsTxtPath) + `>; rel="alternate"; type="text/markdown"`
	if s.opts.Auth == nil && s.opts.Authenticate != nil {
		s.opts.Auth = []AuthMethod{AuthCookie, AuthBearer}
	}
	if s.opts.Limit == (Limit{}) {
		s.opts.Limit = defaultLimit()
	}
	mustValidLimit(s.opts.Limit, "SiteOptions.Limit")
	switch {
	case s.opts.MaxBodyBytes == 0:
		s.opts.MaxBodyBytes = 1 << 20
	case s.opts.MaxBodyBytes < 0:
		panic(fmt.Sprintf("affordances: SiteOptions.MaxBodyBytes %d: a number of bytes, or 0 for 1 MiB", s.opts.MaxBodyBytes))
	}
	s.lang = newLanguages(s.opts.Languages)
	s.limiter = s.opts.RateLimiter
	if s.limiter == nil {
		s.limiter = store.NewMemoryRateLimiter(nil)
	}
	s.idem = s.opts.Idempotency
	if s.idem == nil {
		s.idem = store.NewMemoryIdempotency(nil)
	}
	s.appr = s.opts.Approvals
	if s.appr == nil {
		s.appr = store.NewMemoryApprovals(nil)
	}
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.Default()
	}
	return s
}

// mustDeclare panics, naming where, once the site is served: a
// declaration after [Site.Handler] would change the site under requests
// being served. The caller holds s.mu.
func (s *Site) mustDeclare(where string) {
	if s.frozen {
		panic(where + ": after Site.Handler: declare every route and action before the site is served")
	}
}

// full returns the path of the app's page at path on the wire: with
// [SiteOptions.Prefix] before it, when path is one of the site's.
func (s *Site) full(path string) string {
	if s.opts.Prefix == "" || !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") {
		return path
	}
	return s.opts.Prefix + path
}

// own returns the app's path of a path on the wire, [SiteOptions.Prefix]
// taken off, and whether it had it.
func (s *Site) own(path string) (string, bool) {
	if s.opts.Prefix == "" {
		return path, true
	}
	rest, ok := strings.CutPrefix(path, s.opts.Prefix)
	if !ok || !strings.HasPrefix(rest, "/") {
		return "", false
	}
	return rest, true
}
