// Package aalpage reads a page that publishes the Agent
// Affordance Layer (AAL 0.1.1) and no Affordances graph: any website, in
// any language, that annotates its HTML with data-aal attributes and
// publishes a manifest and fragments (docs/protocol.md decisions 7 and 11).
//
// [Load] reads a page as an agent does without a browser: its HTML, its
// fragment (inline as <script type="application/aal+json">, linked with
// <link rel="agent-affordances">, or named by the site's manifest for the
// page's route, in that order), and for each affordance what the HTML has
// for it: the elements its selector finds, their data-aal-input, and the
// fields of their form, as a JSON Schema of the input a call gives
// ([Element.Input]). A page that answers an Affordances graph is
// [ErrGraph]: read it with the root package's Client, which acts through
// the Affordances protocol's calls.
//
// Package internal/aalbrowser performs an affordance of such a page the
// way the person would, in headless Chromium, with their session.
//
// Text from a site (labels, ids, titles, summaries) is data: show it
// through [aal.Visible], never as instructions.
package aalpage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/crawl"
	"github.com/affordances/affordances-go/internal/mediatype"
	"github.com/affordances/affordances-go/internal/weborigin"
)

// Errors of [Load], matched with errors.Is.
var (
	// ErrGraph: the page answers an Affordances graph, or the site answers
	// in Affordances documents and has no such page; use the root
	// package's Client, which reads the graph (or the site's error) and
	// acts through its calls.
	ErrGraph = errors.New("aalpage: the page has an Affordances graph")
	// ErrNoAAL: the page publishes no AAL fragment: none inline, none
	// linked, and no route of the site's manifest matches it.
	ErrNoAAL = errors.New("aalpage: the page is not an Affordances document and publishes no AAL")
)

// Where a page's fragment came from.
const (
	FromInline   = "inline"   // a <script type="application/aal+json"> of the page
	FromLink     = "link"     // the page's <link rel="agent-affordances" href>
	FromManifest = "manifest" // the site's manifest, for the route the page matches
)

// LinkRel is the rel of the <link> that points a page to its fragment.
const LinkRel = "agent-affordances"

// maxBody bounds what Load reads of a page, a fragment or a manifest.
const maxBody = 4 << 20

// SummaryLength is the most characters of a page's main content a
// [Page]'s Summary keeps.
const SummaryLength = 300

// A Page is a page as an agent reads it through AAL alone.
type Page struct {
	// URL is the page's address as it loaded, after redirects.
	URL string
	// Title is the page's <title>, whitespace collapsed (the site's text).
	Title string
	// Summary is the text of the page's <main> (else its <body>),
	// whitespace collapsed, at most [SummaryLength] characters, cut with
	// "…" (the site's text).
	Summary string
	// Fragment is the page's AAL fragment, valid AAL 0.1.
	Fragment *aal.Fragment
	// From says where the fragment came from: [FromInline], [FromLink] or
	// [FromManifest]; FragmentURL is its address when it was fetched.
	From        string
	FragmentURL string
	// Manifest is the site's manifest, nil when it has none (or an
	// invalid one, which Notes then mentions); Route is the manifest
	// route the page matches, "" when none does.
	Manifest *aal.Manifest
	Route    string
	// Elements says, for each affordance of the fragment by id, what the
	// page's HTML has for it.
	Elements map[string]*Element
	// Notes are things a person should know about how the page was read
	// ("the manifest is not valid AAL: ..."), in sentences; the site's
	// text in them has passed through [aal.Visible].
	Notes []string
}

// Origin returns the origin of the page's URL ([weborigin.Of]), as the
// gate sees it; "" when it has none.
func (p *Page) Origin() string {
	o, _ := weborigin.Of(p.URL)
	return o
}

// Affordance returns the fragment's affordance with the id.
func (p *Page) Affordance(id string) (aal.Affordance, bool) {
	if p.Fragment == nil {
		return aal.Affordance{}, false
	}
	for _, a := range p.Fragment.Affordances {
		if a.ID == id {
			return a, true
		}
	}
	return aal.Affordance{}, false
}

// IDs lists the ids of the fragment's affordances, in its order.
func (p *Page) IDs() []string {
	var ids []string
	if p.Fragment != nil {
		for _, a := range p.Fragment.Affordances {
			ids = append(ids, a.ID)
		}
	}
	return ids
}

// Load reads the page at pageURL with hc (nil: http.DefaultClient; give
// one whose Jar holds the person's cookies for the page's site only). It
// asks for an Affordances graph and HTML at once: a graph is [ErrGraph];
// an HTML page without AAL is [ErrNoAAL], with the page (its Fragment
// nil) beside the error. Otherwise it fetches the site's
// manifest and, unless the page inlines its fragment, the fragment it
// links or the manifest names for its route, of the page's own origin
// only, and checks it with [aal.ValidateFragment]: an invalid fragment is
// an error that lists its problems, so nothing acts on it.
func Load(ctx context.Context, hc *http.Client, pageURL string) (*Page, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	u, err := url.Parse(pageURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("aalpage: %q is not an http(s) URL", aal.Visible(pageURL))
	}
	res, body, err := fetch(ctx, hc, pageURL, affordances.MediaType+", text/html;q=0.9, */*;q=0.1")
	if err != nil {
		return nil, err
	}
	if mediatype.Is(res.Header.Get("Content-Type"), affordances.MediaType) {
		if res.StatusCode != http.StatusNotFound {
			return nil, ErrGraph
		}
		// A site of the protocol, and a page with no graph: read its HTML.
		if res, body, err = fetch(ctx, hc, pageURL, "text/html"); err != nil {
			return nil, err
		}
		if res.StatusCode != http.StatusOK {
			return nil, ErrGraph // no page at all: the site's own error says so
		}
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("aalpage: GET %s answered %s", aal.Visible(pageURL), res.Status)
	}
	if ct := res.Header.Get("Content-Type"); !mediatype.Is(ct, "text/html") && !mediatype.Is(ct, "application/xhtml+xml") {
		return nil, fmt.Errorf("aalpage: GET %s answered %s, not an HTML page", aal.Visible(pageURL), aal.Visible(ct))
	}
	return read(ctx, hc, res.Request.URL.String(), body)
}

// Read is [Load] for a page already loaded: its final URL and its HTML
// (as a browser has it). The manifest and a linked fragment are fetched
// with hc as Load does.
func Read(ctx context.Context, hc *http.Client, pageURL string, doc []byte) (*Page, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	return read(ctx, hc, pageURL, doc)
}

func read(ctx context.Context, hc *http.Client, pageURL string, doc []byte) (*Page, error) {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("aalpage: %s: %w", aal.Visible(pageURL), err)
	}
	base, _ := url.Parse(pageURL)
	p := &Page{URL: pageURL}
	h := scan(root)
	p.Title = collapse(h.title)
	p.Summary = Cut(collapse(textOf(h.main)), SummaryLength)
	p.Manifest, p.Route, p.Notes = manifestFor(ctx, hc, base)
	src, err := locate(base, h, p.Manifest)
	if err != nil {
		return nil, err
	}
	p.From, p.FragmentURL, p.Notes = src.From, src.URL, append(p.Notes, src.Notes...)
	var f *aal.Fragment
	switch src.From {
	case "":
		why := "the site has no manifest"
		if p.Manifest != nil {
			why = "no route of the site's manifest matches " + aal.Visible(base.EscapedPath())
		}
		return p, fmt.Errorf("%w: %s has no inline fragment, links none, and %s", ErrNoAAL, aal.Visible(pageURL), why)
	case FromInline:
		if problems := aal.ValidateFragment([]byte(src.Inline)); len(problems) > 0 {
			return nil, fmt.Errorf("aalpage: the AAL fragment inlined in %s is not valid AAL 0.1, so nothing acts on it: %s", aal.Visible(pageURL), problemList(problems))
		}
		f = &aal.Fragment{}
		if err := json.Unmarshal([]byte(src.Inline), f); err != nil {
			return nil, fmt.Errorf("aalpage: the AAL fragment inlined in %s: %w", aal.Visible(pageURL), err)
		}
	default:
		if f, err = LoadFragment(ctx, hc, pageURL, src.URL); err != nil {
			return nil, err
		}
	}
	p.Fragment = f
	p.Elements = map[string]*Element{}
	for _, a := range f.Affordances {
		p.Elements[a.ID] = elementFor(root, base, a)
	}
	return p, nil
}

// A Source is where a page's AAL fragment is, as its HTML and the site's
// manifest say, in the order a consumer reads them: inline, linked, named
// by the manifest for the page's route.
type Source struct {
	// From is [FromInline], [FromLink], [FromManifest], or "" when the
	// page publishes no fragment.
	From string
	// Inline is the text of the fragment the page inlines (From inline).
	Inline string
	// URL is where the fragment is (From link or manifest), resolved; the
	// manifest's, when the page's route has one, is ManifestURL too.
	URL, ManifestURL string
	// Route is the manifest route the page matches, "" when none does.
	Route string
	// Notes say what a person should know ("the page links 2 fragments").
	Notes []string
}

// Locate says where the AAL fragment of the page at pageURL is, from its
// HTML and the site's manifest m (nil: none), without fetching anything.
// A page that inlines several fragments, or links one at a URL that is
// not one, is an error.
func Locate(pageURL string, doc []byte, m *aal.Manifest) (Source, error) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return Source{}, fmt.Errorf("aalpage: %q is not a URL", aal.Visible(pageURL))
	}
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return Source{}, fmt.Errorf("aalpage: %s: %w", aal.Visible(pageURL), err)
	}
	return locate(base, scan(root), m)
}

func locate(base *url.URL, h scanned, m *aal.Manifest) (Source, error) {
	var src Source
	if m != nil {
		for _, r := range m.Routes {
			if !MatchRoute(r.Route, base.EscapedPath()) {
				continue
			}
			frag := aal.FragmentFor(r.Fragment, r.Route, base.EscapedPath())
			ref, err := base.Parse(frag)
			if err != nil {
				return src, fmt.Errorf("aalpage: the manifest's fragment %s is not a path", aal.Visible(frag))
			}
			src.Route, src.ManifestURL = r.Route, ref.String()
			break
		}
	}
	switch {
	case len(h.inline) > 1:
		return src, fmt.Errorf("aalpage: %s inlines %d AAL fragments; a page has one", aal.Visible(base.String()), len(h.inline))
	case len(h.inline) == 1:
		src.From, src.Inline = FromInline, h.inline[0]
	case len(h.links) > 0:
		if len(h.links) > 1 {
			src.Notes = append(src.Notes, fmt.Sprintf("The page links %d fragments; the first is read.", len(h.links)))
		}
		ref, err := base.Parse(h.links[0])
		if err != nil {
			return src, fmt.Errorf("aalpage: %s links its fragment at %s, which is not a URL", aal.Visible(base.String()), aal.Visible(h.links[0]))
		}
		src.From, src.URL = FromLink, ref.String()
	case src.ManifestURL != "":
		src.From, src.URL = FromManifest, src.ManifestURL
	}
	return src, nil
}

// problemList writes the first problems of a document, and how many more.
func problemList(ps []aal.Problem) string {
	var parts []string
	for i, p := range ps {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ps)-3))
			break
		}
		parts = append(parts, p.String())
	}
	return strings.Join(parts, "; ")
}

// LoadManifest fetches the AAL manifest of the site at origin (an origin,
// or any URL of the site) with hc (nil: http.DefaultClient): nil and no
// error when the site has none (404), an error when it is not valid AAL
// 0.1.
func LoadManifest(ctx context.Context, hc *http.Client, origin string) (*aal.Manifest, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	o, err := weborigin.Of(origin)
	if err != nil {
		return nil, fmt.Errorf("aalpage: %q is not an http(s) URL: %v", aal.Visible(origin), err)
	}
	res, body, err := fetch(ctx, hc, o+aal.ManifestPath, "application/json")
	switch {
	case err != nil:
		return nil, err
	case res.StatusCode == http.StatusNotFound:
		return nil, nil
	case res.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("aalpage: the manifest %s answered %s", aal.ManifestPath, res.Status)
	}
	if problems := aal.ValidateManifest(body); len(problems) > 0 {
		return nil, fmt.Errorf("aalpage: the manifest is not valid AAL 0.1: %s", problemList(problems))
	}
	var m aal.Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("aalpage: the manifest: %w", err)
	}
	return &m, nil
}

// LoadFragment fetches the fragment at u, which must be of origin, with
// hc, and checks it as [Load] does.
func LoadFragment(ctx context.Context, hc *http.Client, origin, u string) (*aal.Fragment, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	if !SameOrigin(u, origin) {
		return nil, fmt.Errorf("aalpage: the fragment %s is not of %s; only a fragment of the site's own origin is read", aal.Visible(u), aal.Visible(origin))
	}
	res, body, err := fetch(ctx, hc, u, "application/json")
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("aalpage: the fragment %s answered %s", aal.Visible(u), res.Status)
	}
	if problems := aal.ValidateFragment(body); len(problems) > 0 {
		return nil, fmt.Errorf("aalpage: the fragment %s is not valid AAL 0.1, so nothing acts on it: %s", aal.Visible(u), problemList(problems))
	}
	var f aal.Fragment
	if err := json.Unmarshal(body, &f); err != nil {
		return nil, fmt.Errorf("aalpage: the fragment %s: %w", aal.Visible(u), err)
	}
	return &f, nil
}

// manifestFor fetches the manifest of base's site and finds the route base
// matches. A site without one has none; an invalid one is noted and not
// used.
func manifestFor(ctx context.Context, hc *http.Client, base *url.URL) (*aal.Manifest, string, []string) {
	m, err := LoadManifest(ctx, hc, base.String())
	if err != nil {
		return nil, "", []string{"The manifest is not used: " + strings.TrimPrefix(err.Error(), "aalpage: ") + "."}
	}
	if m == nil {
		return nil, "", nil
	}
	for _, r := range m.Routes {
		if MatchRoute(r.Route, base.EscapedPath()) {
			return m, r.Route, nil
		}
	}
	return m, "", nil
}

// MatchRoute reports whether the page path (a query is ignored) has the
// shape of the manifest route: the same segments, a [param] segment
// standing for any one non-empty segment and a last [...name] for one or
// more (docs/protocol.md decision 7).
func MatchRoute(route, path string) bool {
	path, _, _ = strings.Cut(path, "?")
	rs, ps := strings.Split(route, "/"), strings.Split(path, "/")
	param := func(s string) bool { return len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' }
	for i, seg := range rs {
		switch {
		case i == len(rs)-1 && strings.HasPrefix(seg, "[...") && param(seg):
			if len(ps) < len(rs) {
				return false
			}
			for _, p := range ps[i:] {
				if p == "" {
					return false
				}
			}
			return true
		case i >= len(ps):
			return false
		case param(seg):
			if ps[i] == "" {
				return false
			}
		case seg != ps[i]:
			return false
		}
	}
	return len(rs) == len(ps)
}

// fetch GETs u asking for accept and reads at most maxBody bytes.
func fetch(ctx context.Context, hc *http.Client, u, accept string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("aalpage: %w", err)
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", "affordances-go")
	res, err := hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("aalpage: %w", &crawl.UnreachableError{URL: aal.Visible(u), Err: err})
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		return nil, nil, fmt.Errorf("aalpage: GET %s: %w", aal.Visible(u), err)
	}
	return res, body, nil
}

// scanned is what the page's HTML says for discovery.
type scanned struct {
	title  string
	main   *html.Node // <main>, else <body>
	inline []string   // the text of each inline AAL fragment
	links  []string   // the href of each <link rel="agent-affordances">
}

func scan(root *html.Node) scanned {
	var s scanned
	var body *html.Node
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Title:
			if s.title == "" {
				s.title = textOf(n)
			}
		case atom.Main:
			if s.main == nil {
				s.main = n
			}
		case atom.Body:
			body = n
		case atom.Script:
			if t, _ := attr(n, "type"); strings.EqualFold(strings.TrimSpace(t), aal.MediaType) {
				var text strings.Builder // a script's content is one raw text node
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					text.WriteString(c.Data)
				}
				s.inline = append(s.inline, text.String())
			}
		case atom.Link:
			rel, _ := attr(n, "rel")
			href, ok := attr(n, "href")
			if ok && hasToken(rel, LinkRel) {
				s.links = append(s.links, strings.TrimSpace(href))
			}
		}
	}
	if s.main == nil {
		s.main = body
	}
	return s
}

// hasToken reports whether the space-separated list has tok, in any case.
func hasToken(list, tok string) bool {
	for _, t := range strings.Fields(list) {
		if strings.EqualFold(t, tok) {
			return true
		}
	}
	return false
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// textOf returns the text under n, without scripts and styles.
func textOf(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Template):
			return
		case n.Type == html.ElementNode && blockish(n.DataAtom):
			b.WriteString(" ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && blockish(n.DataAtom) {
			b.WriteString(" ")
		}
	}
	walk(n)
	return b.String()
}

// blockish elements separate words: "<p>a</p><p>b</p>" reads "a b".
func blockish(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Li, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Br,
		atom.Article, atom.Section, atom.Header, atom.Footer, atom.Tr, atom.Td, atom.Th, atom.Label, atom.Option, atom.Button:
		return true
	}
	return false
}

// collapse collapses runs of whitespace into one space and trims.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// Cut shortens s to at most n characters, the last one "…", as a Page's
// Summary is cut.
func Cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// WithToken returns a copy of hc that sends the bearer token on every
// request to origin, and on no other: what [Load] reads of a site that
// takes a token (a site of the protocol) carries it as the site's Client
// does. An empty token returns hc itself.
func WithToken(hc *http.Client, origin, token string) *http.Client {
	if token == "" {
		return hc
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = bearer{next: next, origin: origin, token: token}
	return &c
}

// bearer is the transport of [WithToken].
type bearer struct {
	next          http.RoundTripper
	origin, token string
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	if !SameOrigin(req.URL.String(), b.origin) || req.Header.Get("Authorization") != "" {
		return b.next.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// SameOrigin reports whether two URLs or origins are of one origin
// ([weborigin.Of]); a URL with no origin is of none.
func SameOrigin(a, b string) bool {
	oa, err := weborigin.Of(a)
	if err != nil {
		return false
	}
	ob, err := weborigin.Of(b)
	return err == nil && oa == ob
}
