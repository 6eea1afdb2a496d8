package main

// login and logout: the command line signs in to a site as a native app
// (RFC 8252) and keeps the tokens per origin (internal/tokens), which
// every command that reaches the site then sends to it alone.

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/internal/tokens"
	"github.com/affordances/affordances-go/internal/weborigin"
)

// resourceMetadataPath is where a site serves its protected resource
// metadata (RFC 9728) when its index does not say.
const resourceMetadataPath = "/.well-known/oauth-protected-resource"

// tokenFileHelp says where sign-ins are kept, for the commands' help.
const tokenFileHelp = `Sign-ins are kept in tokens.json under your configuration directory
(~/.config/affordances/tokens.json on Linux, ~/Library/Application
Support/affordances/tokens.json on macOS, %AppData%\affordances\tokens.json
on Windows), a file only you can read (0600, in a directory 0700), or in
the file $` + tokens.FileEnv + ` names. No token is ever printed.`

var loginCommand = &command{
	Name:    "login",
	Args:    "URL",
	Summary: "Sign in to a site with OAuth in your browser, and keep its tokens for the other commands.",
	Details: `login finds the site's authorization server (the oauth field of its site
index, or its protected resource metadata at
ORIGIN/.well-known/oauth-protected-resource, then the server's metadata),
registers this command line with it as a native app whose redirect is a
loopback address (http://127.0.0.1:PORT/callback, on a port it listens on
until you answer), and opens your browser at the site's consent page, with
PKCE (S256) and the site's origin as the resource. There you sign in with
the site's own sign-in and choose what the command line may do. The
browser is sent back to the loopback address; login checks the answer's
state and issuer, exchanges the code for tokens and prints what you
granted and when the access token expires. Without a browser it prints
the URL to open.

Afterwards index, inspect, call, lint, conform and mcp --site use the
site's access token when no --token (nor $AFFORDANCES_TOKEN, nor
--cookie-jar) is given, and send it to that origin alone, never to a URL
of another origin. It is refreshed when it expires or when the site
answers 401, and the new refresh token (the site changes it at each use)
is kept. When refreshing fails, the command says to run login again.
Signing in again replaces the site's tokens, and revokes the grant they
were of. The tokens never reach a
model: mcp sends them itself.

` + tokenFileHelp + `

Exit status:
  0  signed in; the tokens are kept
  1  the tokens could not be written
  2  usage: not one http(s) URL, a bad flag
  3  you did not allow it on the consent page, or did not answer in time
  4  network or protocol failure: the site or its authorization server could
     not be reached, publishes no OAuth metadata, or answered something
     wrong (a state or issuer that is not this sign-in's); nothing is kept`,
	Example: `affordances login http://127.0.0.1:8080
affordances login --no-browser https://shop.example   # prints the URL to open
affordances call http://127.0.0.1:8080/products/canvas-tote addToCart '{"sku":"TOTE-NAT"}'`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		noBrowser := fs.Bool("no-browser", false, "do not open a browser: print the URL to open, and wait")
		timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait for your answer in the browser")
		scope := fs.String("scope", "", "the `scopes` to ask for, space-separated (the site's trust classes: safe user personal\nfinancial admin); default: none named, so the consent page offers them all")
		return func(ctx context.Context, e *env, args []string) error {
			origin, file, err := signInArgs("login", e, args)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			l := &login{e: e, origin: origin, noBrowser: *noBrowser, timeout: *timeout, scopes: strings.Fields(*scope),
				hc: &http.Client{Timeout: 30 * time.Second}}
			s, err := l.run(ctx)
			if err != nil {
				return err
			}
			old, err := file.Get(origin)
			if err != nil {
				return err
			}
			if err := file.Put(origin, s); err != nil {
				return err
			}
			if old != nil && old.RefreshToken != "" {
				revoke(ctx, l.hc, old) // the grant this sign-in replaces; it may be gone already
			}
			fmt.Fprintf(e.stdout, "Signed in to %s.\n", origin)
			granted := aal.Visible(s.Scope) // the site's words: no terminal escape of its own
			if granted == "" {
				granted = "(the site did not say)"
			}
			fmt.Fprintf(e.stdout, "Granted: %s\n", granted)
			if !s.Expiry.IsZero() {
				fmt.Fprintf(e.stdout, "The access token expires at %s (in %s); it is refreshed as it expires, until the grant ends.\n",
					s.Expiry.Local().Format("15:04:05 MST, 2 January 2006"), time.Until(s.Expiry).Round(time.Second))
			}
			fmt.Fprintf(e.stdout, "Kept in %s. Sign out with: affordances logout %s\n", file.Path, origin)
			return nil
		}
	},
}

// signInArgs reads the one URL argument of login and logout, cmd: the
// site's origin, and the file of sign-ins.
func signInArgs(cmd string, e *env, args []string) (string, *tokens.File, error) {
	if len(args) != 1 {
		return "", nil, usagef("%s takes one URL, such as http://127.0.0.1:8080; got %d arguments", cmd, len(args))
	}
	origin, err := siteOriginArg(args[0])
	if err != nil {
		return "", nil, err
	}
	file, err := tokenFile(e)
	return origin, file, err
}

// siteOriginArg is the origin of a command's URL argument, or a usage
// error.
func siteOriginArg(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", usagef("%q is not an http(s) URL; write it as http://127.0.0.1:8080", raw)
	}
	o, err := weborigin.Of(raw)
	if err != nil {
		return "", usagef("%q: %v", raw, err)
	}
	return o, nil
}

// tokenFile is the file of sign-ins: $AFFORDANCES_TOKEN_FILE, else the
// default under the user's configuration directory.
func tokenFile(e *env) (*tokens.File, error) {
	if p := e.getenv(tokens.FileEnv); p != "" {
		return &tokens.File{Path: p}, nil
	}
	p, err := tokens.DefaultPath()
	if err != nil {
		return nil, err
	}
	return &tokens.File{Path: p}, nil
}

// A login is one run of the flow for one origin.
type login struct {
	e         *env
	origin    string
	noBrowser bool
	timeout   time.Duration
	scopes    []string
	hc        *http.Client
}

// A callback is what the browser brought back to the loopback address.
type callback struct {
	code, state, iss, err string
}

// run signs in and returns the sign-in to keep.
func (l *login) run(ctx context.Context) (*tokens.SignIn, error) {
	fmt.Fprintf(l.e.stderr, "Finding %s's authorization server…\n", l.origin)
	asm, err := l.discover(ctx)
	if err != nil {
		return nil, &networkError{err}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on a loopback port for the browser's answer: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://%s/callback", ln.Addr())
	reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
		RedirectURIs: []string{redirect}, ClientName: "affordances command line", ApplicationType: "native",
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: "none",
	}, l.hc)
	if err != nil {
		return nil, &networkError{fmt.Errorf("registering with %s: %w", asm.Issuer, err)}
	}
	cfg := &oauth2.Config{ClientID: reg.ClientID, RedirectURL: redirect, Scopes: l.scopes,
		Endpoint: oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams}}
	verifier, state := oauth2.GenerateVerifier(), rand.Text()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", l.origin))

	answers := make(chan callback, 1)
	srv := &http.Server{Handler: callbackHandler(l.origin, answers), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer func() {
		// Let the browser have its page (you may close this tab) before
		// the listener goes, whatever login does with the answer.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()

	opened := false
	if !l.noBrowser {
		if err := openBrowser(authURL); err == nil {
			opened = true
			fmt.Fprintf(l.e.stderr, "Your browser is open at %s's sign-in. If it is not, open this URL:\n\n  %s\n\n", l.origin, authURL)
		}
	}
	if !opened {
		fmt.Fprintf(l.e.stderr, "Open this URL in your browser to sign in to %s:\n\n  %s\n\n", l.origin, authURL)
	}
	fmt.Fprintf(l.e.stderr, "Waiting for your answer in the browser (up to %s; Ctrl-C stops)…\n", l.timeout)
	var cb callback
	select {
	case cb = <-answers:
	case <-time.After(l.timeout):
		fmt.Fprintf(l.e.stderr, "No answer from the browser in %s; nothing was kept.\n", l.timeout)
		return nil, errNotApproved
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped before the browser answered; nothing was kept")
	}
	switch {
	case cb.state != state:
		return nil, &networkError{errors.New("the browser came back with another sign-in's state: refused; nothing was kept")}
	case cb.iss != "" && cb.iss != asm.Issuer:
		// RFC 9207: an answer from another authorization server (a mix-up).
		return nil, &networkError{fmt.Errorf("the answer names the issuer %q, not %s's %q: refused; nothing was kept", cb.iss, l.origin, asm.Issuer)}
	case cb.iss == "" && asm.AuthorizationResponseIssParameterSupported:
		return nil, &networkError{fmt.Errorf("the answer names no issuer, which %s's authorization server promises (RFC 9207): refused; nothing was kept", l.origin)}
	case cb.err == "access_denied":
		fmt.Fprintln(l.e.stderr, "You did not allow it; nothing was kept.")
		return nil, errNotApproved
	case cb.err != "":
		return nil, &networkError{fmt.Errorf("the authorization server answered %s; nothing was kept", aal.Visible(cb.err))}
	case cb.code == "":
		return nil, &networkError{errors.New("the authorization server's answer has no code; nothing was kept")}
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, l.hc), cb.code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", l.origin))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			err = fmt.Errorf("the token endpoint refused the code: %s", tokens.Refusal(re))
		}
		return nil, &networkError{err}
	}
	s := &tokens.SignIn{Issuer: asm.Issuer, ClientID: reg.ClientID, TokenEndpoint: asm.TokenEndpoint,
		RevocationEndpoint: asm.RevocationEndpoint, Resource: l.origin, Created: time.Now().UTC()}
	tokens.Refreshed(s, tok)
	return s, nil
}

// discover finds the authorization server's metadata: from the protected
// resource metadata the site index names, or the one at the origin.
func (l *login) discover(ctx context.Context) (*oauthex.AuthServerMeta, error) {
	prmURL := l.origin + resourceMetadataPath
	if c, err := agent.New(l.hc, l.origin, nil); err == nil {
		if idx, err := c.Index(ctx); err == nil && idx.OAuth != "" {
			if u, err := url.Parse(l.origin + "/"); err == nil {
				if ref, err := u.Parse(idx.OAuth); err == nil {
					prmURL = ref.String()
				}
			}
		}
	}
	prm, err := oauthex.GetProtectedResourceMetadata(ctx, prmURL, l.origin, l.hc)
	if err != nil {
		return nil, fmt.Errorf("%s publishes no OAuth protected resource metadata for itself at %s: %v", l.origin, prmURL, err)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("%s's protected resource metadata names no authorization server", l.origin)
	}
	issuer := prm.AuthorizationServers[0]
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, l.hc)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the authorization server %s: %v", issuer, err)
	case asm == nil:
		return nil, fmt.Errorf("the authorization server %s publishes no metadata", issuer)
	case !slices.Contains(asm.CodeChallengeMethodsSupported, "S256"):
		return nil, fmt.Errorf("the authorization server %s does not take PKCE with S256", issuer)
	case asm.RegistrationEndpoint == "":
		return nil, fmt.Errorf("the authorization server %s takes no dynamic registration (RFC 7591), which login needs", issuer)
	case asm.AuthorizationEndpoint == "" || asm.TokenEndpoint == "":
		return nil, fmt.Errorf("the authorization server %s's metadata names no authorization or token endpoint", issuer)
	}
	return asm, nil
}

// callbackHandler answers the browser's redirect at /callback, sending
// its first answer on answers, and tells the person to go back to the
// terminal.
func callbackHandler(origin string, answers chan<- callback) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		cb := callback{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss"), err: q.Get("error")}
		select {
		case answers <- cb:
		default: // an answer came already
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		msg := "You may close this tab: the terminal says whether you are signed in to " + origin + "."
		callbackPage.Execute(w, msg)
	})
	return mux
}

var callbackPage = template.Must(template.New("callback").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>affordances login</title></head>
<body><p>{{.}}</p></body></html>
`))

// openBrowser opens u in the person's browser.
func openBrowser(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

// revoke revokes s's refresh token at its revocation endpoint (RFC 7009),
// which ends its grant; it returns why it could not.
func revoke(ctx context.Context, hc *http.Client, s *tokens.SignIn) error {
	if s.RevocationEndpoint == "" {
		return errors.New("its authorization server has no revocation endpoint")
	}
	form := url.Values{"token": {s.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {s.ClientID}}
	if s.RefreshToken == "" {
		form = url.Values{"token": {s.AccessToken}, "token_type_hint": {"access_token"}, "client_id": {s.ClientID}}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.RevocationEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("could not reach %s: %v", s.RevocationEndpoint, errors.Unwrap(err))
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", s.RevocationEndpoint, res.Status)
	}
	return nil
}
