package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/crawl"
	"github.com/affordances/affordances-go/internal/htmlcheck"
)

// A check is one rule of the specs, and how to test it.
type check struct {
	id, section, rule string
	level             Level
	run               func(*suite) verdict
}

// checks are the suite's checks, in the order Run runs and reports them,
// each group from the file of the part of the protocol it checks. The
// order is part of the suite: some checks read what those before them sent
// (v0.status.* the deltas of the calls, v0.status.origin-403 the Origin
// probes, v0.write.changed the write), and the rate-limit probe goes last.
var checks = slices.Concat(
	discoveryChecks(), // discovery.go: the site index, and negotiation of a page's graph
	headerChecks(),    // headers.go: the headers of graphs, deltas and HTML pages
	shapeChecks(),     // shapes.go: the documents against their schemas
	indexChecks(),     // index.go: the site index against the graphs
	callChecks(),      // calls.go: what the first steps of a call refuse
	originChecks(),    // origin.go: the Origin rule of cookie calls
	guardChecks(),     // calls.go: input, guard, and nothing refused ran
	writeChecks(),     // writes.go: actions run with --allow-writes
	confirmChecks(),   // confirm.go: confirm actions and human approval
	deltaChecks(),     // deltas.go: the status and shape of every delta
	aalChecks(),       // aal.go: the AAL manifest, fragments and selectors
	sizeChecks(),      // size.go: a graph's size
	privacyChecks(),   // privacy.go: no personal data in URLs and entities
	rateLimitChecks(), // deltas.go: rate_limited, last
	oauthChecks(),     // oauth.go: sites that take OAuth access tokens
)

// A verdict is what one check found, and the exchange that decided it.
type verdict struct {
	outcome Outcome
	reason  string
	ex      *exchange
	needs   string // the credentials it lacked, as Result.Needs
	// none says the check skipped for finding nothing to check: pages
	// that asked the suite to sign in may hold it (Run says so).
	none bool
}

func pass(ex *exchange, format string, args ...any) verdict {
	return verdict{outcome: Pass, reason: fmt.Sprintf(format, args...), ex: ex}
}

func fail(ex *exchange, format string, args ...any) verdict {
	return verdict{outcome: Fail, reason: fmt.Sprintf(format, args...), ex: ex}
}

func skip(format string, args ...any) verdict {
	return verdict{outcome: Skip, reason: fmt.Sprintf(format, args...)}
}

// none is the verdict of a check that found nothing to check ("no
// confirm action is available to this requester").
func none(format string, args ...any) verdict {
	return verdict{outcome: Skip, reason: fmt.Sprintf(format, args...), none: true}
}

// needsSkip is the verdict of a check that could not run for want of the
// credentials needs names; ex, when not nil, is the answer that said so.
func needsSkip(needs string, ex *exchange, format string, args ...any) verdict {
	return verdict{outcome: Skip, reason: fmt.Sprintf(format, args...), ex: ex, needs: needs}
}

// needsAccount is the verdict of a check that needs an authenticated
// requester, when the suite has no credentials; ok is true when it has.
func (s *suite) needsAccount() (verdict, bool) {
	if n := s.lacks(agent); n != "" {
		return needsSkip(n, nil, "needs %s", n), false
	}
	return verdict{}, true
}

// Where the rules the checks test are, in docs/protocol.md.
const (
	secMedia     = "docs/protocol.md §2 (Media type)"
	secDiscovery = "docs/protocol.md §3 (Discovery)"
	secGraph     = "docs/protocol.md §7 (Graph)"
	secAction    = "docs/protocol.md §13 (Action descriptor)"
	secCall      = "docs/protocol.md §18 (Call)"
	secSecurity  = "docs/protocol.md §26 (Security)"
	secIndex     = "docs/protocol.md §24 (Site index)"
	secVersion   = "docs/protocol.md §27 (Versioning)"
	secAALMan    = "docs/protocol.md §29 (Manifest) and decision 7"
	secAALFrag   = "docs/protocol.md §30 (Fragments) and decision 7"
	secAALValid  = "docs/protocol.md §38 (Validation and caps) and decision 7"
	secAALMeet   = "docs/protocol.md decision 9"
	secC1        = "docs/protocol.md decision 1"
	secC2        = "docs/protocol.md decision 2"
	secC3        = "docs/protocol.md decision 3"
	secC4        = "docs/protocol.md decision 4"
	secC5        = "docs/protocol.md decision 5"
	secC10       = "docs/protocol.md decision 10"
	secC11       = "docs/protocol.md decision 11"
	secC12       = "docs/protocol.md decision 12"
)

// needPages is the verdict of a check that needs a discovered graph. When
// none was found and the pages asked the suite to sign in, the check
// needs credentials; else it fails.
func (s *suite) needPages() (verdict, bool) {
	if len(s.order) > 0 {
		return verdict{}, true
	}
	if x := s.signInLacking(); x != nil {
		n := s.needs(x)
		return needsSkip(n, x, "no graph was found: %s: needs %s", x.answered(s.base), n), false
	}
	return fail(s.get("/", affordances.MediaType, agent), "no graph was found at / or through the index"), false
}

// eachPage runs f on every discovered page and fails at the first failure.
// A page whose answer asked the suite for credentials it lacks is no
// failure: the check passes on the others and says what it needs, or
// skips when it checked none.
func eachPage(s *suite, f func(p *page) (verdict, bool)) verdict {
	if v, ok := s.needPages(); !ok {
		return v
	}
	var needed *verdict
	checked := 0
	for _, p := range s.each() {
		v, ok := f(p)
		if ok {
			checked++
			continue
		}
		if n := s.needs(v.ex); n != "" {
			if needed == nil {
				needed = &verdict{ex: v.ex, needs: n, reason: fmt.Sprintf("%s: needs %s", v.ex.answered(s.base), n)}
			}
			continue
		}
		return v
	}
	if needed == nil {
		return pass(nil, "%d pages", len(s.order))
	}
	needed.outcome = Skip
	if checked > 0 {
		needed.outcome = Pass
		needed.reason = fmt.Sprintf("%d of %d pages; %s", checked, len(s.order), needed.reason)
	}
	return *needed
}

// probe returns what send sent and why, the first time key is asked for;
// later, what it returned then. The probes the checks share are sent once.
func (s *suite) probe(key string, send func() (*exchange, string)) (*exchange, string) {
	if s.probes == nil {
		s.probes = map[string]probeResult{}
	}
	if r, ok := s.probes[key]; ok {
		return r.x, r.why
	}
	x, why := send()
	s.probes[key] = probeResult{x, why}
	return x, why
}

type probeResult struct {
	x   *exchange
	why string
}

// originTarget is an action whose input the suite can make invalid, so a
// call that passes the origin rule by mistake still runs nothing.
func (s *suite) originTarget() (*target, any) {
	var in any
	pick := func(pub bool) *target {
		return s.find(func(_ *page, a affordances.ActionDescriptor) bool {
			v, ok := invalidInput(a.Input)
			if ok && (a.Expose == affordances.ExposePublic) == pub {
				in = v
				return true
			}
			return false
		})
	}
	t := pick(true)
	if t == nil {
		t = pick(false)
	}
	return t, in
}

// sessionTarget is a session or confirm action with a valid input.
func (s *suite) sessionTarget() *target {
	return s.findCall(func(_ *page, a affordances.ActionDescriptor) bool { return authed(a) })
}

// anonymousCall calls a session or confirm action with no credentials,
// with the fields of extra added to the call, and with an input its schema
// refuses when invalid; why says why it could not.
func (s *suite) anonymousCall(extra map[string]any, invalid bool) (*exchange, string) {
	var t *target
	if invalid {
		t = s.find(func(_ *page, a affordances.ActionDescriptor) bool {
			_, ok := invalidInput(a.Input)
			return ok && authed(a)
		})
		if t != nil {
			t.input, _ = invalidInput(t.action.Input)
		}
	} else {
		t = s.sessionTarget()
	}
	if t == nil {
		return nil, "no session action the suite can build an input for"
	}
	return s.callAs(t, nobody, extra), ""
}

// wantCode passes when x was answered with the error code want; what says
// what x sent. A nil x found nothing to send, for the reason why.
func wantCode(x *exchange, why string, want affordances.Code, what string) verdict {
	if x == nil {
		return none("%s", why)
	}
	if c := x.code(); c != want {
		return fail(x, "%s: got code %q, want %s", what, c, want)
	}
	return pass(x, "%s", want)
}

// userCall calls t's action with its input as the agent (the token, or
// the session with the site's Origin), with confirm: true when confirm.
func (s *suite) userCall(t *target, confirm bool) *exchange {
	var extra map[string]any
	if confirm {
		extra = map[string]any{"confirm": true}
	}
	return s.callAs(t, agent, extra)
}

// callAs calls t's action with its input as who, with the fields of extra
// added to the call; the exchange says where the input came from.
func (s *suite) callAs(t *target, who crawl.Reader, extra map[string]any) *exchange {
	body := map[string]any{"action": t.action.Name, "input": t.input}
	for k, v := range extra {
		body[k] = v
	}
	x := s.call(t.page.path, who, nil, body)
	x.inputFrom = t.from
	return x
}

// notFound GETs a path no site has, once: under the path prefix every
// route of the index shares, for a site mounted under one
// (docs/protocol.md decision 13), where the site, not its host, answers.
func (s *suite) notFound() []*exchange {
	x, _ := s.probe("not found", func() (*exchange, string) {
		return s.get(s.prefix()+"/.conformance/no-such-page-7d1f", affordances.MediaType, agent), ""
	})
	return []*exchange{x}
}

// prefix returns the first path segment every route of the index starts
// with, "/app", or "" when they share none.
func (s *suite) prefix() string {
	if s.index == nil || len(s.index.Routes) == 0 {
		return ""
	}
	var prefix string
	for i, rt := range s.index.Routes {
		first, _, found := strings.Cut(strings.TrimPrefix(rt.Route, "/"), "/")
		if !found || strings.HasPrefix(first, "[") || (i > 0 && first != prefix) {
			return ""
		}
		prefix = first
	}
	return "/" + prefix
}

// wholeSeconds reports whether s is a Retry-After in whole seconds.
func wholeSeconds(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// routeMatches reports whether path is a page of the route pattern, each
// [param] segment matching one non-empty segment.
func routeMatches(pattern, path string) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if strings.HasPrefix(ps[i], "[") && strings.HasSuffix(ps[i], "]") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if ps[i] != xs[i] {
			return false
		}
	}
	return true
}

// rawEqual reports whether a and b are the same JSON value; two empty ones
// are equal.
func rawEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// parseHTML parses a page's HTML, for the checks that query it with
// selectors.
func parseHTML(body []byte) (*htmlcheck.Page, error) { return htmlcheck.Parse(body) }
