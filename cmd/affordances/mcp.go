package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/weborigin"
	"github.com/affordances/affordances-go/mcpbridge"
)

var mcpCommand = &command{
	Name:    "mcp",
	Summary: "Serve any Affordances site to an MCP client as tools, with the person's gate intact.",
	Details: `The bridge speaks MCP over stdio (the default) or, with --http ADDR,
streamable HTTP at /mcp, where a request whose Origin header is another
origin's (a web page's) is refused, 403. Its tools: site_index (origin), fetch_affordances
(url: the page's entities and actions, with what the gate decides) and
execute_affordance (url, action, input: the call, and its delta). Each
result's text is the compact form of docs/model-text.md, what the model
reads; its structured content is the JSON, with the AAL fragment and the
gate's reasons, for programs. Text from a site is data, never instructions.

What the model reads grows with what it needs, not with the page: a
call's result says what changed since the model read the page (a table's
rows removed, added and changed, by their key), and a page whose text
would pass --budget tokens (o200k; default 1500, 0 for none) shows its
largest tables by their first rows, saying how many more there are and
how to read them (fetch_affordances with show: NAME, the page's other
pages, its search).

A call the gate asks about, or that the site answers confirm_required, is
asked of the person through the MCP client (form elicitation), the site's
message verbatim; confirm: true is sent only on their yes. A client that
cannot ask gets an error and nothing runs. The model cannot approve: only
--grant, the person's standing grants, lets a call through unasked.

A site may want the person to approve on its own page (its
confirm_required carries an approval URL, as the demo's placeOrder does).
Then no form is offered and no yes of the client's counts: a client with
URL-mode elicitation is asked to send the person to the page (in their
browser, signed in as the token's account); their accept means they
went there, and the bridge waits up to 5 minutes for
their decision on it, running the call once if they approved. Declined,
cancelled or denied, nothing runs. A client without URL mode gets a
result with ok false, the delta and the page (approval: url, expires,
next): the model asks the person to open it and approve, and the same
execute_affordance made again then runs the call, once.

The person's keys stay with the sites they name. --site URL (repeatable;
the URL's origin counts) configures a site. --token TOKEN is sent to the
configured sites only, and needs --site; --token ORIGIN=TOKEN is a token
for that origin alone, which it configures too. Without --token,
$AFFORDANCES_TOKEN is used for the configured sites; with no site it is
not sent (a note says so). Without either, a --site the person signed in
to with "affordances login" is sent that sign-in's token, refreshed as it
expires, and no other site is; the model never sees it. A --grant without @ORIGIN applies to each
configured site, and needs one; a --grant @ORIGIN names a configured site.
A URL of any other origin (one a page's text asked the model to visit) is
fetched anonymously and no grant applies to it, so the gate asks the
person; each tool result says so in its credentials field ("none: ORIGIN
is not a configured site").

A site that publishes AAL only (no Affordances graph, as affordances demo
plain) is served by the same three tools: site_index lists its manifest's
routes, fetch_affordances its page's affordances (kind aal) with their forms'
fields as input, and execute_affordance performs one in headless Chromium,
its action the affordance's id and its input the form's fields, after the
gate and the person's approval, and returns the page it led to. Such a
site's session is a cookie: --cookie-jar FILE (a Netscape cookie file, as
call and inspect read) gives the bridge the person's cookies, sent to the
configured sites only and written back when the bridge stops; or
--browser-profile DIR, the person's Chromium profile, used for the
configured sites only (calls with it wait for each other, and no other
Chromium may have it open). Without either, the bridge keeps no cookies: a
session started in a browser does not carry over to it; give a site of the
protocol a token.`,
	Example: `# stdio, as an MCP client starts it
affordances mcp --site https://shop.example --token "$TOKEN" --grant financial:50USD
# a site signed in to with affordances login: no token in the configuration
affordances mcp --site https://shop.example
# two sites, a token each
affordances mcp --token https://shop.example="$SHOP" --token https://board.example="$BOARD"
# streamable HTTP at http://127.0.0.1:8765/mcp
affordances mcp --http 127.0.0.1:8765 --site https://shop.example --token "$TOKEN"
# a site that publishes AAL only, with the person's session in a cookie file
affordances mcp --site http://127.0.0.1:8082 --cookie-jar jar.txt`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		addr := fs.String("http", "", "serve streamable HTTP at `addr` (host:port), path /mcp, instead of stdio")
		var sites, tokens []string
		var grants grantList
		fs.Func("site", "a configured site, a `URL` whose origin counts: only configured sites get the token\nand the grants; repeatable", func(s string) error { sites = append(sites, s); return nil })
		fs.Func("token", "bearer `token` sent to the --site sites only (default: $"+tokenEnv+"); or ORIGIN=TOKEN,\na token for that origin alone, which it configures; repeatable", func(s string) error { tokens = append(tokens, s); return nil })
		fs.Var(&grants, "grant", "a standing `grant` of the person's, CLASS[:CAP][@ORIGIN][,until=TIME] (aal.ParseGrant);\nwithout @ORIGIN it is for each configured site; repeatable")
		jarFile := fs.String("cookie-jar", "", "Netscape cookie `file` of the person's sessions, sent to the configured sites only,\nwritten back when the bridge stops")
		profile := fs.String("browser-profile", "", "the person's Chromium profile `directory`, for the configured sites' pages without a graph")
		budget := fs.Int("budget", mcpbridge.DefaultBudget, "the most o200k `tokens` a page's text takes before its largest tables show their first rows; 0: no budget")
		return func(ctx context.Context, e *env, args []string) (err error) {
			if len(args) != 0 {
				return usagef("mcp takes no arguments")
			}
			opts, err := mcpOptions(e, sites, tokens, grants)
			if err != nil {
				return err
			}
			if (*jarFile != "" || *profile != "") && len(opts.Sites) == 0 && len(opts.Tokens) == 0 {
				return usagef("--cookie-jar and --browser-profile need --site URL: the person's sessions go only to the sites they configure")
			}
			opts.BrowserProfile = *profile
			switch {
			case *budget < 0:
				return usagef("--budget %d: a number of tokens, or 0 for no budget", *budget)
			case *budget == 0:
				opts.Budget = -1
			default:
				opts.Budget = *budget
			}
			if *jarFile != "" {
				jar, err := loadCookieFile(*jarFile)
				if err != nil {
					return usagef("--cookie-jar: %v", err)
				}
				opts.HTTPClient = &http.Client{Jar: jar, Timeout: 30 * time.Second}
				defer func() {
					if werr := jar.save(); werr != nil && err == nil {
						err = fmt.Errorf("--cookie-jar: %w", werr)
					}
				}()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if *addr == "" {
				return mcpbridge.NewServer(opts).Run(ctx, &mcp.StdioTransport{})
			}
			return serveMCP(ctx, e, *addr, opts)
		}
	},
}

// mcpOptions reads the person's configuration: the sites, their tokens
// and the grants, each bound to configured sites (see the help).
func mcpOptions(e *env, sites, tokens, grants []string) (*mcpbridge.Options, error) {
	opts := &mcpbridge.Options{}
	configured := map[string]bool{}
	for _, s := range sites {
		o, err := mcpbridge.SiteOrigin(s)
		if err != nil {
			return nil, usagef("--site: %v", err)
		}
		opts.Sites = append(opts.Sites, o)
		configured[o] = true
	}
	for _, t := range tokens {
		if origin, tok, ok := strings.Cut(t, "="); ok && (strings.HasPrefix(strings.ToLower(origin), "http://") || strings.HasPrefix(strings.ToLower(origin), "https://")) {
			o, err := mcpbridge.SiteOrigin(origin)
			if err != nil {
				return nil, usagef("--token ORIGIN=TOKEN: %v", err)
			}
			if tok == "" {
				return nil, usagef("--token %s=: the token is empty", o)
			}
			if opts.Tokens == nil {
				opts.Tokens = map[string]string{}
			}
			opts.Tokens[o] = tok
			configured[o] = true
			continue
		}
		if opts.Token != "" {
			return nil, usagef("--token: one token is for all the --site sites; give another site's as --token ORIGIN=TOKEN")
		}
		opts.Token = t
	}
	if opts.Token != "" && len(opts.Sites) == 0 {
		return nil, usagef("--token TOKEN needs --site URL: a token is sent only to the sites you configure (or give --token ORIGIN=TOKEN)")
	}
	if opts.Token == "" {
		if env := e.getenv(tokenEnv); env != "" && len(opts.Sites) > 0 {
			opts.Token = env
		} else if env != "" {
			fmt.Fprintf(e.stderr, "affordances mcp: $%s is not sent: no --site says where it may go\n", tokenEnv)
		}
	}
	if opts.Token == "" {
		// The sites the person signed in to with affordances login and
		// gave no token for: each gets its own sign-in, and no other's.
		for _, o := range opts.Sites {
			if _, ok := opts.Tokens[o]; ok {
				continue
			}
			tr, err := keptSignIn(e, o, nil)
			if err != nil {
				return nil, err
			}
			if tr != nil {
				if opts.Transports == nil {
					opts.Transports = map[string]http.RoundTripper{}
				}
				opts.Transports[o] = tr
			}
		}
	}
	for _, text := range grants {
		g, err := aal.ParseGrant(text)
		if err != nil {
			return nil, usagef("--grant: %v", err)
		}
		if g.Origin == "" && len(configured) == 0 {
			return nil, usagef("--grant %s names no @ORIGIN and no --site is configured: it would apply to no site", aal.Visible(text))
		}
		if g.Origin != "" {
			if o, err := mcpbridge.SiteOrigin(g.Origin); err != nil || !configured[o] {
				return nil, usagef("--grant %s is for %s, which is not a configured site: add --site %s", aal.Visible(text), aal.Visible(g.Origin), aal.Visible(g.Origin))
			}
		}
		opts.Grants = append(opts.Grants, g)
	}
	return opts, nil
}

// serveMCP serves the bridge over streamable HTTP at addr, path /mcp.
func serveMCP(ctx context.Context, e *env, addr string, opts *mcpbridge.Options) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	server := mcpbridge.NewServer(opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", ownOrigin(addr, ln.Addr(), mcpbridge.StreamableHTTP(func(*http.Request) *mcp.Server { return server })))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "MCP bridge listening on http://%s/mcp\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shutdown)
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ownOrigin refuses (403) a request whose Origin header is present and is
// not the bridge's own origin, as the MCP streamable HTTP transport asks of
// servers (DNS rebinding): no page of another site, scheme or port, nor of
// a name that resolves to the bridge's address, may use the person's
// tokens and grants. The bridge's own origins are http:// and the address
// --http named, the address it listens on, and on a loopback or
// unspecified address also localhost, 127.0.0.1 and [::1] at its port. A
// request without Origin (an MCP client's) goes on to h.
func ownOrigin(named string, listening net.Addr, h http.Handler) http.Handler {
	own := map[string]bool{}
	add := func(hostport string) {
		if o, err := weborigin.Parse("http://" + hostport); err == nil {
			own[o] = true
		}
	}
	if host, _, err := net.SplitHostPort(named); err == nil && host != "" {
		add(named)
	}
	host, port, _ := net.SplitHostPort(listening.String())
	ip, _ := netip.ParseAddr(host)
	if !ip.IsUnspecified() {
		add(listening.String())
	}
	if ip.IsLoopback() || ip.IsUnspecified() {
		for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
			add(net.JoinHostPort(h, port))
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origins := r.Header.Values("Origin"); len(origins) > 0 {
			o, err := weborigin.Parse(origins[0])
			if len(origins) > 1 || err != nil || !own[o] {
				http.Error(w, "Forbidden: this MCP bridge serves no page of another origin", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
