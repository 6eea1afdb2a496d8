package main

// What index, inspect and call share: their flags, the client they build,
// how they sort the client's errors into exit codes, and how they show a
// site's text and values to a person.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/display"
	"github.com/affordances/affordances-go/internal/tokens"
	"github.com/affordances/affordances-go/internal/weborigin"
)

// tokenEnv names the environment variable read for a bearer token when
// neither --token nor --cookie-jar is given.
const tokenEnv = "AFFORDANCES_TOKEN"

// exitCodesHelp ends the help of every command that talks to a site.
const exitCodesHelp = `Exit status:
  0  done
  1  the site answered an error delta (its code and message are printed)
  2  usage: a missing or extra argument, a bad flag, input that is not JSON
  3  the call needed a person's approval and did not get it (they said no,
     denied it on the site's approval page, or did not decide in time), or
     the gate refused it; nothing that could run was done
  4  network or protocol failure: the site could not be reached (why is
     printed), or the answer is not an Affordances document
  5  (call) pending: the site's approval page awaits the person's decision
     and the call did not wait; nothing was done yet, and the same call run
     again once they approve sends it`

// checkOnce is the client's ApprovalTimeout of a call that does not wait
// on the site's approval page: it checks the page once.
const checkOnce = time.Nanosecond

// authHelp explains --token and --cookie-jar, for the commands' help.
const authHelp = `Authentication: --token TOKEN sends a bearer token; without --token and
without --cookie-jar, $AFFORDANCES_TOKEN is used when set, else the site's
sign-in kept by "affordances login", sent to its origin alone and refreshed
as it expires. --cookie-jar FILE
reads a Netscape cookie file (the format of curl -c and curl -b) at start
and writes it back at the end, so a session started with curl, or with
"affordances call --cookie-jar FILE URL/login signIn ...", carries on;
with cookies every call sends the site's Origin, as a browser would.`

// agentFlags are the flags of the commands that talk to a site.
type agentFlags struct {
	json       bool
	token      string
	cookieJar  string
	grants     grantList
	unattended bool
	// approvalTimeout bounds the wait on a site's approval page (call's
	// --approval-timeout); zero: until the approval expires.
	approvalTimeout time.Duration
	// profile is the person's Chromium profile directory for a page
	// without a graph (call's --browser-profile); "": a fresh one.
	profile string
}

// declare adds the flags to fs; withGate adds --grant and --unattended.
func (f *agentFlags) declare(fs *flag.FlagSet, withGate bool) {
	fs.BoolVar(&f.json, "json", false, "print JSON for machines instead of text for people")
	fs.StringVar(&f.token, "token", "", "bearer `token` (default: $"+tokenEnv+", unless --cookie-jar is given)")
	fs.StringVar(&f.cookieJar, "cookie-jar", "", "Netscape cookie `file` (curl's format) to read at start and write back at the end")
	if withGate {
		fs.Var(&f.grants, "grant", "a standing `grant` of the person's, CLASS[:CAP][@ORIGIN][,until=TIME] (aal.ParseGrant),\nsuch as financial:50USD; without @ORIGIN it is for the URL's origin; repeatable")
		fs.BoolVar(&f.unattended, "unattended", false, "no person can be asked: what would need approval is refused")
	}
}

// grantList is a repeatable --grant.
type grantList []string

func (g *grantList) String() string     { return strings.Join(*g, " ") }
func (g *grantList) Set(s string) error { *g = append(*g, s); return nil }

// A site is a client for the site a command's URL names, and the page
// path (with its query) the URL points to.
type site struct {
	client *agent.Client
	path   string
	jar    *cookieFile // nil without --cookie-jar
	// url is the page's URL as given; origin its origin; hc the HTTP
	// client (with the cookie file as its Jar) and gate the person's gate,
	// for a page without a graph (aalcli.go).
	url    string
	origin string
	hc     *http.Client
	gate   *aal.Gate
	// signin sends the person's kept sign-in to the site (affordances
	// login); nil when a token or cookies were given, or none is kept.
	signin *tokens.Transport
	e      *env
}

// open checks the URL, the grants and the cookie file, and builds the
// client, with ap as its approver when ap is not nil. Mistakes are usage
// errors.
func (f *agentFlags) open(e *env, rawURL string, ap *approval) (*site, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("%q is not an http(s) URL; write it as http://127.0.0.1:8080/path", rawURL)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	opts := &agent.Options{Token: f.token, ApprovalTimeout: f.approvalTimeout}
	if ap != nil {
		opts.Approver, opts.OnApprovalWait = ap, ap.waiting
		if !ap.wait {
			opts.ApprovalTimeout = checkOnce
		}
	}
	if opts.Token == "" && f.cookieJar == "" {
		opts.Token = e.getenv(tokenEnv)
	}
	s := &site{path: path, e: e}
	hc := &http.Client{Timeout: 30 * time.Second}
	if opts.Token == "" && f.cookieJar == "" {
		origin, _ := weborigin.Of(rawURL)
		if s.signin, err = keptSignIn(e, origin, nil); err != nil {
			return nil, err
		}
		if s.signin != nil {
			hc.Transport = s.signin // the site's token, sent to its origin alone
		}
	}
	if f.cookieJar != "" {
		if s.jar, err = loadCookieFile(f.cookieJar); err != nil {
			return nil, usagef("--cookie-jar: %v", err)
		}
		hc.Jar = s.jar
	}
	origin := u.Scheme + "://" + u.Host
	gate := &aal.Gate{Unattended: f.unattended}
	for _, text := range f.grants {
		g, err := aal.ParseGrant(text)
		if err != nil {
			return nil, usagef("--grant: %v", err)
		}
		if g.Origin == "" {
			g.Origin = origin // docs/protocol.md decision 8: a grant is for one site
		}
		gate.Grants = append(gate.Grants, g)
	}
	opts.Gate = gate
	if s.client, err = agent.New(hc, u.Scheme+"://"+u.Host+u.EscapedPath(), opts); err != nil { // a page of a site under a prefix names its documents
		return nil, usagef("%v", err)
	}
	s.url, s.origin, s.hc, s.gate = rawURL, s.client.Origin(), aalpage.WithToken(hc, s.client.Origin(), opts.Token), gate
	return s, nil
}

// close writes the cookie file back, and says when the kept sign-in
// ended. It keeps err, the command's own outcome, when there is one.
func (s *site) close(err error) error {
	if s != nil && s.signin != nil {
		if ended := s.signin.Ended(); ended != nil {
			fmt.Fprintf(s.e.stderr, "affordances: %v\n", ended)
		}
	}
	if s == nil || s.jar == nil {
		return err
	}
	if werr := s.jar.save(); werr != nil && err == nil {
		return fmt.Errorf("--cookie-jar: %w", werr)
	}
	return err
}

// keptSignIn returns the transport that sends the person's kept sign-in
// to origin (affordances login) over base, and nothing to any other
// origin; nil when they did not sign in to it.
func keptSignIn(e *env, origin string, base http.RoundTripper) (*tokens.Transport, error) {
	file, err := tokenFile(e)
	if err != nil {
		return nil, nil // no configuration directory: nothing was kept
	}
	s, err := file.Get(origin)
	if err != nil || s == nil {
		return nil, err
	}
	return tokens.NewTransport(file, origin, s, base), nil
}

// keptToken returns the access token of the person's kept sign-in to
// rawURL's origin, refreshed first when it has expired, for the commands
// that take a token as it is (lint, conform); "" when none is kept, or
// when refreshing it failed, which it says on stderr.
func keptToken(ctx context.Context, e *env, rawURL string) (string, error) {
	origin, err := weborigin.Of(rawURL)
	if err != nil {
		return "", nil
	}
	tr, err := keptSignIn(e, origin, nil)
	if err != nil || tr == nil {
		return "", err
	}
	tok, err := tr.Token(ctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "affordances: %v\n", err)
		return "", nil
	}
	return tok, nil
}

// siteError sorts an error of the client: an error delta the site answered
// (exit 1) and the client's approval errors (exit 3) come back as they are;
// anything else is a network or protocol failure (exit 4).
func siteError(err error) error {
	var de *affordances.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de), errors.Is(err, agent.ErrNotApproved), errors.Is(err, agent.ErrRefused):
		return err
	}
	return &networkError{err}
}

// reportSiteError prints an error delta the site answered, as JSON on
// stdout with --json, else on stderr, and returns errFailed. Other errors
// it returns sorted by [siteError].
func reportSiteError(e *env, asJSON bool, err error) error {
	err = siteError(err)
	var de *affordances.Error
	if !errors.As(err, &de) {
		return err
	}
	if asJSON {
		if werr := writeJSON(e.stdout, &affordances.Delta{Error: de}); werr != nil {
			return werr
		}
		return errFailed
	}
	fmt.Fprintf(e.stderr, "error %s: %s\n", aal.Visible(string(de.Code)), aal.Visible(de.Message))
	for _, is := range de.Issues {
		fmt.Fprintf(e.stderr, "  %s: %s\n", pointer(is.Path), aal.Visible(is.Message))
	}
	return errFailed
}

func pointer(p string) string {
	if p == "" {
		return `""`
	}
	return aal.Visible(p)
}

// writeJSON writes v indented, with every character a person could not
// see escaped as \uXXXX (see [display.JSON]).
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, display.EscapeHidden(b.String()))
	return err
}

// width is where long lines of values are cut.
const width = 100

// cut shortens s to n characters, the last one an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// writeValue writes one entity (or any JSON value) for a person: a scalar
// inline; an array as "N items", inline when it is short and of scalars,
// else with its first rows as one-line JSON; an object inline when it fits
// the width, else one line per key. Long lines are cut at the width.
func writeValue(w io.Writer, indent, key string, v any, depth int) {
	head := indent + aal.Visible(key) + ": "
	switch v := v.(type) {
	case []any:
		n := plural(len(v), "item")
		if len(v) == 0 || (scalars(v) && len(head)+len(n)+1+len(display.JSON(v)) <= width) {
			if len(v) > 0 {
				n += " " + display.JSON(v)
			}
			fmt.Fprintln(w, head+n)
			return
		}
		fmt.Fprintln(w, head+n)
		const rows = 3
		for _, row := range v[:min(rows, len(v))] {
			fmt.Fprintln(w, cut(indent+"  - "+display.JSON(row), width))
		}
		if len(v) > rows {
			fmt.Fprintf(w, "%s  … %d more\n", indent, len(v)-rows)
		}
	case map[string]any:
		line := head + display.JSON(v)
		if utf8.RuneCountInString(line) <= width || depth >= 2 || len(v) == 0 {
			fmt.Fprintln(w, cut(line, width))
			return
		}
		fmt.Fprintln(w, strings.TrimSuffix(head, " "))
		for _, k := range sortedKeys(v) {
			writeValue(w, indent+"  ", k, v[k], depth+1)
		}
	default:
		fmt.Fprintln(w, cut(head+display.JSON(v), width))
	}
}

func scalars(vs []any) bool {
	for _, v := range vs {
		switch v.(type) {
		case []any, map[string]any:
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// costText writes a cost for a person: "USD 36.00", in the currency's
// minor units, never rounded; the currency is the site's text.
func costText(c *aal.Cost) string { return aal.Visible(c.String()) }

// classText lists classes: "destructive, financial, confirm".
func classText(cs []aal.Class) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

// decisionText is a gate's decision as help and output spell it.
func decisionText(d aal.Decision) string {
	switch d {
	case aal.Allow:
		return "Allow"
	case aal.Ask:
		return "Ask"
	case aal.Refuse:
		return "Refuse"
	}
	return aal.Visible(string(d))
}

// A verdictJSON is an [aal.Verdict] as --json prints it.
type verdictJSON struct {
	Decision  aal.Decision `json:"decision"`
	Classes   []aal.Class  `json:"classes"`
	Uncovered []aal.Class  `json:"uncovered,omitempty"`
	Amount    *aal.Cost    `json:"amount,omitempty"`
	Reasons   []string     `json:"reasons,omitempty"`
}

func toVerdictJSON(v aal.Verdict) verdictJSON {
	classes := v.Classes
	if classes == nil {
		classes = []aal.Class{}
	}
	return verdictJSON{Decision: v.Decision, Classes: classes, Uncovered: v.Uncovered, Amount: v.Amount, Reasons: v.Reasons}
}

// loadPage loads the page a site's URL names.
func (s *site) loadPage(ctx context.Context) (*agent.Page, error) {
	return s.client.Page(ctx, s.path)
}
