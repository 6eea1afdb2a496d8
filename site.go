package affordances

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/weborigin"
	"github.com/affordances/affordances-go/store"
	"golang.org/x/text/language"
)

// SiteOptions configures a [Site]. The zero value of every field is a sound
// default; NewSite copies the struct, so changing it later has no effect.
type SiteOptions struct {
	// Name is the site's name in its index and its llms.txt.
	Name string

	// Description is one line on what the site is, for its llms.txt.
	Description string

	// Prefix is the path the pages live under ("/app") when [http.StripPrefix]
	// or a proxy takes it off: every path on the wire carries it, the app's
	// own (patterns, Nav, redirects) do not (docs/protocol.md decision 13). The site's
	// documents are served under it too (/app/.well-known/affordances.json),
	// where every page names them (its Link headers, its head's fragment,
	// llms.txt and WebMCP script), so that a proxy that forwards only the
	// prefix serves everything; route the origin's /.well-known/ and
	// /llms.txt to the Handler too, unstripped, where agents look first.
	Prefix string

	// Mux is the app's router, when middleware wraps it or it is not an
	// [http.ServeMux]: its more specific patterns take paths from routes.
	// Any router whose routes can be asked works, through a few lines that
	// return the pattern that would serve a request (ServeMux's, chi's or
	// gorilla/mux's syntax; "" for none): see ExampleSiteOptions_chi and
	// ExampleSiteOptions_gorilla. Nil: the handler the site wraps, when it
	// has this method.
	Mux interface {
		Handler(r *http.Request) (h http.Handler, pattern string)
	}

	// Origin is the site's origin ("https://shop.example"), the only Origin a
	// cookie call may carry (docs/protocol.md decision 4). Empty: derived from each
	// request's scheme and Host.
	Origin string

	// Authenticate says who is asking: the zero Principal for a request
	// without credentials, [ErrInvalidToken] (or another [*Error]) for
	// credentials it refuses. Any other error says it could not tell (its
	// database is down): internal (500), logged, so an agent keeps a good
	// token. Nil: everyone is anonymous.
	Authenticate func(*http.Request) (Principal, error)

	// Auth lists the ways of authenticating the index advertises. Nil: cookie
	// and bearer when Authenticate is set, none otherwise.
	Auth []AuthMethod

	// MCP is the path of the site's MCP endpoint, advertised in the index.
	MCP string

	// OAuth is the URL of the site's OAuth protected resource metadata
	// (RFC 9728) when it takes OAuth access tokens (docs/protocol.md decision 14):
	// the index names it, and a 401 or a refusal for want of scope points
	// to it. Empty: none.
	OAuth string

	// RateLimiter counts calls (docs/protocol.md §19, step 3). Nil: in memory; package
	// redisstore shares one budget between instances.
	RateLimiter store.RateLimiter

	// Limit is the default rate limit per principal (or client address, for
	// anonymous calls) and route. Zero: 60 calls a minute, burst 20.
	Limit Limit

	// Idempotency keeps the first answer of a call with an Idempotency-Key
	// for its retry (docs/protocol.md decision 10). Nil: in memory; package sqlstore
	// keeps it in the app's database, redisstore in Redis.
	Idempotency store.Idempotency

	// Approvals keeps the approvals of human-verified confirmation
	// (docs/protocol.md decision 10). Nil: in memory; as Idempotency otherwise.
	Approvals store.Approvals

	// VerifyConfirm makes every confirm action human-verified, as
	// [Action.Verify] makes one.
	VerifyConfirm bool

	// MaxBodyBytes bounds the body of a call or form; a larger one gets
	// invalid_input (413). Zero: 1 MiB; NewSite panics on a negative one.
	MaxBodyBytes int64

	// SignInReason is the reason an action needing a session shows an
	// anonymous requester. Empty: "Sign in to do this.", in their language.
	SignInReason string

	// Languages are the site's beside English for what the library writes
	// to a person, chosen by Accept-Language: each maps the library's
	// English messages (docs/messages.md) to its own; nil for French is the
	// library's French; one left out is said in English. NewSite panics on
	// a key the library does not write or a verb its key lacks.
	Languages map[language.Tag]map[string]string

	// Language returns the language the application says who reads, a
	// setting of its user's (docs/protocol.md decision 13), or language.Und when it
	// says none: the library's text is then in the one of Languages that
	// Accept-Language prefers, as it is when Language names one the site
	// does not have. who is the requester of r as Authenticate said,
	// anonymous when the site refused them before knowing (a bad token).
	// It is asked for each text the library writes a requester, so it
	// reads what who and r already carry. Nil: Accept-Language alone.
	Language func(r *http.Request, who Principal) language.Tag

	// SigningKey is the HMAC key of what the site signs for itself: the
	// cookie that carries a form's message to the next page. Several
	// instances of one site set the same on each. Nil: random for this
	// process, so a message one instance signed is not shown by another.
	SigningKey []byte

	// Logger receives unexpected failures (an action's panic or error). Nil:
	// [slog.Default].
	Logger *slog.Logger
}

// A Site is the publisher: routes, their state loaders and actions, served by
// [Site.Handler]. Declare routes and actions at start-up, before serving;
// once serving, a Site is safe for concurrent use.
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

// RouteOptions configures a [Route].
type RouteOptions struct {
	// Description is one line on what the page is for, shown in the index.
	Description string

	// State loads the page's state for one requester, for its graph, its
	// HTML ([Page.State]) and the reload after a call; a NotFound [*Error]
	// when the page does not exist, [ErrNotMine] when it is not the route's.
	State func(ctx context.Context, r *Request) (*State, error)

	// Flow places the route's pages in a multi-step task, in their AAL
	// fragments ("checkout", step 2 of 4).
	Flow *aal.Flow
}

// State is one load of a page's state.
type State struct {
	// Entities is the page's state, keyed by name. It must not hold anything
	// the HTML page would not show the same requester (docs/protocol.md §7).
	// Values are encoded with encoding/json.
	Entities map[string]any
	// Nav lists the links a person sees on the page.
	Nav []NavLink
	// MD is an optional Markdown rendering of the page.
	MD string
}

// Entity returns the entity name of st as a T: what a guard, a summary or
// a handler reads back of the state its loader made (a *board, a []task).
// T's zero value when st is nil or its entity is missing or of another type.
func Entity[T any](st *State, name string) T {
	var zero T
	if st == nil {
		return zero
	}
	v, ok := st.Entities[name].(T)
	if !ok {
		return zero
	}
	return v
}

// A Route is a page pattern of a [Site], such as "/products/[slug]", with its
// state loader and actions.
type Route struct {
	// entities are the entity keys the route's states have had, for the
	// check of Effects; kept only when an action declares Effects, until
	// every key an Effects names has been seen (effectsSeen).
	entities    sync.Map
	hasEffects  bool
	effectsSeen atomic.Bool
	site        *Site
	pattern     string    // the wire form, with [param] segments and SiteOptions.Prefix
	segments    []segment // none for "/"
	literals    int
	opts        RouteOptions
	actions     []*action
	byName      map[string]*action
	// lastAnonymous is the route's last anonymous graph, for its ETag.
	lastAnonymous lastGraph
}

// mustDeclare panics, naming where, once the site is served: a
// declaration after [Site.Handler] would change the site under requests
// being served. The caller holds s.mu.
func (s *Site) mustDeclare(where string) {
	if s.frozen {
		panic(where + ": after Site.Handler: declare every route and action before the site is served")
	}
}

// A segment is one segment of a route's pattern: a literal, a parameter
// matching one segment, or a catch-all matching the rest of the path.
type segment struct {
	literal string // "" for a parameter and for slash
	param   string
	rest    bool // a catch-all, always the last segment
	slash   bool // the empty segment after a trailing slash, always the last
}

// Route declares a page pattern in the syntax of [http.ServeMux], so that
// one string serves the mux and the site: literal segments, {name} for one
// segment, and last {name...} for one or more ([Request.Param] returns
// them); a pattern ending in / ("/me/posts/", "/{$}") is that page alone.
// The wire writes parameters as seed 000 does, /products/[slug], and Route
// takes that form too. Segments match unescaped; a literal wins over a
// parameter, a parameter over a catch-all, and the app's own ServeMux
// pattern over a less specific route ([Site.Handler], [ErrNotMine]).
//
// Route panics on a pattern it cannot serve (a method or host, a segment
// mixing text and a parameter), one another route has, and after
// [Site.Handler]. opts may be nil.
func (s *Site) Route(pattern string, opts *RouteOptions) *Route {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustDeclare(fmt.Sprintf("affordances: Route(%q)", pattern))
	segs, err := parsePattern(pattern)
	if n := len(segs); err == nil && n > 0 && segs[n-1].literal == "index" {
		page := strings.TrimSuffix(wirePattern(segs[:n-1]), "/") + "/"
		err = fmt.Errorf("its AAL fragment path would be the one of %s, %s", page, aal.FragmentPath(page))
	}
	if err != nil {
		panic(fmt.Sprintf("affordances: Route(%q): %v", pattern, err))
	}
	rt := &Route{site: s, pattern: s.opts.Prefix + wirePattern(segs), segments: segs, byName: map[string]*action{}}
	if opts != nil {
		rt.opts = *opts
	}
	for _, sg := range segs {
		if sg.literal != "" {
			rt.literals++
		}
	}
	for _, other := range s.routes {
		if other.shape() == rt.shape() {
			panic(fmt.Sprintf("affordances: Route(%q): matches the same paths as %q", pattern, other.pattern))
		}
	}
	s.routes = append(s.routes, rt)
	return rt
}

// shape is the pattern with parameter names erased: two routes of the same
// shape match the same paths.
func (rt *Route) shape() string {
	var b strings.Builder
	for _, sg := range rt.segments {
		b.WriteByte('/')
		switch {
		case sg.slash:
		case sg.rest:
			b.WriteString("[...]")
		case sg.literal == "":
			b.WriteString("[]")
		default:
			b.WriteString(sg.literal)
		}
	}
	return b.String()
}

// wirePattern writes segs as seed 000 does: /products/[slug].
func wirePattern(segs []segment) string {
	if len(segs) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, sg := range segs {
		b.WriteByte('/')
		switch {
		case sg.slash:
		case sg.rest:
			b.WriteString("[..." + sg.param + "]")
		case sg.literal == "":
			b.WriteString("[" + sg.param + "]")
		default:
			b.WriteString(sg.literal)
		}
	}
	return b.String()
}

var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func parsePattern(p string) ([]segment, error) {
	if strings.ContainsAny(p, " \t") || !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("a route is a path starting with /, without the method or host a mux pattern may have")
	}
	if p == "/" || p == "/{$}" {
		return nil, nil
	}
	parts := strings.Split(p[1:], "/")
	segs := make([]segment, 0, len(parts))
	seen := map[string]bool{}
	for i, part := range parts {
		var sg segment
		last := i == len(parts)-1
		switch {
		case (part == "" || part == "{$}") && last:
			segs = append(segs, segment{slash: true}) // "/a/" is "/a/{$}": that page alone
			continue
		case part == "":
			return nil, fmt.Errorf("empty segment: only the last may be, after a trailing slash")
		case part == "{$}":
			return nil, fmt.Errorf("{$} only ends a pattern that ends in /")
		case isBraced(part, '{', '}'):
			name, rest := strings.CutSuffix(part[1:len(part)-1], "...")
			sg = segment{param: name, rest: rest}
		case isBraced(part, '[', ']'):
			name, rest := strings.CutPrefix(part[1:len(part)-1], "...")
			sg = segment{param: name, rest: rest}
		case strings.ContainsAny(part, "{}[]"):
			return nil, fmt.Errorf("segment %q mixes a parameter with text: a segment is a literal or a whole {param}", part)
		default:
			lit, err := url.PathUnescape(part)
			if err != nil {
				return nil, fmt.Errorf("segment %q: %v", part, err)
			}
			sg = segment{literal: lit}
		}
		if sg.literal == "" {
			if !paramName.MatchString(sg.param) {
				return nil, fmt.Errorf("segment %q: a parameter's name is a Go identifier", part)
			}
			if seen[sg.param] {
				return nil, fmt.Errorf("parameter %q twice", sg.param)
			}
			seen[sg.param] = true
		}
		if sg.rest && !last {
			return nil, fmt.Errorf("segment %q: a catch-all parameter must be the last segment", part)
		}
		segs = append(segs, sg)
	}
	return segs, nil
}

func isBraced(s string, open, close byte) bool {
	return len(s) >= 2 && s[0] == open && s[len(s)-1] == close
}

// splitPath splits an escaped path into its segments, each unescaped, as
// [http.ServeMux] reads them: "/p/x%2Fy" is one segment "x/y", and a
// trailing slash ends the path with an empty one. It reports false for a
// path no route matches: not starting with /, an empty segment before the
// last, a bad escape.
func splitPath(escaped string) ([]string, bool) {
	if escaped == "/" {
		return nil, true
	}
	if !strings.HasPrefix(escaped, "/") {
		return nil, false
	}
	parts := strings.Split(escaped[1:], "/")
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil || (u == "" && i != len(parts)-1) {
			return nil, false
		}
		parts[i] = u
	}
	return parts, true
}

// match reports whether a path, split by splitPath, matches the route, and
// the parameters it binds.
func (rt *Route) match(parts []string) ([]param, bool) {
	if len(parts) == 0 || len(rt.segments) == 0 {
		return nil, len(parts) == len(rt.segments)
	}
	last := rt.segments[len(rt.segments)-1]
	if len(parts) != len(rt.segments) && !(last.rest && len(parts) > len(rt.segments)) {
		return nil, false
	}
	var params []param
	for i, sg := range rt.segments {
		switch {
		case sg.slash:
			if parts[i] != "" {
				return nil, false
			}
		case sg.rest:
			v := strings.Join(parts[i:], "/")
			if v == "" {
				return nil, false // a catch-all takes one segment at least
			}
			params = append(params, param{name: sg.param, value: v})
		case parts[i] == "":
			return nil, false // a trailing slash where the route has a segment
		case sg.literal == "":
			params = append(params, param{name: sg.param, value: parts[i]})
		case parts[i] != sg.literal:
			return nil, false
		}
	}
	return params, true
}

// rank orders the routes matching one path: more literal segments first,
// then a route without a catch-all.
func (rt *Route) rank() int {
	r := 2 * rt.literals
	if n := len(rt.segments); n == 0 || !rt.segments[n-1].rest {
		r++
	}
	return r
}

// route returns the route of r's page at the escaped path, as [Site.lookup]
// finds it, unless the app's mux ([SiteOptions.Mux], or next when it is
// one) has a more specific pattern for a GET of the page, as
// [http.ServeMux] ranks them: the app's "/login" beats a declared
// "/{post}", and the path is then the app's alone.
func (s *Site) route(r *http.Request, next http.Handler, escaped string) (*Route, []param) {
	rt, params := s.lookup(escaped)
	app := s.opts.Mux
	if app == nil {
		app, _ = next.(appMux)
	}
	if rt == nil || app == nil || rt.literalOnly() {
		return rt, params // no pattern outranks a route of literals alone
	}
	u := &url.URL{Path: escaped, RawPath: escaped}
	if p, err := url.PathUnescape(escaped); err == nil {
		u.Path = p
	}
	_, pattern := app.Handler(&http.Request{Method: http.MethodGet, Host: r.Host, URL: u, Header: http.Header{}})
	if rank, ok := muxRank(pattern); ok && rank > rt.rank() {
		return nil, nil
	}
	return rt, params
}

// literalOnly reports whether every segment of the route is a literal: no
// pattern of the same path ranks higher.
func (rt *Route) literalOnly() bool {
	for _, sg := range rt.segments {
		if sg.literal == "" && !sg.slash {
			return false
		}
	}
	return true
}

// muxRank ranks a ServeMux pattern as [Route.rank] ranks a route: its
// method and host left out, a trailing slash a catch-all unless {$} ends
// it. It reads chi's and gorilla/mux's too: a "*" is a catch-all, a
// {name:regexp} one segment (even one of gorilla's that matches a slash),
// a segment of text and wildcard ("{id}.json") between a literal and a
// wildcard. ok is false for no pattern ("": the mux matched nothing).
func muxRank(pattern string) (rank int, ok bool) {
	if i := strings.IndexByte(pattern, ' '); i >= 0 {
		pattern = strings.TrimLeft(pattern[i+1:], " \t")
	}
	i := strings.IndexByte(pattern, '/')
	if i < 0 {
		return 0, false
	}
	var parts []string // split at the slashes outside braces
	depth, start := 0, i+1
	for j := start; j <= len(pattern); j++ {
		switch {
		case j == len(pattern) || pattern[j] == '/' && depth == 0:
			parts = append(parts, pattern[start:j])
			start = j + 1
		case pattern[j] == '{':
			depth++
		case pattern[j] == '}' && depth > 0:
			depth--
		}
	}
	exact := true
	for j, part := range parts {
		wild := false // the whole part is one {…}, regexp braces and all
		for k, d := 0, 0; k < len(part) && part[0] == '{'; k++ {
			if part[k] == '{' {
				d++
			} else if part[k] == '}' {
				if d--; d == 0 {
					wild = k == len(part)-1
					break
				}
			}
		}
		switch {
		case part == "" && j == len(parts)-1:
			exact = false // "/a/": a/ and everything below it
		case part == "{$}": // the page ending in /, as a route's slash
		case part == "*" || wild && strings.HasSuffix(part, "...}"):
			exact = false
		case wild:
		case strings.HasSuffix(part, "*"): // chi's "/a*"
			exact = false
			rank++
		case strings.Contains(part, "{"): // "{id}.json"
			rank++
		default:
			rank += 2
		}
	}
	if exact {
		rank++
	}
	return rank, true
}

// lookup returns the most specific route matching the escaped path (a
// URL's EscapedPath), as [http.ServeMux] would match it.
func (s *Site) lookup(escaped string) (*Route, []param) {
	parts, ok := splitPath(escaped)
	if !ok {
		return nil, nil
	}
	var best *Route
	var bestParams []param
	for _, rt := range s.routes {
		if ps, ok := rt.match(parts); ok && (best == nil || rt.rank() > best.rank()) {
			best, bestParams = rt, ps
		}
	}
	return best, bestParams
}

// hasRoute reports whether a route matches the escaped path.
func (s *Site) hasRoute(escaped string) bool {
	rt, _ := s.lookup(escaped)
	return rt != nil
}

type param struct{ name, value string }

// A Principal is who is asking, and how they proved it.
type Principal struct {
	// ID identifies the requester: a user id, stable across sessions. Empty
	// means anonymous.
	ID string
	// Method is how the requester authenticated: [AuthCookie] or
	// [AuthBearer]. Empty for anonymous requesters; when ID is set and
	// Method is empty, the library fills it in from the request.
	Method AuthMethod
	// User is the application's own record of the requester, for its
	// loaders, guards and actions. The library never reads it.
	User any
	// Grant is what the person let an assistant do, for a requester with
	// an OAuth access token; nil for anyone else, who may do all their
	// account may.
	Grant *Grant
}

// Anonymous reports whether the principal is nobody in particular.
func (p Principal) Anonymous() bool { return p.ID == "" }

// A Request is one requester's view of one concrete page, handed to state
// loaders, guards and actions. It is not safe for concurrent use.
type Request struct {
	// HTTP is the underlying request, with the affordances=1 alias removed
	// from its query.
	HTTP *http.Request
	// Principal is who is asking.
	Principal Principal
	// Page is the concrete path ("/products/canvas-tote").
	Page string
	// State is the page's state as loaded for this request; nil inside the
	// state loader itself.
	State *State

	route  *Route
	params []param
	input  any
	next   http.Handler // the app's, in a call: what [Post] runs
	// consent is the digest of the state a person confirmed this call on
	// ([Action.Consent]), "" for none; consentKeys are its entities, and
	// consentChecked says the action called [Request.Consented].
	consent        string
	consentKeys    []string
	consentChecked bool

	// Set by actions.
	message   string
	redirect  string
	header    http.Header
	principal *Principal
	refused   error // the app's handler's, in a Post: [Request.Refuse]
}

// Param returns the value of the route parameter name, or "".
func (r *Request) Param(name string) string {
	for _, p := range r.params {
		if p.name == name {
			return p.value
		}
	}
	return ""
}

// SetMessage sets the delta's message: a short sentence to repeat to the
// user.
func (r *Request) SetMessage(msg string) { r.message = msg }

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

// SetRedirect sets the delta's redirect: the path a person would have been
// sent to after the action. A person's form is answered with a 303 to it.
func (r *Request) SetRedirect(path string) { r.redirect = path }

// SetCookie adds a Set-Cookie header to the response (a sign-in's session).
func (r *Request) SetCookie(c *http.Cookie) {
	if v := c.String(); v != "" {
		r.Header().Add("Set-Cookie", v)
	}
}

// Header returns the response's header map, for an action that sets a cookie
// or another header on its answer.
func (r *Request) Header() http.Header {
	if r.header == nil {
		r.header = http.Header{}
	}
	return r.header
}

// SetPrincipal says who the requester is after the action (a sign-in or
// sign-out action): the page's state is reloaded as p (docs/protocol.md decision 5).
func (r *Request) SetPrincipal(p Principal) { r.principal = &p }
