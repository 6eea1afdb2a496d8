package mcpbridge

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/weborigin"
)

// A target is the site one tool call reaches, with what of the person's
// it may use.
type target struct {
	client *agent.Client
	// hc makes the requests: with the person's Jar for a configured site
	// only, and redirects followed within its origin.
	hc           *http.Client
	origin, path string
	// creds is what of the person's is sent (the tools' credentials
	// field); configured says the site is one the person configured.
	creds      string
	configured bool
	gate       *aal.Gate
}

// url is the URL of the target's page.
func (t *target) url() string { return t.origin + t.path }

// target builds the client for one call: the site raw names (an origin
// or a page URL; on a site's own endpoint, a path), the path in it, and
// what of the person's it sends (the tools' credentials field). Only a
// configured site gets a token, a grant or the cookies of the HTTP client.
func (b *bridge) target(req *mcp.CallToolRequest, raw string, a *approver) (*target, error) {
	origin, path, err := b.resolve(raw)
	if err != nil {
		return nil, err
	}
	hc := b.opts.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient
	}
	opts := &agent.Options{Gate: &aal.Gate{}, UserAgent: "affordances-go mcpbridge"}
	if a != nil {
		opts.Approver = a
		// The first time, the approval page is checked once; once the
		// person agreed to open it, the client waits for their decision.
		opts.ApprovalTimeout = checkOnce
		if a.answered {
			opts.ApprovalTimeout = b.opts.ApprovalTimeout
			if opts.ApprovalTimeout <= 0 {
				opts.ApprovalTimeout = defaultApprovalTimeout
			}
			opts.OnApprovalWait = a.progress
		}
	}
	token, configured := b.tokens[origin]
	if b.origin != "" {
		// A site's own endpoint: resolve admits its origin only.
		token, configured = b.opts.Token, true
		if req != nil && req.Extra != nil && req.Extra.Header != nil {
			if tok, ok := strings.CutPrefix(req.Extra.Header.Get("Authorization"), "Bearer "); ok && tok != "" {
				token = tok
			}
		}
	}
	if a != nil {
		a.configured = configured
	}
	if !configured {
		anon := *hc
		anon.Jar = nil
		c, err := agent.New(&anon, origin+path, opts) // the page: its Link headers name the documents of a site under a prefix
		if err != nil {
			return nil, err
		}
		return &target{client: c, hc: &anon, origin: origin, path: path, creds: credsNotConfigured, gate: opts.Gate}, nil
	}
	opts.Token = token
	signedIn := false
	if rt := b.transports[origin]; rt != nil && token == "" && b.origin == "" {
		c := *hc
		c.Transport, signedIn = rt, true
		hc = &c
	}
	hc = aalpage.WithToken(sameOriginRedirects(hc, origin), origin, token)
	for _, g := range b.opts.Grants {
		if g.Origin == "" {
			g.Origin = origin // a grant is for one site (docs/protocol.md decision 8)
		}
		opts.Gate.Grants = append(opts.Gate.Grants, g)
	}
	c, err := agent.New(hc, origin+path, opts)
	if err != nil {
		return nil, err
	}
	creds := "token: sent, a configured site"
	switch {
	case token != "":
	case signedIn:
		creds = "sign-in: the person's, a configured site"
	case hc.Jar != nil:
		creds = "cookies: the person's, a configured site"
	default:
		creds = "none: no token or cookies configured"
	}
	return &target{client: c, hc: hc, origin: origin, path: path, creds: creds, configured: true, gate: opts.Gate}, nil
}

// sameOriginRedirects returns a copy of hc that follows a redirect only
// within origin, so that neither the token (which net/http forwards to
// the same host on another port, and to subdomains) nor the Jar's cookies
// follow the site to an origin the person did not configure.
func sameOriginRedirects(hc *http.Client, origin string) *http.Client {
	c := *hc
	check := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if o, err := SiteOrigin(req.URL.String()); err != nil || !sameOrigin(o, origin) {
			return fmt.Errorf("mcpbridge: %s redirected to %s, another origin, which is not followed with the person's credentials", origin, aal.Visible(req.URL.Redacted()))
		}
		if check != nil {
			return check(req, via)
		}
		if len(via) >= 10 {
			return errors.New("mcpbridge: stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// resolve reads a tool's URL argument.
func (b *bridge) resolve(target string) (origin, path string, err error) {
	if b.origin != "" && strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "//") {
		return b.origin, target, nil
	}
	if b.origin != "" && target == "" {
		return b.origin, "/", nil
	}
	origin, err = SiteOrigin(target)
	if err != nil {
		return "", "", fmt.Errorf("mcpbridge: %q is not an http(s) URL such as https://shop.example/products", aal.Visible(target))
	}
	u, _ := url.Parse(target)
	if b.origin != "" && !sameOrigin(origin, b.origin) {
		return "", "", fmt.Errorf("mcpbridge: this endpoint serves %s only, not %s", b.origin, aal.Visible(origin))
	}
	if b.origin != "" {
		origin = b.origin
	}
	path = u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return origin, path, nil
}

// sameOrigin reports whether two URLs have one origin.
func sameOrigin(a, b string) bool {
	oa, errA := weborigin.Of(a)
	ob, errB := weborigin.Of(b)
	return errA == nil && errB == nil && oa == ob
}

// credsNotConfigured is the credentials of a call to a site the person
// did not configure: nothing of theirs is sent.
const credsNotConfigured = "none: not a configured site"
