// Package conformance is a black-box suite of checks any server can be run
// against to tell whether it speaks the Affordances protocol v0 and AAL
// 0.1.1 correctly, as h2spec does for HTTP/2; docs/protocol.md sets out
// both, with the project's decisions where the specs are silent. It is for
// anyone who serves the protocol, in any language: `affordances conform`
// runs it from the command line, and [Run] from a Go test.
//
// [Run] discovers a site from its index (/.well-known/affordances.json),
// its AAL manifest and the graphs' nav from "/", then runs every check and
// returns a [Report]. A site that publishes AAL alone (a manifest, no
// index, no graph, as any PHP or Rails site may) is checked as AAL: its
// pages are found through their HTML, the checks of the Affordances
// protocol skip, saying so, and the AAL checks read each page's fragment
// (inline, linked, or named by the manifest) and its selectors against the
// HTML.
// Each [Result] names its check by a stable id ("v0.negotiation.vary"),
// quotes the rule it tests, says whether the rule is a must or a should,
// and keeps the exchange that decided it.
//
// The suite is read-only by default: it sends only calls that must be
// refused before anything runs (a cookie call with a bad Origin, an
// anonymous call of a session action, invalid input, a confirm action
// without confirm: true), and checks that the pages did not change. With
// [Options.AllowWrites] it also runs a public read-only action; with a
// test account too ([Options.Token], the agent's bearer token, and
// [Options.Cookies], the person's browser session, either or both), a
// harmless session action of its own choosing, its input taken from what
// the page offers. It follows no redirect, and names each request it sends
// in its User-Agent.
//
// A Go test runs the suite with [Test].
package conformance

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go/internal/crawl"
)

// Level says how strongly the spec asks for a rule.
type Level string

// The levels of a check, as in RFC 2119.
const (
	Must   Level = "must"
	Should Level = "should"
)

// Outcome is what a check found.
type Outcome string

// The outcomes of a check.
const (
	Pass Outcome = "pass"
	Fail Outcome = "fail"
	Skip Outcome = "skip" // the check could not run here; Reason says why
)

// Options configures [Run]. A nil *Options, and the zero value of every
// field, is the default.
type Options struct {
	// Token is a bearer token of a test account: the agent's credentials.
	// The suite reads the graphs, the site index and the AAL documents
	// with it and sends its calls with it, and so can check the order of
	// the steps after authentication (input before the guard, the guard
	// before confirm_required). Empty: Cookies serve instead; without
	// either the suite reads anonymously, and the checks that need an
	// account skip, each naming what it needs in [Result.Needs].
	Token string

	// AllowWrites lets the suite run real actions: a public read-only
	// action, and with Token one session action whose guard is true, whose
	// AAL metadata says it is reversible and affects only the requester's
	// own data, and whose input the suite can build from its schema. False:
	// only calls that must be refused are sent. A write the suite finds no
	// action for is not tested, and [Report.WritesNotTested] says so.
	AllowWrites bool

	// Cookies are the session cookies of the same test account in a
	// browser: the person's credentials. The suite reads the HTML pages and
	// the approval pages (docs/protocol.md decision 10) with them. Without
	// Token they serve for the graphs and the calls too, each call a cookie
	// call carrying the site's Origin (docs/protocol.md decision 4).
	// Without Cookies, the HTML is read with Token.
	Cookies []*http.Cookie

	// HTTPClient sends every request. Nil: a client with a 20-second
	// timeout. The suite sends with a copy of it that follows no
	// redirect: a page that answers 3xx is named as such, never taken for
	// the page it leads to.
	HTTPClient *http.Client

	// UserAgent is the User-Agent header of every request, so that a site
	// can tell the suite's requests from people's (and leave them out of
	// its statistics). Empty: "affordances-conform
	// (+https://github.com/affordances/affordances-go)".
	UserAgent string

	// Progress, when not nil, receives one line per check as it finishes,
	// and one for each wait: a call answered rate_limited (429) is sent
	// again after its Retry-After, up to 30 seconds a wait and 3 minutes a
	// run, so that a run right after another is not starved by the first
	// one's rate-limit probe.
	Progress io.Writer

	// MaxPages bounds the pages the suite asks for their graph while it
	// discovers the site. Zero: 50.
	MaxPages int
}

// Evidence is the exchange that decided a check.
type Evidence struct {
	Request     string      `json:"request"`               // the request line, the headers that matter and the body
	Status      int         `json:"status,omitempty"`      // the response's status
	Headers     http.Header `json:"headers,omitempty"`     // the response's headers
	BodyExcerpt string      `json:"bodyExcerpt,omitempty"` // the start of the response's body
	// InputFrom says, for a call, where each value of its input came
	// from: "post from data-aal-input on / ([data-aal=\"delete-post\"])".
	InputFrom string `json:"inputFrom,omitempty"`
}

// A Result is one check's outcome.
type Result struct {
	ID       string    `json:"id"`                 // stable, such as "v0.negotiation.vary"
	Section  string    `json:"section"`            // where the rule is: "docs/protocol.md §3 (Discovery)", "docs/protocol.md decision 3"
	Rule     string    `json:"rule"`               // the sentence of the spec the check tests
	Level    Level     `json:"level"`              // must or should
	Outcome  Outcome   `json:"outcome"`            // pass, fail or skip
	Reason   string    `json:"reason,omitempty"`   // why it failed or was skipped, or what it saw
	Evidence *Evidence `json:"evidence,omitempty"` // the exchange that decided it, when there was one
	// Needs names the credentials the check lacked, when it skipped (or
	// checked only some pages) for want of them, as the command line
	// names them: "--token or --cookie-jar" (an account: Options.Token or
	// Options.Cookies), "--cookie-jar" (a person's browser session:
	// Options.Cookies), "--token" (an agent's: Options.Token).
	Needs string `json:"needs,omitempty"`
}

// A Report is the outcome of every check of one run, in the order they ran.
type Report struct {
	BaseURL string `json:"baseURL"`
	// Unreachable, when not empty, says in one sentence that the site
	// could not be reached at all (no request of discovery got an answer),
	// why, and what to try: then no check ran, and Checks is empty.
	Unreachable string   `json:"unreachable,omitempty"`
	Pages       []string `json:"pages"` // the pages discovered
	Checks      []Result `json:"checks"`
	// WritesNotTested lists, when [Options.AllowWrites] was set, each
	// check of a write (v0.write.*) that ran none, as "id: why": a run
	// that lists any did not test all AllowWrites asked for, whether or
	// not it passed. Empty without AllowWrites, and on a site that
	// publishes AAL only, which has no actions to run.
	WritesNotTested []string      `json:"writesNotTested,omitempty"`
	Elapsed         time.Duration `json:"elapsed"`
}

// Passed reports whether the site could be reached and every must check
// passed or was skipped.
func (r *Report) Passed() bool {
	if r.Unreachable != "" {
		return false
	}
	for _, c := range r.Checks {
		if c.Level == Must && c.Outcome == Fail {
			return false
		}
	}
	return true
}

// Failed returns the checks that failed at level, in order.
func (r *Report) Failed(level Level) []Result {
	var out []Result
	for _, c := range r.Checks {
		if c.Level == level && c.Outcome == Fail {
			out = append(out, c)
		}
	}
	return out
}

// Result returns the result of the check id, and whether it ran.
func (r *Report) Result(id string) (Result, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return Result{}, false
}

// DefaultUserAgent is the User-Agent of the suite's requests when
// [Options.UserAgent] is empty.
const DefaultUserAgent = "affordances-conform (+https://github.com/affordances/affordances-go)"

// Run runs every check against the site at baseURL ("http://127.0.0.1:8080")
// and returns the report. A path in baseURL is a page of the site, where
// discovery starts: when the origin's /.well-known/ has no index or
// manifest, the suite reads those that page names in its Link headers, as
// for a site under a path prefix behind a proxy that forwards only the
// prefix (docs/protocol.md decision 13). It never returns nil: a site that
// cannot be reached at all is a report with [Report.Unreachable] and no
// check; one that stops answering during the run fails the checks that
// needed it. opts may be nil.
func Run(ctx context.Context, baseURL string, opts *Options) *Report {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 20 * time.Second}
	}
	o.HTTPClient = crawl.NoRedirects(o.HTTPClient)
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.MaxPages <= 0 {
		o.MaxPages = 50
	}
	start := time.Now()
	base, page := strings.TrimRight(baseURL, "/"), ""
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" && strings.Trim(u.EscapedPath(), "/") != "" {
		base, page = u.Scheme+"://"+u.Host, u.EscapedPath()
	}
	s := newSuite(ctx, base, page, &o)
	rep := &Report{BaseURL: s.base}
	s.discover()
	if !s.reached {
		rep.Unreachable = (&crawl.UnreachableError{URL: s.base, Err: s.indexX.err}).Error()
		rep.Pages, rep.Checks = []string{}, []Result{}
		rep.Elapsed = time.Since(start)
		return rep
	}
	rep.Pages = s.order
	for _, p := range s.aalPages {
		rep.Pages = append(rep.Pages, p.path)
	}
	for _, c := range checks {
		var v verdict
		if s.aalOnly && strings.HasPrefix(c.id, "v0.") {
			v = skip(aalOnlyReason)
		} else {
			v = c.run(s)
		}
		if n := s.needs(v.ex); v.outcome == Fail && n != "" {
			// The site asked the suite to sign in: no failure of the
			// site's, a check it could not make.
			v = needsSkip(n, v.ex, "%s: needs %s", v.ex.answered(s.base), n)
		}
		if x := s.signInLacking(); v.none && x != nil {
			// What the check looked for may be on the pages it could not
			// read.
			v.needs = s.needs(x)
			v.reason = fmt.Sprintf("%s; %s: needs %s", v.reason, x.answered(s.base), v.needs)
		}
		res := Result{ID: c.id, Section: c.section, Rule: c.rule, Level: c.level, Outcome: v.outcome, Reason: v.reason, Needs: v.needs}
		if v.ex != nil {
			res.Evidence = v.ex.evidence()
		}
		rep.Checks = append(rep.Checks, res)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%-6s %-6s %s\n", res.Outcome, res.Level, res.ID)
		}
		if o.AllowWrites && !s.aalOnly && strings.HasPrefix(res.ID, writePrefix) && res.Outcome == Skip {
			rep.WritesNotTested = append(rep.WritesNotTested, res.ID+": "+res.Reason)
		}
	}
	rep.Elapsed = time.Since(start)
	return rep
}

// writePrefix is the prefix of the ids of the checks that run real
// actions, under [Options.AllowWrites].
const writePrefix = "v0.write."

// Test runs the suite against baseURL and fails t once for each must that
// failed, with its rule, reason and evidence, or once when the site could
// not be reached; it logs each should that failed and each write
// AllowWrites asked for and the suite could not test
// ([Report.WritesNotTested]). It returns the report.
func Test(t testing.TB, baseURL string, opts *Options) *Report {
	t.Helper()
	rep := Run(t.Context(), baseURL, opts)
	if rep.Unreachable != "" {
		t.Error(rep.Unreachable)
	}
	for _, c := range rep.Checks {
		if c.Outcome != Fail {
			continue
		}
		msg := fmt.Sprintf("%s (%s, %s): %s\n  rule: %s%s", c.ID, c.Level, c.Section, c.Reason, c.Rule, c.Evidence.String())
		if c.Level == Must {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
	for _, w := range rep.WritesNotTested {
		t.Log("write not tested: " + w)
	}
	return rep
}

// String formats e for a failure message; nil is "".
func (e *Evidence) String() string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n  request: %s", strings.ReplaceAll(e.Request, "\n", "\n    "))
	if e.Status != 0 {
		fmt.Fprintf(&b, "\n  status: %d", e.Status)
	}
	for _, k := range []string{"Content-Type", "Vary", "Cache-Control", "Link", "Www-Authenticate"} {
		if v := e.Headers.Values(k); len(v) > 0 {
			fmt.Fprintf(&b, "\n  %s: %s", k, strings.Join(v, ", "))
		}
	}
	if e.BodyExcerpt != "" {
		fmt.Fprintf(&b, "\n  body: %s", e.BodyExcerpt)
	}
	if e.InputFrom != "" {
		fmt.Fprintf(&b, "\n  input from: %s", e.InputFrom)
	}
	return b.String()
}
