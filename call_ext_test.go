package affordances_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
)

const sameOrigin = "Origin: http://shop.test"

// TestCallSteps checks each step of docs/protocol.md §18, its error code and
// status (docs/protocol.md decision 2), and that the steps run in order: each case
// fails two steps at once and must report the earlier one.
func TestCallSteps(t *testing.T) {
	for _, tc := range []struct {
		name       string
		path, body string
		headers    []string
		wantStatus int
		wantCode   affordances.Code
	}{
		{"ok: public action, anonymous", "/", `{"action":"ping"}`, nil, 200, ""},
		{"body not JSON (docs/protocol.md decision 2)", "/", `{"action":`, nil, 400, affordances.InvalidInput},
		{"body not an object", "/", `["ping"]`, nil, 400, affordances.InvalidInput},
		{"body is null", "/", `null`, nil, 400, affordances.InvalidInput},
		{"action not a string", "/", `{"action":7}`, nil, 400, affordances.InvalidInput},
		{"confirm not a boolean", "/", `{"action":"ping","confirm":"yes"}`, nil, 400, affordances.InvalidInput},
		{"step 1: unknown action", "/", `{"action":"nope"}`, nil, 404, affordances.NotFound},
		{"step 1: action without expose is not callable (docs/protocol.md §26 (Security))", "/", `{"action":"hidden"}`, []string{"Authorization: Bearer admin"}, 404, affordances.NotFound},
		{"step 1: path without a route", "/nowhere", `{"action":"ping"}`, nil, 404, affordances.NotFound},
		{"step 1 before step 2: unknown action with a bad Origin", "/", `{"action":"nope"}`, []string{"Cookie: sid=s1", "Origin: https://evil.test"}, 404, affordances.NotFound},
		{"step 2: session action, anonymous (401)", "/", `{"action":"addNote","input":{"text":"hi"}}`, nil, 401, affordances.Unauthorized},
		{"step 2: bad bearer token (401)", "/", `{"action":"ping"}`, []string{"Authorization: Bearer forged"}, 401, affordances.Unauthorized},
		{"step 2: hidden from this requester (403)", "/", `{"action":"audit"}`, []string{"Authorization: Bearer good"}, 403, affordances.Unauthorized},
		{"step 2: hidden, anonymous (401)", "/", `{"action":"audit"}`, nil, 401, affordances.Unauthorized},
		{"step 2 before step 4: anonymous with bad input", "/", `{"action":"addNote","input":{"text":""}}`, nil, 401, affordances.Unauthorized},
		{"step 2 before step 4: bad Origin with bad input", "/", `{"action":"increment","input":{"by":99}}`, []string{"Cookie: sid=s1", "Origin: null"}, 403, affordances.Unauthorized},
		{"step 4: input fails the schema", "/", `{"action":"increment","input":{"by":99}}`, nil, 400, affordances.InvalidInput},
		{"step 4: unknown input field", "/", `{"action":"increment","input":{"by":1,"extra":true}}`, nil, 400, affordances.InvalidInput},
		{"step 4: input of the wrong type", "/", `{"action":"increment","input":"one"}`, nil, 400, affordances.InvalidInput},
		{"step 4: absent input is {} (docs/protocol.md decision 5)", "/", `{"action":"increment"}`, nil, 200, ""},
		{"step 4: null input is {}", "/", `{"action":"increment","input":null}`, nil, 200, ""},
		{"step 4: missing required field", "/", `{"action":"addNote","input":{}}`, []string{"Authorization: Bearer good"}, 400, affordances.InvalidInput},
		{"step 4: raw JSON schema", "/", `{"action":"raw","input":{"n":3}}`, nil, 400, affordances.InvalidInput},
		{"step 4 before step 5: bad input, guard false", "/", `{"action":"reset","input":{"x":1}}`, []string{"Authorization: Bearer good"}, 400, affordances.InvalidInput},
		{"step 5: guard false (409, its reason)", "/", `{"action":"reset","confirm":true}`, []string{"Authorization: Bearer good"}, 409, affordances.Unavailable},
		{"step 5 before step 6: guard false, no confirm", "/", `{"action":"reset"}`, []string{"Authorization: Bearer good"}, 409, affordances.Unavailable},
		{"unknown Call fields are ignored (docs/protocol.md decision 5)", "/", `{"action":"ping","input":{},"trace":"x","v":"0"}`, nil, 200, ""},
		{"action reports a domain failure (409)", "/", `{"action":"soldOut"}`, nil, 409, affordances.Unavailable},
		{"action fails unexpectedly (500)", "/", `{"action":"broken"}`, nil, 500, affordances.Internal},
		{"action panics (500)", "/", `{"action":"boom"}`, nil, 500, affordances.Internal},
		{"page missing after the route matched (404)", "/items/7", `{"action":"ping"}`, nil, 404, affordances.NotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, _ := testSite(t, nil)
			res := do(t, site.Handler(app), post(tc.path, tc.body, tc.headers...))
			if res.status != tc.wantStatus {
				t.Errorf("status: got %d, want %d (%s)", res.status, tc.wantStatus, res.body)
			}
			if res.code() != tc.wantCode {
				t.Errorf("code: got %q, want %q", res.code(), tc.wantCode)
			}
			if res.delta.OK != (tc.wantCode == "") {
				t.Errorf("ok: got %v, want %v", res.delta.OK, tc.wantCode == "")
			}
			if tc.wantCode != "" && res.delta.Error.Message == "" {
				t.Errorf("error without a message")
			}
			if tc.wantStatus == 401 && res.header.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("WWW-Authenticate: got %q, want Bearer", res.header.Get("WWW-Authenticate"))
			}
		})
	}
}

// TestInvalidInputIssues: invalid_input lists issues as JSON Pointers and
// sentences (docs/protocol.md decision 2).
func TestInvalidInputIssues(t *testing.T) {
	site, _ := testSite(t, nil)
	res := do(t, site.Handler(app), post("/", `{"action":"increment","input":{"by":0}}`))
	if res.code() != affordances.InvalidInput || len(res.delta.Error.Issues) != 1 {
		t.Fatalf("got %s, want one issue", res.body)
	}
	if is := res.delta.Error.Issues[0]; is.Path != "/by" || !strings.Contains(is.Message, "1") {
		t.Errorf("issue: got %+v, want path /by and a message naming the minimum", is)
	}
}

// TestNothingRunsOnRefusal: a refused call runs nothing, and a confirm
// action without confirm: true changes nothing (docs/protocol.md §19, step 6, Security).
func TestNothingRunsOnRefusal(t *testing.T) {
	site, b := testSite(t, nil)
	h := site.Handler(app)
	do(t, h, post("/", `{"action":"increment","input":{"by":3}}`))
	res := do(t, h, post("/", `{"action":"reset"}`, "Authorization: Bearer good"))
	if res.status != 428 || res.code() != affordances.ConfirmRequired {
		t.Fatalf("got %d %s, want 428 confirm_required", res.status, res.body)
	}
	if got, want := res.delta.Error.Message, "Reset the counter from 3 to 0."; got != want {
		t.Errorf("summary: got %q, want %q", got, want)
	}
	res = do(t, h, post("/", `{"action":"reset","confirm":false}`, "Authorization: Bearer good"))
	if res.code() != affordances.ConfirmRequired {
		t.Errorf("confirm false: got %q, want confirm_required", res.code())
	}
	for _, refused := range []*http.Request{
		post("/", `{"action":"reset","confirm":true}`, "Cookie: sid=s1"),
		post("/", `{"action":"reset","confirm":true}`),
		post("/", `{"action":"reset","confirm":true,"input":{"x":1}}`, "Authorization: Bearer good"),
	} {
		if res := do(t, h, refused); res.delta.OK {
			t.Errorf("refused call ran: %s", res.body)
		}
	}
	if n, _ := b.snapshot(); n != 3 || b.runs("reset") != 0 {
		t.Fatalf("counter %d, reset ran %d times; want 3 and 0", n, b.runs("reset"))
	}
	res = do(t, h, post("/", `{"action":"reset","confirm":true}`, "Authorization: Bearer good"))
	if !res.delta.OK {
		t.Fatalf("confirmed reset: got %s", res.body)
	}
	if n, _ := b.snapshot(); n != 0 {
		t.Errorf("counter after confirmed reset: got %d, want 0", n)
	}
}

// TestOriginRule checks docs/protocol.md decision 4: a cookie call must carry the
// site's exact origin; bearer and anonymous calls need none.
func TestOriginRule(t *testing.T) {
	for _, tc := range []struct {
		name       string
		siteOrigin string
		headers    []string
		wantStatus int
	}{
		{"cookie, same origin", "", []string{"Cookie: sid=s1", sameOrigin}, 200},
		{"cookie, same origin with default port", "", []string{"Cookie: sid=s1", "Origin: http://shop.test:80"}, 200},
		{"cookie, origin differs in case only", "", []string{"Cookie: sid=s1", "Origin: HTTP://Shop.Test"}, 200},
		{"cookie without Origin", "", []string{"Cookie: sid=s1"}, 403},
		{"cookie with Origin: null", "", []string{"Cookie: sid=s1", "Origin: null"}, 403},
		{"cookie, other host", "", []string{"Cookie: sid=s1", "Origin: http://evil.test"}, 403},
		{"cookie, wrong scheme", "", []string{"Cookie: sid=s1", "Origin: https://shop.test"}, 403},
		{"cookie, wrong port", "", []string{"Cookie: sid=s1", "Origin: http://shop.test:8080"}, 403},
		{"cookie, suffix host", "", []string{"Cookie: sid=s1", "Origin: http://shop.test.evil.test"}, 403},
		{"cookie, origin with a path", "", []string{"Cookie: sid=s1", "Origin: http://shop.test/x"}, 403},
		{"cookie of no session still needs Origin", "", []string{"Cookie: theme=dark"}, 403},
		{"cookie, configured origin matches", "https://shop.example", []string{"Cookie: sid=s1", "Origin: https://shop.example"}, 200},
		{"cookie, request host is not the configured origin", "https://shop.example", []string{"Cookie: sid=s1", sameOrigin}, 403},
		{"cookie, default port written with zeros (RFC 6454: a port is a number)", "", []string{"Cookie: sid=s1", "Origin: http://shop.test:0080"}, 200},
		{"cookie, port out of range", "", []string{"Cookie: sid=s1", "Origin: http://shop.test:65616"}, 403},
		{"cookie, configured origin beyond ASCII, Origin in A-labels as browsers send it", "https://bücher.example", []string{"Cookie: sid=s1", "Origin: https://xn--bcher-kva.example"}, 200},
		{"bearer without Origin is exempt", "", []string{"Authorization: Bearer good"}, 200},
		{"bearer with a cookie and a foreign Origin is exempt", "", []string{"Authorization: Bearer good", "Cookie: sid=s1", "Origin: http://evil.test"}, 200},
		{"anonymous without Origin", "", nil, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, b := testSite(t, &affordances.SiteOptions{Origin: tc.siteOrigin})
			res := do(t, site.Handler(app), post("/", `{"action":"increment"}`, tc.headers...))
			if res.status != tc.wantStatus {
				t.Errorf("status: got %d, want %d (%s)", res.status, tc.wantStatus, res.body)
			}
			if tc.wantStatus == 403 {
				if res.code() != affordances.Unauthorized {
					t.Errorf("code: got %q, want unauthorized", res.code())
				}
				if n, _ := b.snapshot(); n != 0 {
					t.Errorf("counter: got %d, want 0: a refused call ran", n)
				}
			}
		})
	}
}

// TestDeltas checks docs/protocol.md decision 5: changed with and without effects,
// availability flips in actionsAdded, removal in actionsRemoved, output,
// message and redirect.
func TestDeltas(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(app)
	bearer := "Authorization: Bearer good"

	// With effects: exactly the effect keys, a gone one as null; the
	// guard of reset flips from false to true.
	res := do(t, h, post("/", `{"action":"increment","input":{"by":2}}`, bearer))
	if got, want := mustJSON(res.delta.Changed), `{"counter":2,"milestone":null}`; got != want {
		t.Errorf("changed with effects: got %s, want %s", got, want)
	}
	if len(res.delta.ActionsAdded) != 1 || res.delta.ActionsAdded[0].Name != "reset" || !res.delta.ActionsAdded[0].Available {
		t.Errorf("actionsAdded: got %s, want reset now available", mustJSON(res.delta.ActionsAdded))
	}
	if res.delta.Message != "The counter is 2." {
		t.Errorf("message: got %q", res.delta.Message)
	}
	if res.delta.Output != nil {
		t.Errorf("output of a struct{} action: got %v, want none", res.delta.Output)
	}

	// No flip the second time.
	res = do(t, h, post("/", `{"action":"increment","input":{"by":3}}`, bearer))
	if got, want := mustJSON(res.delta.Changed), `{"counter":5,"milestone":"five"}`; got != want {
		t.Errorf("changed: got %s, want %s", got, want)
	}
	if len(res.delta.ActionsAdded) != 0 {
		t.Errorf("actionsAdded without a flip: got %s", mustJSON(res.delta.ActionsAdded))
	}

	// Without effects: every entity whose value differs, and only those.
	res = do(t, h, post("/", `{"action":"addNote","input":{"text":"hello"}}`, bearer))
	if got, want := mustJSON(res.delta.Changed), `{"notes":["hello"]}`; got != want {
		t.Errorf("changed without effects: got %s, want %s", got, want)
	}
	if res.delta.Redirect != "/" {
		t.Errorf("redirect: got %q, want /", res.delta.Redirect)
	}

	// Without effects, a value the action changed in place still shows.
	res = do(t, h, post("/", `{"action":"tally"}`, bearer))
	if got, want := mustJSON(res.delta.Changed), `{"tally":{"votes":1}}`; got != want {
		t.Errorf("changed after an in-place change: got %s, want %s", got, want)
	}

	// Output.
	res = do(t, h, post("/", `{"action":"ping"}`))
	if got, want := mustJSON(res.delta.Output), `{"pong":true}`; got != want {
		t.Errorf("output: got %s, want %s", got, want)
	}
	if res.delta.Changed != nil {
		t.Errorf("changed of a read-only call: got %s, want none", mustJSON(res.delta.Changed))
	}

	// Sign-out: the state reloads as nobody; the session actions flip
	// to unavailable; the admin's audit action is removed.
	res = do(t, h, post("/", `{"action":"signOut"}`, "Authorization: Bearer admin"))
	if got, want := mustJSON(res.delta.Changed), `{"viewer":""}`; got != want {
		t.Errorf("changed after sign-out: got %s, want %s", got, want)
	}
	if got, want := strings.Join(res.delta.ActionsRemoved, ","), "audit"; got != want {
		t.Errorf("actionsRemoved: got %s, want %s", got, want)
	}
	var flipped []string
	for _, d := range res.delta.ActionsAdded {
		if d.Available || d.Reason == "" {
			t.Errorf("%s: got available %v reason %q, want unavailable with a reason", d.Name, d.Available, d.Reason)
		}
		flipped = append(flipped, d.Name)
	}
	if got, want := strings.Join(flipped, ","), "addNote,tally,reset,signOut"; got != want {
		t.Errorf("actionsAdded after sign-out: got %s, want %s", got, want)
	}
	if got := res.header.Get("Set-Cookie"); got != "sid=; Max-Age=0" {
		t.Errorf("Set-Cookie from the action: got %q", got)
	}
}

// TestGraph checks a graph's shape (docs/protocol.md §7, "Action descriptor";
// docs/protocol.md decision 1): listed actions, availability and reasons.
func TestGraph(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(app)
	for _, tc := range []struct {
		name    string
		headers []string
		want    string // name:available, in order
	}{
		{"anonymous", nil, "ping:true increment:true addNote:false tally:false reset:false signOut:false boom:true broken:true soldOut:true raw:true"},
		{"signed in", []string{"Authorization: Bearer good"}, "ping:true increment:true addNote:true tally:true reset:false signOut:true boom:true broken:true soldOut:true raw:true"},
		{"admin", []string{"Authorization: Bearer admin"}, "ping:true increment:true addNote:true tally:true reset:false audit:true signOut:true boom:true broken:true soldOut:true raw:true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, h, get("/", tc.headers...))
			g := res.graph
			if g.V != "0" || g.Page != "/" || g.Route != "/" {
				t.Errorf("v, page, route: got %q %q %q", g.V, g.Page, g.Route)
			}
			var got []string
			for _, a := range g.Actions {
				got = append(got, fmt.Sprintf("%s:%v", a.Name, a.Available))
				if !a.Available && a.Reason == "" {
					t.Errorf("%s unavailable without a reason", a.Name)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("actions:\n got %s\nwant %s", strings.Join(got, " "), tc.want)
			}
		})
	}
	res := do(t, h, get("/"))
	reset, _ := res.action("reset")
	if reset.Reason != "Sign in to do this." {
		t.Errorf("anonymous reason: got %q", reset.Reason)
	}
	res = do(t, h, get("/", "Authorization: Bearer good"))
	reset, _ = res.action("reset")
	if reset.Reason != "The counter is already zero." || reset.Guard != "the counter is above zero" || reset.Expose != affordances.ExposeConfirm {
		t.Errorf("reset: got %s", mustJSON(reset))
	}
	inc, _ := res.action("increment")
	if got, want := string(inc.Input), `{"type":"object","properties":{"by":{"type":"integer","description":"how much to add","minimum":1,"maximum":10}},"additionalProperties":false}`; got != want {
		t.Errorf("inferred input schema:\n got %s\nwant %s", got, want)
	}
	if got, want := mustJSON(inc.Effects), `["counter","milestone"]`; got != want {
		t.Errorf("effects: got %s, want %s", got, want)
	}
	if got := mustJSON(res.graph.Nav); got != `[{"to":"/items/1","label":"Item 1"}]` {
		t.Errorf("nav: got %s", got)
	}
	item := do(t, h, get("/items/1"))
	if item.graph.Route != "/items/[id]" || item.graph.Page != "/items/1" || item.graph.Entities["id"] != "1" {
		t.Errorf("item graph: got %s", item.body)
	}
}

// TestLimits: the body limit (413) and the nesting limit of 64
// (docs/protocol.md decision 2).
func TestLimits(t *testing.T) {
	site, _ := testSite(t, &affordances.SiteOptions{MaxBodyBytes: 1024})
	h := site.Handler(app)
	big := `{"action":"ping","input":{},"pad":"` + strings.Repeat("x", 1100) + `"}`
	if res := do(t, h, post("/", big)); res.status != 413 || res.code() != affordances.InvalidInput {
		t.Errorf("body over the limit: got %d %q, want 413 invalid_input", res.status, res.code())
	}
	// The limit holds whatever the request says of its length: nothing
	// (chunked), or less than it sends.
	for _, length := range []int64{-1, 10, 1024} {
		r := post("/", big)
		r.ContentLength = length
		if res := do(t, h, r); res.status != 413 || !strings.Contains(res.delta.Error.Message, "larger than 1024 bytes") {
			t.Errorf("body over the limit, Content-Length %d: got %d %s, want 413 naming the limit", length, res.status, res.body)
		}
	}
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	// The Call object is level 1 and the pad array starts level 2.
	if res := do(t, h, post("/", `{"action":"ping","pad":`+nest(63)+`}`)); res.status != 200 {
		t.Errorf("nesting 64: got %d %s, want 200", res.status, res.body)
	}
	if res := do(t, h, post("/", `{"action":"ping","pad":`+nest(64)+`}`)); res.status != 400 || res.code() != affordances.InvalidInput {
		t.Errorf("nesting 65: got %d %q, want 400 invalid_input", res.status, res.code())
	}
	if res := do(t, h, post("/", `{"action":"ping","pad":"`+strings.Repeat("[", 100)+`"}`)); res.status != 200 {
		t.Errorf("brackets inside a string do not nest: got %d", res.status)
	}
	// Invalid UTF-8 would be read as U+FFFD, another input than the one
	// sent (RFC 8259, section 8.1).
	if res := do(t, h, post("/", "{\"action\":\"ping\",\"input\":{\"q\":\"tote\xff\"}}")); res.status != 400 || !strings.Contains(res.delta.Error.Message, "UTF-8") {
		t.Errorf("invalid UTF-8: got %d %s, want 400 invalid_input naming UTF-8", res.status, res.body)
	}
	// Validation time grows with values and number sizes: both are bounded
	// before any schema runs.
	bigSite, _ := testSite(t, nil)
	bh := bigSite.Handler(app)
	values := `{"action":"ping","pad":[` + strings.Repeat("1,", 10_000) + `1]}`
	if res := do(t, bh, post("/", values)); res.status != 400 || !strings.Contains(res.delta.Error.Message, "10000 values") {
		t.Errorf("10,001 values: got %d %s, want 400 naming the bound", res.status, res.body)
	}
	for _, n := range []string{"1e999999", "-1e309", strings.Repeat("1", 65)} {
		if res := do(t, bh, post("/", `{"action":"increment","input":{"by":`+n+`}}`)); res.status != 400 || !strings.Contains(res.delta.Error.Message, "64-bit float") {
			t.Errorf("number %.20s: got %d %s, want 400 naming the bound", n, res.status, res.body)
		}
	}
	listSite := affordances.NewSite(nil)
	type list struct {
		L []int `json:"l"`
	}
	affordances.AddAction(listSite.Route("/", nil), &affordances.Action{Name: "sum", Description: "Sums a list of numbers.", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, list) (int, error) { return 0, nil })
	res := do(t, listSite.Handler(nil), post("/", `{"action":"sum","input":{"l":[`+strings.Repeat(`"x",`, 99)+`"x"]}}`))
	if res.status != 400 || len(res.delta.Error.Issues) != 20 || !strings.Contains(res.delta.Error.Message, "100 problems, the first 20 listed") {
		t.Errorf("100 bad items: got %d, %d issues, %q; want 400 with the first 20 and the count", res.status, len(res.delta.Error.Issues), res.delta.Error.Message)
	}
	defaultSite, _ := testSite(t, nil)
	mib := `{"action":"ping","pad":"` + strings.Repeat("x", 1<<20) + `"}`
	if res := do(t, defaultSite.Handler(app), post("/", mib)); res.status != 413 {
		t.Errorf("default limit is 1 MiB: got %d, want 413", res.status)
	}
}

// TestLoneSurrogates: a string escape that is half of a UTF-16 surrogate
// pair without its other half is no character (RFC 8259, section 8.2);
// encoding/json would read it as U+FFFD, another input than the one sent,
// so the call is refused as invalid_input, 400 (docs/protocol.md decision 2), and
// nothing runs. A whole pair is a character like any other.
func TestLoneSurrogates(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"a high surrogate in the input", `{"action":"addNote","input":{"text":"tee\ud800"}}`, 400},
		{"a low surrogate in the input", `{"action":"addNote","input":{"text":"tee\udc00"}}`, 400},
		{"a pair the wrong way round", `{"action":"addNote","input":{"text":"\ude00\ud83d"}}`, 400},
		{"a high surrogate before another escape", `{"action":"addNote","input":{"text":"\ud83d\u0041"}}`, 400},
		{"a high surrogate before a character", `{"action":"addNote","input":{"text":"\ud83dA"}}`, 400},
		{"two high surrogates", `{"action":"addNote","input":{"text":"\ud83d\ud83d\ude00"}}`, 400},
		{"in a name", `{"action":"addNote","input":{"text":"hi","\udfff":1}}`, 400},
		{"in a member the call does not read", `{"action":"addNote","input":{"text":"hi"},"pad":["\uDBFF"]}`, 400},
		{"in the action", `{"action":"addNote\ud800","input":{"text":"hi"}}`, 400},
		{"a pair", `{"action":"addNote","input":{"text":"tee \ud83d\ude00"}}`, 200},
		{"a pair in capitals", `{"action":"addNote","input":{"text":"tee \uD83D\uDE00"}}`, 200},
		{"an escaped backslash before u", `{"action":"addNote","input":{"text":"C:\\ud800"}}`, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, b := testSite(t, nil)
			res := do(t, site.Handler(app), post("/", tc.body, "Authorization: Bearer good"))
			if res.status != tc.status {
				t.Fatalf("got %d %s, want %d", res.status, res.body, tc.status)
			}
			if tc.status == 400 && (res.code() != affordances.InvalidInput || !strings.Contains(res.delta.Error.Message, "surrogate")) {
				t.Errorf("got %s %q, want invalid_input naming the surrogate", res.code(), res.delta.Error.Message)
			}
			if got, want := b.ran["addNote"], map[int]int{200: 1, 400: 0}[tc.status]; got != want {
				t.Errorf("addNote ran %d times, want %d", got, want)
			}
		})
	}
}

// TestRateLimit: over the limit, rate_limited with Retry-After in whole
// seconds (docs/protocol.md §19, step 3; docs/protocol.md decision 5: every call that passed step 2
// counts, also those that later fail).
func TestRateLimit(t *testing.T) {
	site, b := testSite(t, &affordances.SiteOptions{Limit: affordances.Limit{Calls: 1, Per: time.Minute, Burst: 3}})
	h := site.Handler(app)
	for i, body := range []string{`{"action":"increment"}`, `{"action":"increment","input":{"by":99}}`, `{"action":"soldOut"}`} {
		if res := do(t, h, post("/", body)); res.status == 429 {
			t.Fatalf("call %d limited too early", i)
		}
	}
	res := do(t, h, post("/", `{"action":"increment"}`))
	if res.status != 429 || res.code() != affordances.RateLimited {
		t.Fatalf("fourth call: got %d %q, want 429 rate_limited", res.status, res.code())
	}
	if got := res.header.Get("Retry-After"); got != "60" {
		t.Errorf("Retry-After: got %q, want 60", got)
	}
	if n, _ := b.snapshot(); n != 1 {
		t.Errorf("counter: got %d, want 1", n)
	}
	// Another requester has a bucket of their own; refusals before step 3
	// do not count.
	if res := do(t, h, post("/", `{"action":"increment"}`, "Authorization: Bearer good")); res.status != 200 {
		t.Errorf("another principal: got %d, want 200", res.status)
	}
	for range 5 {
		do(t, h, post("/", `{"action":"addNote","input":{"text":"x"}}`, "Cookie: sid=s1"))
	}
	if res := do(t, h, post("/", `{"action":"ping"}`, "Authorization: Bearer good")); res.status != 200 {
		t.Errorf("calls refused at step 2 counted: got %d", res.status)
	}
}

// TestCookieCannotRescueABadToken: a bearer call is authenticated without
// its cookies, even by an application that looks at the cookie first, so a
// bad token with a good cookie and a foreign Origin is refused (401) and
// nothing runs (docs/protocol.md decision 4).
func TestCookieCannotRescueABadToken(t *testing.T) {
	ran := 0
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: func(r *http.Request) (affordances.Principal, error) {
		if c, err := r.Cookie("sid"); err == nil && c.Value == "s1" {
			return affordances.Principal{ID: "u1"}, nil // cookie first, Method left empty
		}
		if r.Header.Get("Authorization") == "Bearer good" {
			return affordances.Principal{ID: "u1"}, nil
		}
		return affordances.Principal{}, nil
	}})
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "act", Description: "Counts a run by a signed-in requester.", Expose: affordances.ExposeSession},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) { ran++; return struct{}{}, nil })
	h := site.Handler(nil)
	for _, tc := range []struct {
		name       string
		headers    []string
		wantStatus int
	}{
		{"bad token, good cookie, foreign Origin", []string{"Authorization: Bearer junk", "Cookie: sid=s1", "Origin: https://evil.test"}, 401},
		{"good token, cookie ignored", []string{"Authorization: Bearer good", "Cookie: sid=nobody"}, 200},
		{"cookie on its own, same origin", []string{"Cookie: sid=s1", sameOrigin}, 200},
	} {
		before := ran
		res := do(t, h, post("/", `{"action":"act"}`, tc.headers...))
		if res.status != tc.wantStatus {
			t.Errorf("%s: got %d %s, want %d", tc.name, res.status, res.body, tc.wantStatus)
		}
		if ranNow := ran - before; (ranNow == 1) != (tc.wantStatus == 200) {
			t.Errorf("%s: the action ran %d times", tc.name, ranNow)
		}
	}
	// An empty first Cookie line does not make a cookie call anonymous.
	r := post("/", `{"action":"act"}`, "Origin: https://evil.test")
	r.Header.Add("Cookie", "")
	r.Header.Add("Cookie", "sid=s1")
	if res := do(t, h, r); res.status != 403 {
		t.Errorf("cookie on a second line, foreign Origin: got %d, want 403", res.status)
	}
	if ran != 2 {
		t.Errorf("the action ran %d times, want 2", ran)
	}
}

// TestVisibleChangingItsMindIsRefused: an action visible when the call
// was authorized but no longer once the state is loaded is refused (403)
// and never runs without its guard (docs/protocol.md §19, steps 2 and 5).
func TestVisibleChangingItsMindIsRefused(t *testing.T) {
	ran, asked := 0, 0
	site := affordances.NewSite(nil)
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "act", Description: "Counts a run, visible only the first time it is asked.", Expose: affordances.ExposePublic,
		Visible: func(*affordances.Request) bool { asked++; return asked == 1 },
		Guard:   func(context.Context, *affordances.Request) (bool, string) { return false, "Never." }},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) { ran++; return struct{}{}, nil })
	res := do(t, site.Handler(nil), post("/", `{"action":"act"}`))
	if res.status != 403 || ran != 0 {
		t.Errorf("got %d %s and %d runs, want 403 and none", res.status, res.body, ran)
	}
}

// TestPanicsAreContained: a panic in Visible hides the action; a panic in
// Authenticate is internal; a panic in a Guard shows the action unavailable
// and answers its call internal, not unavailable (a bug, not the domain's
// no); a typed nil *Error is internal; the server keeps serving (DESIGN.md:
// the request path never panics).
func TestPanicsAreContained(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: func(r *http.Request) (affordances.Principal, error) {
		if r.Header.Get("Authorization") == "Bearer panic" {
			panic("authenticator bug")
		}
		return affordances.Principal{}, nil
	}})
	home := site.Route("/", nil)
	affordances.AddAction(home, &affordances.Action{Name: "shy", Description: "Does nothing; its Visible panics.", Expose: affordances.ExposePublic,
		Visible: func(r *affordances.Request) bool { panic("visible bug") }}, noop)
	affordances.AddAction(home, &affordances.Action{Name: "nilError", Description: "Returns a typed nil error.", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			var e *affordances.Error
			return struct{}{}, e
		})
	affordances.AddAction(home, &affordances.Action{Name: "brokenGuard", Description: "Does nothing; its Guard panics.", Expose: affordances.ExposePublic,
		Guard: func(context.Context, *affordances.Request) (bool, string) { panic("guard bug") }}, noop)
	h := site.Handler(nil)
	if res := do(t, h, get("/")); len(res.graph.Actions) != 2 || res.graph.Actions[0].Name != "nilError" || res.graph.Actions[1].Available {
		t.Errorf("graph: got %s, want shy hidden and brokenGuard unavailable", res.body)
	}
	if res := do(t, h, post("/", `{"action":"brokenGuard"}`)); res.status != 500 || res.code() != affordances.Internal {
		t.Errorf("panicking guard: got %d %s, want 500 internal", res.status, res.body)
	}
	if res := do(t, h, post("/", `{"action":"shy"}`, "Authorization: Bearer x")); res.status != 401 {
		t.Errorf("call to a hidden action: got %d %s", res.status, res.body)
	}
	if res := do(t, h, get("/", "Authorization: Bearer panic")); res.status != 500 || res.code() != affordances.Internal {
		t.Errorf("panicking authenticator: got %d %s, want 500 internal", res.status, res.body)
	}
	if res := do(t, h, post("/", `{"action":"nilError"}`)); res.status != 500 || res.code() != affordances.Internal {
		t.Errorf("typed nil *Error: got %d %s, want 500 internal", res.status, res.body)
	}
}

// TestServerKeepsServing: after a panic in an action the server answers the
// next call (docs/protocol.md decision 2, internal).
func TestServerKeepsServing(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(app)
	res := do(t, h, post("/", `{"action":"broken"}`))
	if strings.Contains(string(res.body), "hunter2") {
		t.Errorf("internal error leaks its cause: %s", res.body)
	}
	do(t, h, post("/", `{"action":"boom"}`))
	if res := do(t, h, post("/", `{"action":"ping"}`)); !res.delta.OK {
		t.Errorf("after a panic: got %s, want ok", res.body)
	}
}

// TestNamesSentTwice: a name twice in one object of a call (action,
// confirm, or an input field) would be read as its last value here and
// maybe its first by a gate in front: refused, nothing runs. Two Origin
// headers on a cookie call, or on a form, are refused too.
func TestNamesSentTwice(t *testing.T) {
	site, b := testSite(t, nil)
	h := site.Handler(app)
	for _, body := range []string{
		`{"action":"reset","confirm":false,"confirm":true}`,
		`{"action":"ping","action":"increment"}`,
		`{"action":"increment","input":{"by":1,"by":9}}`,
		`{"action":"raw","input":{"n":[{"a":1,"a":2}]}}`,
	} {
		res := do(t, h, post("/", body, "Authorization: Bearer good"))
		if res.status != 400 || !strings.Contains(res.delta.Error.Message, "twice") {
			t.Errorf("%s: got %d %s, want 400 naming the name sent twice", body, res.status, res.body)
		}
	}
	if n, _ := b.snapshot(); n != 0 || b.runs("reset") != 0 {
		t.Errorf("counter %d, resets %d: something ran", n, b.runs("reset"))
	}
	// The same names in different objects are fine.
	if res := do(t, h, post("/", `{"action":"raw","input":{"n":2,"m":{"n":1}}}`)); res.status != 200 {
		t.Errorf("one name in two objects: got %d %s", res.status, res.body)
	}
	r := post("/", `{"action":"increment"}`, "Cookie: sid=s1")
	r.Header["Origin"] = []string{"http://shop.test", "http://evil.example"}
	if res := do(t, h, r); res.status != 403 {
		t.Errorf("two Origin headers: got %d %s, want 403", res.status, res.body)
	}
}
