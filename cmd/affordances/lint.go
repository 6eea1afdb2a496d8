package main

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
	"os"
	"slices"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/crawl"
	"github.com/affordances/affordances-go/internal/graphsize"
	"github.com/affordances/affordances-go/internal/htmlcheck"
	"github.com/affordances/affordances-go/internal/webmcp"
	"github.com/affordances/affordances-go/internal/wirecheck"
	"github.com/affordances/affordances-go/schemas"
)

var lintCommand = &command{
	Name:    "lint",
	Args:    "URL|FILE...",
	Summary: "Check AAL manifests and fragments, graphs and site indexes: files, or a whole site by URL.",
	Details: `A site is read as a signed-in account when given one, as an agent's and a
person's credentials, either or both: --token, the agent's bearer token, for
the graphs, the index and the AAL documents (default: $AFFORDANCES_TOKEN,
else the sign-in "affordances login" kept for each site); --cookie-jar, the person's
browser session (a cookie file, as curl -c writes it after signing in), for
the HTML pages, and for everything when no token is given. A page that asks
a reader without them to sign in (a redirect, or unauthorized) is no
problem: lint says what it needs ("needs --cookie-jar") and ends with one
line on how to give it.

Lint follows no redirect: a page that answers 3xx is named ("GET /unread
answered 303 to /login"), never read as the page it leads to.

A URL with a path is a page of the site, where the walk starts: when the
origin's /.well-known/ has no site index or manifest (a site under a path
prefix, behind a proxy that forwards only the prefix), lint reads those
the page names in its Link headers (rel="affordances-index",
rel="agent-affordances").

Lint GETs pages as a browser does, up to --max-pages: a site with side
effects on GET (a page that marks an entry read when viewed) sees them.
Every request says who sends it, so a site can leave it out of its
statistics: User-Agent: affordances-lint/VERSION
(+https://github.com/affordances/affordances-go).

Each problem is printed with where it is (file or URL) and a JSON Pointer,
or, for a document that is not JSON, the parse error and where it is
("at line 4, column 1 (byte 34)"). A note is information, not a problem,
and so is a skip, a document not read for want of credentials. A warning
is a should of the specs a document misses: a graph over about 2,000 o200k
tokens (docs/protocol.md §7), with the part that weighs most ("entity
'entries' is 6,900 of 7,670 tokens"), or a page with WebMCP tools whose
headers keep the browser from registering any (Origin-Agent-Cluster: ?0,
a Permissions-Policy that leaves the page out of tools); it leaves the
exit status alone.

A site that cannot be reached at all (nothing listens there, no such
host) is one error on stderr that says why, not a problem for each
document.

Exit status:
  0  no problems
  1  problems, or a document of the site could not be read
  2  usage: no URL or FILE, a bad flag, a FILE that cannot be read
  4  the site could not be reached`,
	Example: `# a file: an AAL manifest or fragment, a graph, a site index, a delta or a call
affordances lint fragment.json
# a site: its index and AAL manifest, then every page reachable from / through
# the graphs' nav, each with its graph, its fragment, and the fragment's
# selectors checked against the page's HTML
affordances lint http://127.0.0.1:8080
# as a signed-in user, machine-readable (or with $AFFORDANCES_TOKEN set)
affordances lint --token "$TOKEN" --json http://127.0.0.1:8080
# as her agent (the token) and in her browser (the session curl signed in)
curl -s -c jar.txt -d _action=signIn -d email=alice@example.com -d password=alice \
  -H 'Origin: http://127.0.0.1:8080' -o /dev/null http://127.0.0.1:8080/login
affordances lint --token "$TOKEN" --cookie-jar jar.txt --max-pages 20 http://127.0.0.1:8080
# a site that publishes AAL only (a manifest, fragments, no site index or
# graph, as affordances demo plain) is checked as AAL: its manifest, each
# page's fragment (inlined, linked, or named by the manifest) and its
# selectors against the page's HTML, the pages found through the HTML's
# links and the manifest's routes; that it has no graph is a note
affordances lint http://127.0.0.1:8082`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		token := fs.String("token", "", "bearer `token` of a signed-in user, the agent's: graphs, index, AAL documents (default: $"+tokenEnv+" when no --cookie-jar)")
		asJSON := fs.Bool("json", false, "print the findings as JSON")
		maxPages := fs.Int("max-pages", 100, "visit at most `n` pages of a site (each a GET, as a browser's)")
		jarFile := fs.String("cookie-jar", "", "Netscape cookie `file` (curl's format) of the same user's browser session, the person's: HTML pages; everything when no --token")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) == 0 {
				return usagef("name a URL or at least one FILE")
			}
			if *maxPages < 1 {
				return usagef("--max-pages must be at least 1")
			}
			if *token == "" && *jarFile == "" {
				*token = e.getenv(tokenEnv)
			}
			l := &linter{token: *token, maxPages: *maxPages, userAgent: userAgent("affordances-lint"),
				client: crawl.NoRedirects(&http.Client{Timeout: 20 * time.Second})}
			if *jarFile != "" {
				jar, err := loadCookieFile(*jarFile)
				if err != nil {
					return usagef("--cookie-jar: %v", err)
				}
				l.jar = jar // read only: lint never writes it back
			}
			for _, arg := range args {
				if strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
					if *token == "" && *jarFile == "" {
						// Each site's own sign-in, and no other's.
						var err error
						if l.token, err = keptToken(ctx, e, arg); err != nil {
							return err
						}
					}
					if err := l.site(ctx, arg); err != nil {
						return err
					}
				} else if err := l.file(arg); err != nil {
					return err
				}
			}
			return l.report(e, *asJSON)
		}
	},
}

// A finding is one problem lint found, or one document it checked clean.
type finding struct {
	Where   string `json:"where"`             // a file, or a URL
	Kind    string `json:"kind"`              // what the document is
	Pointer string `json:"pointer,omitempty"` // JSON Pointer into it
	Problem string `json:"problem,omitempty"` // empty: checked, clean
	// Warning is a should the document misses, not a problem: "the graph
	// passes about 2,000 o200k tokens: entity 'entries' is ...".
	Warning string `json:"warning,omitempty"`
	// Note is information, not a problem: "the site publishes no
	// Affordances site index and no graph".
	Note string `json:"note,omitempty"`
	// Needs names the credentials lint lacked to read the document, as
	// the command line does ("--cookie-jar", "--token or --cookie-jar");
	// Note then says what the site answered. Not a problem.
	Needs string `json:"needs,omitempty"`
}

type linter struct {
	token     string
	jar       *cookieFile // nil without --cookie-jar
	maxPages  int
	client    *http.Client // follows no redirect
	userAgent string
	creds     crawl.Credentials // of the site being linted
	findings  []finding
}

func (l *linter) clean(where, kind string) {
	l.findings = append(l.findings, finding{Where: where, Kind: kind})
}

func (l *linter) problem(where, kind, pointer, msg string) {
	l.findings = append(l.findings, finding{Where: where, Kind: kind, Pointer: pointer, Problem: msg})
}

func (l *linter) warn(where, kind, pointer, msg string) {
	l.findings = append(l.findings, finding{Where: where, Kind: kind, Pointer: pointer, Warning: msg})
}

func (l *linter) note(where, kind, msg string) {
	l.findings = append(l.findings, finding{Where: where, Kind: kind, Note: msg})
}

// needs records a document lint could not read without the credentials
// needs names: the site answered what says it.
func (l *linter) needs(where, kind, answered, needs string) {
	l.findings = append(l.findings, finding{Where: where, Kind: kind, Note: answered + ": needs " + needs, Needs: needs})
}

func (l *linter) report(e *env, asJSON bool) error {
	problems, warnings, docs := 0, 0, map[string]bool{}
	var needs []string
	for _, f := range l.findings {
		if f.Needs != "" {
			needs = append(needs, f.Needs)
		}
		if f.Warning != "" {
			warnings++
		}
		if f.Note != "" || f.Warning != "" {
			continue
		}
		docs[f.Where+" "+f.Kind] = true
		if f.Problem != "" {
			problems++
		}
	}
	if asJSON {
		out := struct {
			Documents int       `json:"documents"`
			Problems  int       `json:"problems"`
			Warnings  int       `json:"warnings,omitempty"`
			Findings  []finding `json:"findings"`
		}{len(docs), problems, warnings, l.findings}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		for _, f := range l.findings {
			if f.Needs != "" {
				fmt.Fprintf(e.stdout, "skip  %s (%s): %s\n", f.Where, f.Kind, f.Note)
				continue
			}
			if f.Note != "" {
				fmt.Fprintf(e.stdout, "note  %s (%s): %s\n", f.Where, f.Kind, f.Note)
				continue
			}
			if f.Problem == "" && f.Warning == "" {
				fmt.Fprintf(e.stdout, "ok    %s (%s)\n", f.Where, f.Kind)
				continue
			}
			ptr := f.Pointer
			if ptr == "" {
				ptr = `""`
			}
			if f.Warning != "" {
				fmt.Fprintf(e.stdout, "WARN  %s (%s) %s: %s\n", f.Where, f.Kind, ptr, f.Warning)
				continue
			}
			fmt.Fprintf(e.stdout, "FAIL  %s (%s) %s: %s\n", f.Where, f.Kind, ptr, f.Problem)
		}
		fmt.Fprintf(e.stdout, "%s checked, %s", plural(len(docs), "document"), plural(problems, "problem"))
		if warnings > 0 {
			fmt.Fprintf(e.stdout, ", %s", plural(warnings, "warning"))
		}
		fmt.Fprintln(e.stdout)
		if len(needs) > 0 {
			fmt.Fprintf(e.stdout, "%s not read without credentials: %s\n", plural(len(needs), "document"), credentialsHint(needs))
		}
	}
	if problems > 0 {
		return errFailed
	}
	return nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// file lints one file ("-" is standard input).
func (l *linter) file(path string) error {
	var doc []byte
	var err error
	if path == "-" {
		doc, err = io.ReadAll(os.Stdin)
	} else {
		doc, err = os.ReadFile(path)
	}
	if err != nil {
		return usagef("%v", err)
	}
	l.document(path, "", doc)
	return nil
}

// document validates doc as kind, or as whatever it looks like when kind
// is "".
func (l *linter) document(where, kind string, doc []byte) {
	if kind == "" {
		kind = sniff(doc)
	}
	switch kind {
	case "":
		msg := "not an AAL manifest or fragment, nor an Affordances graph, site index, delta or call"
		if why := notJSONObject(doc); why != "" {
			msg = why
		}
		l.problem(where, "unknown", "", msg)
		return
	case "manifest", "fragment":
		var problems []aal.Problem
		if kind == "manifest" {
			problems = aal.ValidateManifest(doc)
		} else {
			problems = aal.ValidateFragment(doc)
		}
		for _, p := range problems {
			l.problem(where, kind, p.Pointer, p.Message)
		}
		if len(problems) == 0 {
			l.clean(where, kind)
		}
		return
	}
	err := wirecheck.Validate(schemaOf[kind], doc)
	var ve *wirecheck.ValidationError
	switch {
	case errors.As(err, &ve):
		for _, p := range ve.Problems {
			l.problem(where, kind, p.Pointer, aal.Visible(p.Message)) // it may quote the site's text
		}
	case err != nil:
		l.problem(where, kind, "", err.Error())
	default:
		l.clean(where, kind)
	}
	if kind == "graph" {
		l.weigh(where, doc)
	}
}

// weigh warns when the graph doc passes about 2,000 o200k tokens
// (docs/protocol.md §12), naming its heaviest part, as conform's
// v0.size.tokens.
func (l *linter) weigh(where string, doc []byte) {
	w, err := graphsize.Weigh(doc)
	switch {
	case err != nil:
		l.note(where, "graph", "not weighed: "+err.Error())
	case w.Over():
		l.warn(where, "graph", w.Pointer, fmt.Sprintf("the graph passes about %s o200k tokens, a should of docs/protocol.md (§7, Graph): %s; page or summarize it, with nav to the rest",
			graphsize.Comma(graphsize.Ceiling), w))
	}
}

var schemaOf = map[string]string{"graph": schemas.Graph, "site index": schemas.SiteIndex, "delta": schemas.Delta, "call": schemas.Call}

// notJSONObject says why doc is not a JSON object, and where: "not JSON:
// invalid character '}' looking for beginning of object key string, at
// line 4, column 1 (byte 34)"; "" when it is one.
func notJSONObject(doc []byte) string {
	var top map[string]json.RawMessage
	err := json.Unmarshal(doc, &top)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil && top == nil:
		return "JSON, but null, not an object: a document of the protocol or of AAL is an object"
	case err == nil:
		return ""
	case len(bytes.TrimSpace(doc)) == 0:
		return "not JSON: the document is empty"
	case errors.As(err, &syntax):
		msg := strings.TrimPrefix(syntax.Error(), "json: ")
		if syntax.Offset >= int64(len(doc)) {
			return "not JSON: " + msg + ", at the end, " + position(doc, len(doc))
		}
		// Offset counts the bytes read, the offending one among them.
		return "not JSON: " + msg + ", at " + position(doc, int(syntax.Offset)-1)
	case errors.As(err, &typ):
		return "JSON, but a JSON " + typ.Value + ", not an object: a document of the protocol or of AAL is an object"
	}
	return "not JSON: " + err.Error()
}

// position says where byte offset i of doc is: "line 4, column 1 (byte
// 34)", lines and columns from 1, a column counted in bytes, and the byte
// from 0.
func position(doc []byte, i int) string {
	line := 1 + bytes.Count(doc[:i], []byte("\n"))
	col := i - bytes.LastIndexByte(doc[:i], '\n')
	return fmt.Sprintf("line %d, column %d (byte %d)", line, col, i)
}

// sniff says what a document is by its top-level properties.
func sniff(doc []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(doc, &top) != nil {
		return ""
	}
	has := func(k string) bool { _, ok := top[k]; return ok }
	switch {
	case has("aal") && has("routes"):
		return "manifest"
	case has("aal"):
		return "fragment"
	case has("v") && has("routes"):
		return "site index"
	case has("v") && has("page"):
		return "graph"
	case has("ok"):
		return "delta"
	case has("action"):
		return "call"
	}
	return ""
}

// site lints a site: its index, its AAL manifest, and every page reachable
// from the start URL through the graphs' nav (internal/crawl). When the
// start URL is the site's root and the index has no route "/", the walk
// starts from the index's routes without parameters.
func (l *linter) site(ctx context.Context, start string) error {
	base, err := url.Parse(start)
	if err != nil || base.Host == "" {
		return usagef("not a URL: %q", start)
	}
	origin := base.Scheme + "://" + base.Host
	l.creds = crawl.Credentials{Token: l.token}
	if l.jar != nil {
		l.creds.Cookies = l.jar.Cookies(base)
	}
	var index affordances.SiteIndex
	indexURL, manifestURL := origin+affordances.IndexPath, origin+aal.ManifestPath
	indexRes, indexErr := l.get(ctx, indexURL, affordances.MediaType, crawl.Agent)
	if ue := (*crawl.UnreachableError)(nil); errors.As(indexErr, &ue) {
		// Nothing to lint: one error, not a problem with each document.
		return &networkError{&crawl.UnreachableError{URL: origin, Err: ue.Err}}
	}
	manifestRes, _ := l.get(ctx, manifestURL, "application/json", crawl.Agent)
	if page := strings.Trim(base.EscapedPath(), "/"); page != "" && (indexErr != nil || indexRes.status != http.StatusOK || manifestRes == nil || manifestRes.status != http.StatusOK) {
		// A site under a prefix that a proxy forwards alone names its
		// documents from its pages (docs/protocol.md decision 13).
		if res, err := l.get(ctx, origin+base.EscapedPath(), "text/html", crawl.Agent); err == nil {
			links := crawl.DocumentLinks(res.header)
			if p := links[crawl.RelIndex]; p != "" {
				indexURL = origin + p
				indexRes, indexErr = l.get(ctx, indexURL, affordances.MediaType, crawl.Agent)
			}
			if p := links[crawl.RelManifest]; p != "" {
				manifestURL = origin + p
			}
		}
	}
	var manifest *aal.Manifest
	if body, ok := l.fetch(ctx, manifestURL, "application/json", "manifest", crawl.Agent); ok {
		l.document(manifestURL, "manifest", body)
		var m aal.Manifest
		if json.Unmarshal(body, &m) == nil {
			manifest = &m
		}
	}
	switch {
	case indexErr == nil && indexRes.status == http.StatusNotFound && manifest != nil:
		// A site of AAL alone, as any PHP or Rails site may be: it is
		// checked as AAL, its pages from its HTML and its manifest.
		l.note(indexURL, "site index", "none: the site publishes AAL only, no Affordances site index or graph; it is checked as AAL (manifest, fragments, selectors against the HTML)")
		first := base.EscapedPath()
		if first == "" {
			first = "/"
		}
		if base.RawQuery != "" {
			first += "?" + base.RawQuery
		}
		queue := append([]string{first}, crawl.Routes(nil, manifest)...)
		l.bounded(origin, crawl.Walk(queue, l.maxPages, func(page string) []string { return l.aalPage(ctx, origin, page, manifest) }))
		return nil
	case indexErr != nil:
		l.problem(indexURL, "site index", "", indexErr.Error())
	case indexRes.status != http.StatusOK:
		l.unread(indexURL, "site index", indexRes)
	default:
		l.document(indexURL, "site index", indexRes.body)
		json.Unmarshal(indexRes.body, &index) // document reported it if it is not one
	}
	first := base.EscapedPath()
	if first == "" {
		first = "/"
	}
	if base.RawQuery != "" {
		first += "?" + base.RawQuery
	}
	queue := []string{first}
	if first == "/" && !slices.ContainsFunc(index.Routes, func(r affordances.RouteSummary) bool { return r.Route == "/" }) && len(index.Routes) > 0 {
		// The site's root is no page of it (a redirect): start from the
		// index's routes that need no parameter, as an agent would.
		queue = crawl.Routes(&index, nil)
	}
	l.bounded(origin, crawl.Walk(queue, l.maxPages, func(page string) []string { return l.page(ctx, origin, page, manifest) }))
	return nil
}

// bounded notes that the walk of the site at origin stopped at
// --max-pages with pages left, when it did.
func (l *linter) bounded(origin string, bounded bool) {
	if bounded {
		l.note(origin, "site", fmt.Sprintf("visited %s, the --max-pages bound, and left the others unvisited", plural(l.maxPages, "page")))
	}
}

// page lints one page's graph, fragment and selectors, and returns the
// targets of its nav.
func (l *linter) page(ctx context.Context, origin, page string, manifest *aal.Manifest) []string {
	where := origin + page
	body, ok := l.fetch(ctx, where, affordances.MediaType, "graph", crawl.Agent)
	if !ok {
		return nil
	}
	l.document(where, "graph", body)
	var g affordances.Graph
	if json.Unmarshal(body, &g) != nil {
		return nil
	}
	next := crawl.Nav(&g)
	frag := crawl.Fragment(manifest, g.Route, page)
	if frag == "" {
		if manifest != nil && len(manifest.Routes) > 0 {
			l.problem(where, "manifest", "", fmt.Sprintf("the manifest has no fragment for route %q", g.Route))
		}
		return next
	}
	fragURL := origin + frag
	fbody, ok := l.fetch(ctx, fragURL, "application/json", "fragment", crawl.Agent)
	if !ok {
		return next
	}
	l.document(fragURL, "fragment", fbody)
	var f aal.Fragment
	if json.Unmarshal(fbody, &f) != nil {
		return next
	}
	ids := map[string]bool{}
	for _, a := range f.Affordances {
		ids[a.ID] = true
	}
	for i, a := range g.Actions {
		if id := aal.ID(a.Name); !ids[id] {
			l.problem(where, "graph", fmt.Sprintf("/actions/%d", i), fmt.Sprintf("action %q has no affordance %q in the page's AAL fragment (docs/protocol.md decision 9)", a.Name, id))
		}
	}
	res, ok := l.fetchResponse(ctx, where, "text/html", "HTML", crawl.Person)
	if !ok {
		return next
	}
	src := res.body
	doc, err := htmlcheck.Parse(src)
	if err != nil {
		l.problem(where, "HTML", "", err.Error())
		return next
	}
	if doc.HasWebMCPTools() {
		for _, why := range webmcp.Headers(res.header, origin) {
			l.warn(where, "HTML", "", "the page has WebMCP tools, and the browser registers none of them: "+why+" (docs/webmcp.md)")
		}
	}
	if loc, err := aalpage.Locate(where, src, manifest); err != nil {
		l.problem(where, "HTML", "", aal.Visible(strings.TrimPrefix(err.Error(), "aalpage: ")))
	} else if loc.Inline != "" {
		l.inline(where, loc.Inline)
	}
	for _, sp := range doc.CheckSelectors(g.Actions, &f) {
		for _, msg := range sp.Problems {
			l.problem(fragURL, "fragment", fmt.Sprintf("/affordances/%d/selector", sp.Index),
				fmt.Sprintf("page %s, affordance %q, selector %s: %s (docs/protocol.md decision 11)", where, sp.ID, aal.Visible(sp.Selector), msg))
		}
	}
	return next
}

// fetch GETs u asking for accept, as who, and reports a problem when the
// answer is not a 200 of that kind.
func (l *linter) fetch(ctx context.Context, u, accept, kind string, who crawl.Reader) ([]byte, bool) {
	res, ok := l.fetchResponse(ctx, u, accept, kind, who)
	if !ok {
		return nil, false
	}
	return res.body, true
}

// fetchResponse is [linter.fetch] with the whole answer, headers and all.
func (l *linter) fetchResponse(ctx context.Context, u, accept, kind string, who crawl.Reader) (*response, bool) {
	res, err := l.get(ctx, u, accept, who)
	if err != nil {
		l.problem(u, kind, "", err.Error())
		return nil, false
	}
	if res.status != http.StatusOK {
		l.unread(u, kind, res)
		return nil, false
	}
	return res, true
}

// unread reports a document the site did not answer with a 200: when it
// asks lint to sign in and lint lacks the credentials, what they are; else
// a problem, a redirect named for where it leads.
func (l *linter) unread(u, kind string, res *response) {
	answered := res.answered()
	if crawl.SignIn(res.status) {
		if needs := l.creds.Lacks(res.who); needs != "" {
			l.needs(u, kind, answered, needs)
			return
		}
		if res.cred != "" {
			answered += ", with the credentials of " + res.cred + " (are they still valid?)"
		}
	}
	l.problem(u, kind, "", answered)
}

// A response is what lint read of one GET.
type response struct {
	path        string // the request's path and query
	who         crawl.Reader
	cred        string // the credentials the request carried, as the command line names them
	status      int
	contentType string
	location    string
	origin      string
	header      http.Header
	body        []byte
}

// answered says what the GET got: "GET /unread answered 303 to /login".
func (r *response) answered() string {
	return crawl.Answered(http.MethodGet, r.path, r.status, r.location, r.origin)
}

// get GETs u asking for accept, with who's credentials (crawl.Credentials)
// and lint's User-Agent; it follows no redirect.
func (l *linter) get(ctx context.Context, u, accept string, who crawl.Reader) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return nil, err
	}
	origin := req.URL.Scheme + "://" + req.URL.Host
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", l.userAgent)
	r := &response{path: req.URL.RequestURI(), who: who, origin: origin}
	r.cred = l.creds.Authorize(req.Header, who, http.MethodGet, origin)
	res, err := l.client.Do(req)
	if err != nil {
		return nil, &crawl.UnreachableError{URL: u, Err: err}
	}
	defer res.Body.Close()
	r.body, err = io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	r.status, r.contentType, r.location, r.header = res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Location"), res.Header
	return r, nil
}

// inline lints the fragment a page inlines.
func (l *linter) inline(where, text string) *aal.Fragment {
	problems := aal.ValidateFragment([]byte(text))
	for _, p := range problems {
		l.problem(where, "inline fragment", p.Pointer, p.Message)
	}
	if len(problems) > 0 {
		return nil
	}
	l.clean(where, "inline fragment")
	var f aal.Fragment
	json.Unmarshal([]byte(text), &f) // valid, so it decodes
	return &f
}

// aalPage lints one page of a site that publishes AAL only: the fragments
// it inlines, links and the manifest names for it (docs/protocol.md §30
// and decision 7), that the manifest has its route, that its fragment's
// page is its path, and the fragment's selectors against its HTML
// (docs/protocol.md decision 11: a page without a graph lists what it
// offers, so each selector matches). It returns the page's links within the site.
func (l *linter) aalPage(ctx context.Context, origin, page string, manifest *aal.Manifest) []string {
	where := origin + page
	res, err := l.get(ctx, where, "text/html", crawl.Person)
	switch {
	case err != nil:
		l.problem(where, "HTML", "", err.Error())
		return nil
	case res.status != http.StatusOK:
		l.unread(where, "HTML", res)
		return nil
	case !strings.HasPrefix(strings.ToLower(res.contentType), "text/html"):
		l.note(where, "page", "not HTML ("+aal.Visible(res.contentType)+"): not checked")
		return nil
	}
	body := res.body
	u, _ := url.Parse(where)
	links := crawl.HTMLLinks(u, body)
	doc, err := htmlcheck.Parse(body)
	if err != nil {
		l.problem(where, "HTML", "", err.Error())
		return links
	}
	loc, err := aalpage.Locate(where, body, manifest)
	if err != nil {
		l.problem(where, "HTML", "", aal.Visible(strings.TrimPrefix(err.Error(), "aalpage: ")))
		return links
	}
	if loc.From == "" {
		l.note(where, "page", "publishes no AAL fragment")
		return links
	}
	if loc.ManifestURL == "" {
		l.problem(where, "manifest", "", fmt.Sprintf("the manifest has no route for %s, which publishes a fragment (%s)", aal.Visible(pathOnly(page)), loc.From))
	}
	var f *aal.Fragment
	fragWhere := where
	if loc.Inline != "" {
		f = l.inline(where, loc.Inline)
	}
	var urls []string // the fragments the page links or the manifest names, each once
	if loc.URL != "" {
		urls = append(urls, loc.URL)
	}
	if loc.ManifestURL != "" && loc.ManifestURL != loc.URL {
		urls = append(urls, loc.ManifestURL)
	}
	for _, fu := range urls {
		if o, err := url.Parse(fu); err != nil || o.Scheme+"://"+o.Host != origin {
			l.problem(where, "HTML", "", fmt.Sprintf("the fragment %s is not of the site's origin", aal.Visible(fu)))
			continue
		}
		fbody, ok := l.fetch(ctx, fu, "application/json", "fragment", crawl.Person)
		if !ok {
			continue
		}
		l.document(fu, "fragment", fbody)
		var ff aal.Fragment
		if f == nil && aal.ValidateFragment(fbody) == nil && json.Unmarshal(fbody, &ff) == nil {
			f, fragWhere = &ff, fu
		}
	}
	if f == nil {
		return links
	}
	if f.Page != pathOnly(page) {
		l.problem(fragWhere, "fragment", "/page", fmt.Sprintf("the fragment's page is %s, and it is the fragment of %s", aal.Visible(f.Page), aal.Visible(pathOnly(page))))
	}
	for i, a := range f.Affordances {
		inputs, err := doc.Inputs(a.Selector)
		if err != nil {
			l.problem(fragWhere, "fragment", fmt.Sprintf("/affordances/%d/selector", i), fmt.Sprintf("page %s, affordance %q: %s", where, a.ID, aal.Visible(err.Error())))
			continue
		}
		for _, msg := range aal.CheckMatches(true, inputs) {
			l.problem(fragWhere, "fragment", fmt.Sprintf("/affordances/%d/selector", i),
				fmt.Sprintf("page %s, affordance %q, selector %s: %s (docs/protocol.md decision 11)", where, a.ID, aal.Visible(a.Selector), msg))
		}
	}
	l.clean(where, "HTML")
	return links
}

// pathOnly returns a page's path without its query.
func pathOnly(page string) string {
	p, _, _ := strings.Cut(page, "?")
	return p
}
