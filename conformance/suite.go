package conformance

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/crawl"
	"github.com/affordances/affordances-go/internal/htmlcheck"
	"github.com/affordances/affordances-go/internal/wirecheck"
)

// browserAccept is the Accept header of a browser's navigation.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// An exchange is one request the suite sent and what came back.
type exchange struct {
	method, path string
	who          crawl.Reader
	cred         string // the credentials it carried: crawl.FlagToken, crawl.FlagCookieJar or ""
	reqHeader    http.Header
	reqBody      []byte
	status       int
	header       http.Header
	body         []byte
	err          error
	// inputFrom says where the input of a call came from (input.go).
	inputFrom string
}

// Whose credentials a request carries (crawl.Credentials): the agent's
// for graphs, the index, AAL documents and calls; the person's for HTML
// and approval pages; nobody's for a probe that sets its own.
const (
	nobody = crawl.Nobody
	agent  = crawl.Agent
	person = crawl.Person
)

func (x *exchange) evidence() *Evidence {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", x.method, x.path)
	keys := make([]string, 0, len(x.reqHeader))
	for k := range x.reqHeader {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := strings.Join(x.reqHeader.Values(k), ", ")
		switch {
		case k == "Authorization":
			v = "Bearer <redacted>"
		case k == "Cookie" && x.cred == crawl.FlagCookieJar:
			v = "<the session of --cookie-jar>"
		}
		fmt.Fprintf(&b, "\n%s: %s", k, v)
	}
	if len(x.reqBody) > 0 {
		body := x.reqBody
		if len(body) > 300 {
			body = append(slices.Clip(body[:300]), "…"...)
		}
		fmt.Fprintf(&b, "\n\n%s", body)
	}
	ev := &Evidence{Request: b.String(), Status: x.status, Headers: x.header, InputFrom: x.inputFrom}
	if x.err != nil {
		ev.BodyExcerpt = "error: " + x.err.Error()
	} else if len(x.body) > 0 {
		ex := wirecheck.Excerpt(x.body)
		if len(ex) > 600 {
			ex = ex[:600] + "…"
		}
		ev.BodyExcerpt = ex
	}
	return ev
}

// isDocument reports whether the response is an Affordances document.
func (x *exchange) isDocument() bool {
	if x.header == nil {
		return false
	}
	mt, _, err := mime.ParseMediaType(x.header.Get("Content-Type"))
	return err == nil && strings.EqualFold(mt, affordances.MediaType)
}

// isJSON reports whether the response says it is JSON of any kind.
func (x *exchange) isJSON() bool {
	if x.header == nil {
		return false
	}
	mt, _, _ := mime.ParseMediaType(x.header.Get("Content-Type"))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// signIn reports whether x answered as a site answers a reader who lacks
// the credentials it asks for: a redirect (to its sign-in form), or
// unauthorized (401).
func (x *exchange) signIn() bool { return x.err == nil && crawl.SignIn(x.status) }

// answered says in a few words what x got: "GET / answered 303 to
// /login", "GET /drafts answered 401 Unauthorized".
func (x *exchange) answered(base string) string {
	if x.err != nil {
		return fmt.Sprintf("%s %s failed: %v", x.method, x.path, x.err)
	}
	return crawl.Answered(x.method, x.path, x.status, x.header.Get("Location"), base)
}

// delta decodes the response as a delta, or nil.
func (x *exchange) delta() *affordances.Delta {
	if x.err != nil || !x.isDocument() {
		return nil
	}
	var d affordances.Delta
	if json.Unmarshal(x.body, &d) != nil {
		return nil
	}
	return &d
}

// code returns the error code of the delta the response carries, or "".
func (x *exchange) code() affordances.Code {
	if d := x.delta(); d != nil && d.Error != nil {
		return d.Error.Code
	}
	return ""
}

// A page is a discovered page: its graph, and later its HTML and fragment.
type page struct {
	path     string
	graphX   *exchange
	graph    *affordances.Graph
	htmlX    *exchange // nil until fetched
	fragX    *exchange
	fragment *aal.Fragment
}

// A suite is one run: the site's discovered documents and every delta seen.
type suite struct {
	ctx    context.Context
	base   string // scheme://host[:port], no trailing slash
	start  string // the page Run was given, "" for none: discovery starts there
	opts   *Options
	creds  crawl.Credentials
	indexX *exchange
	// indexPath and manPath are where the index and the manifest were
	// found: the origin's /.well-known/, or where the start page's Link
	// headers name them (docs/protocol.md decision 13).
	indexPath, manPath string
	index              *affordances.SiteIndex
	manX               *exchange
	manifest           *aal.Manifest
	pages              map[string]*page
	order              []string
	// bounded is true when discovery stopped at MaxPages with pages left.
	bounded bool
	deltas  []*exchange // every response to a call
	// writes records the writes, for the checks that read them.
	writes []*write
	// probes keeps the calls several checks read.
	probes map[string]probeResult
	// provoking is true while the rate-limit probe calls until it is
	// limited: its calls do not wait out a Retry-After.
	provoking bool
	// waited is how long the run has waited out Retry-After.
	waited time.Duration
	// signIns are the pages that answered discovery's request for their
	// graph with a redirect or unauthorized.
	signIns []*exchange
	// aalOnly says the site publishes AAL and no Affordances graph (its
	// index path is a plain 404, no graph is found, and it has a
	// manifest): the checks of the Affordances protocol skip, and the AAL
	// checks read aalPages (aalonly.go).
	aalOnly  bool
	aalPages []*aalPage
	// reached is true once a request got an answer from the site.
	reached bool
	// oauth is the site's OAuth metadata, once read (oauth.go).
	oauth *oauthMeta
}

// A write is one real call the suite made, with the page before and after.
type write struct {
	page   *page
	action affordances.ActionDescriptor
	x      *exchange
	after  *exchange
}

func newSuite(ctx context.Context, base, start string, o *Options) *suite {
	return &suite{ctx: ctx, base: base, start: start, opts: o, creds: crawl.Credentials{Token: o.Token, Cookies: o.Cookies}, pages: map[string]*page{}}
}

// do sends one request with who's credentials, and the suite's
// User-Agent. It follows no redirect: a 3xx is the answer.
func (s *suite) do(method, path string, who crawl.Reader, header http.Header, body []byte) *exchange {
	x := &exchange{method: method, path: path, who: who, reqHeader: header, reqBody: body}
	if x.reqHeader == nil {
		x.reqHeader = http.Header{}
	}
	x.cred = s.creds.Authorize(x.reqHeader, who, method, s.base)
	if s.send(x, s.base+path) {
		s.reached = true
		if method == http.MethodPost {
			s.deltas = append(s.deltas, x)
		}
	}
	return x
}

// send sends x's request to u, with the suite's User-Agent, and keeps
// the answer in x; it reports whether the site answered. It follows no
// redirect.
func (s *suite) send(x *exchange, u string) bool {
	req, err := http.NewRequestWithContext(s.ctx, x.method, u, bytes.NewReader(x.reqBody))
	if err != nil {
		x.err = err
		return false
	}
	if x.reqBody == nil {
		req.Body, req.ContentLength = nil, 0
	}
	req.Header = x.reqHeader.Clone()
	if _, ok := req.Header["Accept-Encoding"]; !ok {
		req.Header.Set("Accept-Encoding", "identity")
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)
	res, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		x.err = err
		return false
	}
	defer res.Body.Close()
	x.status, x.header = res.StatusCode, res.Header
	x.body, x.err = io.ReadAll(io.LimitReader(res.Body, 8<<20))
	return true
}

// get GETs path with Accept, as who.
func (s *suite) get(path, accept string, who crawl.Reader) *exchange {
	h := http.Header{}
	if accept != "" {
		h.Set("Accept", accept)
	}
	return s.do(http.MethodGet, path, who, h, nil)
}

// lacks returns the credentials a request as who needs that the suite was
// not given; "" when it has them.
func (s *suite) lacks(who crawl.Reader) string { return s.creds.Lacks(who) }

// signInLacking returns the first page of discovery that asked the suite
// to sign in with credentials it lacks; nil when none did.
func (s *suite) signInLacking() *exchange {
	for _, x := range s.signIns {
		if s.needs(x) != "" {
			return x
		}
	}
	return nil
}

// needs returns the credentials the GET x lacked when the site answered
// it as it answers a reader who is not signed in; "" otherwise.
func (s *suite) needs(x *exchange) string {
	if x == nil || (x.method != http.MethodGet && x.method != http.MethodHead) || !x.signIn() {
		return ""
	}
	return s.lacks(x.who)
}

// call POSTs a call to path as who, with extra headers; the body is
// marshalled unless it is already []byte.
func (s *suite) call(path string, who crawl.Reader, header http.Header, body any) *exchange {
	if header == nil {
		header = http.Header{}
	}
	header.Set("Content-Type", affordances.MediaType)
	header.Set("Accept", affordances.MediaType)
	b, ok := body.([]byte)
	if !ok {
		b, _ = json.Marshal(body)
	}
	x := s.do(http.MethodPost, path, who, header, b)
	for !s.provoking {
		wait, ok := s.retryAfter(x)
		if !ok {
			break
		}
		if s.opts.Progress != nil {
			fmt.Fprintf(s.opts.Progress, "wait   %ds: %s answered rate_limited; honouring its Retry-After\n", int(wait/time.Second), path)
		}
		select {
		case <-s.ctx.Done():
			return x
		case <-time.After(wait):
		}
		s.waited += wait
		x = s.do(http.MethodPost, path, who, header.Clone(), b)
	}
	return x
}

// The bounds of honouring Retry-After: a run waits at most maxRetryAfter
// for one answer and maxWaited in all, then takes the rate_limited answer
// as it is.
const (
	maxRetryAfter = 30 * time.Second
	maxWaited     = 3 * time.Minute
)

// retryAfter says how long to wait before sending again a call that x
// answered rate_limited (429), by its Retry-After in whole seconds; ok is
// false for any other answer, or when the wait is past the bounds. A
// rate_limited call ran nothing (docs/protocol.md §19, step 3), so sending
// it again is safe; waiting makes a run right after another (whose
// rate-limit probe emptied a bucket) see what the first saw.
func (s *suite) retryAfter(x *exchange) (time.Duration, bool) {
	if x.status != http.StatusTooManyRequests || x.code() != affordances.RateLimited || !wholeSeconds(x.header.Get("Retry-After")) {
		return 0, false
	}
	secs, err := strconv.Atoi(x.header.Get("Retry-After"))
	wait := time.Duration(secs) * time.Second
	if err != nil || wait > maxRetryAfter || s.waited+wait > maxWaited {
		return 0, false
	}
	if wait == 0 {
		wait = 100 * time.Millisecond
	}
	return wait, true
}

// discover reads the index and the manifest, then walks the graphs from
// "/" and the routes of the index and the manifest that need no parameter,
// through their nav (internal/crawl). A site whose index path is a plain
// 404, with no graph and a manifest, publishes AAL alone: its pages are
// walked through their HTML.
func (s *suite) discover() {
	s.indexPath, s.manPath = affordances.IndexPath, aal.ManifestPath
	s.indexX = s.get(s.indexPath, affordances.MediaType, agent)
	s.manX = s.get(s.manPath, "application/json", agent)
	if s.start != "" && (s.indexX.status != 200 || s.manX.status != 200) {
		// A site under a prefix that a proxy forwards alone names them
		// from its pages.
		links := crawl.DocumentLinks(s.get(s.start, browserAccept, agent).header)
		if p := links[crawl.RelIndex]; p != "" && s.indexX.status != 200 {
			s.indexPath, s.indexX = p, s.get(p, affordances.MediaType, agent)
		}
		if p := links[crawl.RelManifest]; p != "" && s.manX.status != 200 {
			s.manPath, s.manX = p, s.get(p, "application/json", agent)
		}
	}
	if s.indexX.err == nil && s.indexX.status == 200 {
		var idx affordances.SiteIndex
		if json.Unmarshal(s.indexX.body, &idx) == nil {
			s.index = &idx
		}
	}
	if s.manX.err == nil && s.manX.status == 200 {
		var m aal.Manifest
		if json.Unmarshal(s.manX.body, &m) == nil {
			s.manifest = &m
		}
	}
	start := append([]string{cmp.Or(s.start, "/")}, crawl.Routes(s.index, s.manifest)...)
	s.bounded = crawl.Walk(start, s.opts.MaxPages, func(path string) []string {
		x := s.get(path, affordances.MediaType, agent)
		if x.signIn() {
			s.signIns = append(s.signIns, x)
		}
		// A graph served as other JSON is still found: that it is not an
		// Affordances document is v0.negotiation.content-type's to say.
		if x.err != nil || x.status != 200 || !x.isJSON() {
			return nil
		}
		var g affordances.Graph
		if json.Unmarshal(x.body, &g) != nil {
			return nil
		}
		s.pages[path] = &page{path: path, graphX: x, graph: &g}
		s.order = append(s.order, path)
		return crawl.Nav(&g)
	})
	if s.indexX.status == http.StatusNotFound && !s.indexX.isDocument() && len(s.order) == 0 && s.manifest != nil {
		s.aalOnly = true
		s.discoverAAL(start)
	}
}

// each returns the discovered pages in discovery order.
func (s *suite) each() []*page {
	out := make([]*page, 0, len(s.order))
	for _, p := range s.order {
		out = append(out, s.pages[p])
	}
	return out
}

// first returns the first discovered page, "/" when there is one.
func (s *suite) first() *page {
	if len(s.order) == 0 {
		return nil
	}
	return s.pages[s.order[0]]
}

// html fetches a page's HTML as the person, once.
func (s *suite) html(p *page) *exchange {
	if p.htmlX == nil {
		p.htmlX = s.get(p.path, browserAccept, person)
	}
	return p.htmlX
}

// pageHTML returns a page's HTML, and ok false with the verdict of a check
// that reads it when the page did not answer it: a redirect is not the
// page (a sign-in form is another).
func (s *suite) pageHTML(p *page) (*exchange, verdict, bool) {
	x := s.html(p)
	if x.err != nil || x.status != http.StatusOK {
		why := x.answered(s.base)
		if x.signIn() && x.cred != "" && s.needs(x) == "" {
			why += ", with the session of " + x.cred + " (has it expired?)"
		}
		return x, fail(x, "the HTML of a page with a graph: %s", why), false
	}
	return x, verdict{}, true
}

// pageDoc is pageHTML with the HTML parsed: a page that is not HTML
// fails its check.
func (s *suite) pageDoc(p *page) (*exchange, *htmlcheck.Page, verdict, bool) {
	x, v, ok := s.pageHTML(p)
	if !ok {
		return x, nil, v, false
	}
	doc, err := parseHTML(x.body)
	if err != nil {
		return x, nil, fail(x, "HTML: %v", err), false
	}
	return x, doc, verdict{}, true
}

// fragmentOf fetches a page's AAL fragment, once; nil without a manifest
// entry for its route.
func (s *suite) fragmentOf(p *page) *exchange {
	if p.fragX != nil {
		return p.fragX
	}
	u := crawl.Fragment(s.manifest, p.graph.Route, p.path)
	if u == "" {
		return nil
	}
	p.fragX = s.get(u, "application/json", agent)
	var f aal.Fragment
	if p.fragX.status == 200 && json.Unmarshal(p.fragX.body, &f) == nil {
		p.fragment = &f
	}
	return p.fragX
}

// entities returns a page's entities, fetched again now, as canonical JSON.
func (s *suite) entitiesNow(path string) (string, *exchange) {
	x := s.get(path, affordances.MediaType, agent)
	var g affordances.Graph
	if json.Unmarshal(x.body, &g) != nil {
		return "", x
	}
	b, _ := json.Marshal(g.Entities)
	return string(b), x
}

// pathOnly returns the path of a page without its query.
func pathOnly(p string) string {
	u, err := url.Parse(p)
	if err != nil {
		return p
	}
	return u.Path
}
