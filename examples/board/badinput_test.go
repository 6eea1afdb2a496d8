package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/sqldb"
)

// A badFixture is a fresh board with alice signed in by cookie, bob and
// carol with tokens, and a token of bob's that a new one replaced.
type badFixture struct {
	b       *Board
	base    string
	alice   *http.Client // cookie session
	plain   *http.Client
	offsite int64 // a task of the private team-offsite board
}

const (
	asAnon     = "anon"
	asAlice    = "alice-cookie"
	asToken    = "alice-token"
	asBob      = "bob-token"   // a member of both boards, owner of none
	asCarol    = "carol-token" // a member of the public board only
	asRevoked  = "bob-old-token"
	asBadToken = "bad-token"
	noOrigin   = "\x00none" // an Origin value meaning: send no Origin header
	jsonType   = affordances.MediaType
	formType   = "application/x-www-form-urlencoded"
	public     = "/boards/website-relaunch"
	private    = "/boards/team-offsite"
)

func newBadFixture(t *testing.T) *badFixture {
	t.Helper()
	b, srv := testBoard(t)
	ctx := t.Context()
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	f := &badFixture{b: b, base: srv.URL, plain: &http.Client{CheckRedirect: noRedirect}}
	for _, u := range []struct{ email, token string }{
		{"bob@example.com", asRevoked}, {"bob@example.com", asBob}, {"carol@example.com", asCarol},
	} {
		if err := b.store.setToken(ctx, u.email, u.token); err != nil {
			t.Fatal(err)
		}
	}
	jar, _ := cookiejar.New(nil)
	f.alice = &http.Client{Jar: jar, CheckRedirect: noRedirect}
	resp, _ := f.send(t, badCase{as: asAlice, method: "POST", path: "/login", header: http.Header{"Content-Type": {formType}},
		body: url.Values{"_action": {"signIn"}, "email": {demoEmail}, "password": {demoPassword}}.Encode()})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("alice signs in: got %d, want 303", resp.StatusCode)
	}
	_, g := newClient(t, srv, demoToken).graph(private)
	f.offsite = taskID(t, g, "Book the train tickets")
	return f
}

// snapshot is the whole store and the boards as bob and carol read them.
func (f *badFixture) snapshot(t *testing.T) string {
	t.Helper()
	dump, err := sqldb.DumpSQL(context.Background(), f.b.store.db, false)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(dump)
	for _, r := range []struct{ token, path string }{
		{asBob, "/boards"}, {asBob, public}, {asBob, private}, {asCarol, "/boards"}, {asCarol, public},
	} {
		req, _ := http.NewRequest(http.MethodGet, f.base+r.path, nil)
		req.Header.Set("Accept", affordances.MediaType)
		req.Header.Set("Authorization", "Bearer "+r.token)
		resp, err := f.plain.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var g affordances.Graph
		json.Unmarshal(body, &g)
		e, _ := json.Marshal(g.Entities)
		fmt.Fprintf(&b, "GET %s as %s: %d %s\n", r.path, r.token, resp.StatusCode, e)
	}
	return b.String()
}

type badCase struct {
	name   string
	as     string
	method string
	path   string
	header http.Header // in an Origin, {base}, {https}, {localhost} and {port} are the site's origin and variants of it
	body   string      // {offsite} is a task of the private board
	setup  func(t *testing.T, f *badFixture)
	status int
	code   string // "" for an answer that is no delta (an HTML page, a redirect)
	replay bool   // the answer is a replay: Idempotent-Replayed: true
}

func (f *badFixture) send(t *testing.T, c badCase) (*http.Response, []byte) {
	t.Helper()
	body := strings.ReplaceAll(c.body, "{offsite}", fmt.Sprint(f.offsite))
	req, err := http.NewRequest(c.method, f.base+c.path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	client := f.plain
	switch c.as {
	case asAlice:
		client = f.alice
	case asToken:
		req.Header.Set("Authorization", "Bearer "+demoToken)
	case asBob, asCarol, asRevoked:
		req.Header.Set("Authorization", "Bearer "+c.as)
	case asBadToken:
		req.Header.Set("Authorization", "Bearer not-a-token")
	}
	port := f.base[strings.LastIndex(f.base, ":"):]
	origin := strings.NewReplacer("{base}", f.base, "{https}", strings.Replace(f.base, "http:", "https:", 1),
		"{localhost}", strings.Replace(f.base, "127.0.0.1", "localhost", 1), "{port}", strings.TrimSuffix(f.base, port)+":1")
	for k, vs := range c.header {
		for _, v := range vs {
			req.Header.Add(k, origin.Replace(v))
		}
	}
	if o := req.Header.Get("Origin"); o == noOrigin {
		req.Header.Del("Origin")
	} else if c.as == asAlice && o == "" {
		req.Header.Set("Origin", f.base)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp, out
}

// A fixturePool lends demos to parallel cases, each to one case at a time
// and to at most perFixture cases: few enough calls that no principal meets
// the rate limit. The parent test owns them.
type fixturePool struct {
	parent *testing.T
	mu     sync.Mutex
	idle   []*badFixture
	used   map[*badFixture]int
}

const perFixture = 8

func (p *fixturePool) get() *badFixture {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		f := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return f
	}
	p.mu.Unlock()
	return newBadFixture(p.parent)
}

func (p *fixturePool) put(f *badFixture) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used[f]++; p.used[f] < perFixture {
		p.idle = append(p.idle, f)
	}
}

// runBadCases runs each case on a board shared with other cases, or on a
// fresh one when the case has a setup of its own.
func runBadCases(t *testing.T, cases []badCase) {
	pool := &fixturePool{parent: t, used: map[*badFixture]int{}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var f *badFixture
			if c.setup != nil {
				f = newBadFixture(t)
				c.setup(t, f)
			} else {
				f = pool.get()
				defer pool.put(f)
			}
			before := f.snapshot(t)
			resp, body := f.send(t, c)
			if resp.StatusCode != c.status {
				t.Errorf("got status %d, want %d; body %.300s", resp.StatusCode, c.status, body)
			}
			if c.code != "" {
				var d affordances.Delta
				if err := json.Unmarshal(body, &d); err != nil {
					t.Errorf("got %.300s, want a delta: %v", body, err)
				} else if d.OK || d.Error == nil || string(d.Error.Code) != c.code {
					t.Errorf("got %.300s, want error code %s", body, c.code)
				}
				if ct := resp.Header.Get("Content-Type"); ct != affordances.MediaType {
					t.Errorf("got Content-Type %q, want %q", ct, affordances.MediaType)
				}
			}
			if got := resp.Header.Get("Idempotent-Replayed"); (got == "true") != c.replay {
				t.Errorf("got Idempotent-Replayed %q, want replayed %v", got, c.replay)
			}
			if after := f.snapshot(t); after != before {
				t.Errorf("the store or a board changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

func call(action string, input any) string {
	b, _ := json.Marshal(map[string]any{"action": action, "input": input})
	return string(b)
}

// stateForms are the state-changing HTML forms of the site, each as its
// page posts it.
var stateForms = []struct {
	as, path string
	values   url.Values
}{
	{asAlice, public, url.Values{"_action": {"createTask"}, "title": {"Sneak in"}}},
	{asAlice, public, url.Values{"_action": {"moveTask"}, "task": {"1"}, "status": {"done"}}},
	{asAlice, public, url.Values{"_action": {"deleteTask"}, "task": {"1"}}},
	{asAlice, private, url.Values{"_action": {"inviteMember"}, "email": {"carol@example.com"}}},
	{asAlice, private, url.Values{"_action": {"deleteBoard"}, "_confirm": {"yes"}}},
	{asAlice, "/login", url.Values{"_action": {"signOut"}}},
	{asAnon, "/login", url.Values{"_action": {"signIn"}, "email": {demoEmail}, "password": {demoPassword}}},
}

// TestBadInputBoard sends the board bad requests of every kind (issue 14,
// section 4): each gets the status and code of docs/protocol.md decision 2, and
// nothing changes, in the store or on the boards bob and carol read.
func TestBadInputBoard(t *testing.T) {
	start := time.Now()
	j := func() http.Header { return http.Header{"Content-Type": {jsonType}} }
	jh := func(k string, v ...string) http.Header { h := j(); h[k] = v; return h }
	create := call("createTask", map[string]any{"title": "Sneak in"})
	create2 := call("createTask", map[string]any{"title": "Sneak in twice"})
	big := strings.Repeat("x", 1<<20)
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.WriteField("_action", "createTask")
	mw.WriteField("title", "Sneak in")
	fw, _ := mw.CreateFormFile("attachment", "big.txt")
	fw.Write([]byte(big))
	mw.Close()
	withKey := func(key string) func(t *testing.T, f *badFixture) {
		return func(t *testing.T, f *badFixture) {
			resp, body := f.send(t, badCase{as: asToken, method: "POST", path: public, header: jh("Idempotency-Key", key), body: create})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("first call: got %d %s, want 200", resp.StatusCode, body)
			}
		}
	}
	// fiveGuesses spends an account's sign-in guesses (issue 25's sweep).
	// Here they come from one address, whose own limit they spend too;
	// TestSignInGuessesPerAccount sends each from another.
	fiveGuesses := func(email string) func(t *testing.T, f *badFixture) {
		return func(t *testing.T, f *badFixture) {
			for i := range 5 {
				resp, body := f.send(t, badCase{as: asAnon, method: "POST", path: "/login", header: http.Header{"Content-Type": {jsonType}},
					body: call("signIn", map[string]any{"email": email, "password": "guess" + fmt.Sprint(i)})})
				if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusTooManyRequests {
					t.Fatalf("guess %d at %s: got %d %s, want 401, or 429 past the address's own limit", i, email, resp.StatusCode, body)
				}
			}
		}
	}
	cases := []badCase{
		// Malformed JSON bodies.
		{name: "body not JSON", as: asToken, method: "POST", path: public, header: j(), body: `{"action":`, status: 400, code: "invalid_input"},
		{name: "empty body", as: asToken, method: "POST", path: public, header: j(), body: ``, status: 400, code: "invalid_input"},
		{name: "body a JSON array", as: asToken, method: "POST", path: public, header: j(), body: `[` + create + `]`, status: 400, code: "invalid_input"},
		{name: "trailing garbage", as: asToken, method: "POST", path: public, header: j(), body: create + `x`, status: 400, code: "invalid_input"},
		{name: "no action", as: asToken, method: "POST", path: public, header: j(), body: `{"input":{"title":"Sneak in"}}`, status: 400, code: "invalid_input"},
		{name: "unknown action", as: asToken, method: "POST", path: public, header: j(), body: call("dropTable", map[string]any{}), status: 404, code: "not_found"},
		{name: "body over 1 MiB", as: asToken, method: "POST", path: public, header: j(), body: call("createTask", map[string]any{"title": big}), status: 413, code: "invalid_input"},
		{name: "nested 65 deep", as: asToken, method: "POST", path: public, header: j(),
			body: `{"action":"createTask","input":{"title":"x","y":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}}`, status: 400, code: "invalid_input"},
		{name: "invalid UTF-8", as: asToken, method: "POST", path: public, header: j(), body: "{\"action\":\"createTask\",\"input\":{\"title\":\"Sneak \xfe in\"}}", status: 400, code: "invalid_input"},
		{name: "raw NUL byte in a string", as: asToken, method: "POST", path: public, header: j(), body: "{\"action\":\"createTask\",\"input\":{\"title\":\"Sneak\x00in\"}}", status: 400, code: "invalid_input"},
		{name: "huge task id", as: asToken, method: "POST", path: public, header: j(), body: `{"action":"moveTask","input":{"task":1e999999,"status":"done"}}`, status: 400, code: "invalid_input"},
		{name: "task id a string", as: asToken, method: "POST", path: public, header: j(), body: `{"action":"moveTask","input":{"task":"1","status":"done"}}`, status: 400, code: "invalid_input"},
		{name: "task id past int64", as: asToken, method: "POST", path: public, header: j(), body: `{"action":"deleteTask","input":{"task":9223372036854775808}}`, status: 400, code: "invalid_input"},
		{name: "status not in the enum", as: asToken, method: "POST", path: public, header: j(), body: `{"action":"moveTask","input":{"task":1,"status":"archived"}}`, status: 400, code: "invalid_input"},
		{name: "case-folded Action key", as: asToken, method: "POST", path: public, header: j(), body: `{"Action":"createTask","input":{"title":"Sneak in"}}`, status: 400, code: "invalid_input"},
		{name: "body null", as: asToken, method: "POST", path: public, header: j(), body: `null`, status: 400, code: "invalid_input"},
		{name: "body a JSON string", as: asToken, method: "POST", path: public, header: j(), body: `"createTask"`, status: 400, code: "invalid_input"},
		{name: "input an array", as: asToken, method: "POST", path: public, header: j(), body: `{"action":"createTask","input":["Sneak in"]}`, status: 400, code: "invalid_input"},
		{name: "nested 1000 deep", as: asToken, method: "POST", path: public, header: j(),
			body: `{"action":"createTask","input":{"title":"x","y":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}}`, status: 400, code: "invalid_input"},
		{name: "NUL byte after the body", as: asToken, method: "POST", path: public, header: j(), body: create + "\x00", status: 400, code: "invalid_input"},
		{name: "a lone surrogate in a title", as: asToken, method: "POST", path: public, header: j(), body: `{"action":"createTask","input":{"title":"Sneak \ud800 in"}}`, status: 400, code: "invalid_input"},
		// Guessing at one account's password (issue 25's sweep): past five
		// guesses the right password is refused too, and an email without
		// an account is answered alike.
		{name: "the right password after five guesses", as: asAnon, method: "POST", path: "/login", header: j(), body: call("signIn", map[string]any{"email": demoEmail, "password": demoPassword}), setup: fiveGuesses(demoEmail), status: 429, code: "rate_limited"},
		{name: "a sixth guess at an email without an account", as: asAnon, method: "POST", path: "/login", header: j(), body: call("signIn", map[string]any{"email": "nobody@example.com", "password": "guess"}), setup: fiveGuesses("nobody@example.com"), status: 429, code: "rate_limited"},
		{name: "the right password after five guesses, by form", as: asAnon, method: "POST", path: "/login", header: http.Header{"Content-Type": {formType}, "Sec-Fetch-Site": {"same-origin"}}, body: url.Values{"_action": {"signIn"}, "email": {demoEmail}, "password": {demoPassword}}.Encode(), setup: fiveGuesses(demoEmail), status: 429},
		{name: "case-folded input key", as: asToken, method: "POST", path: public, header: j(), body: `{"action":"createTask","input":{"Title":"Sneak in"}}`, status: 400, code: "invalid_input"},
		{name: "a date that is none", as: asToken, method: "POST", path: public, header: j(), body: call("createTask", map[string]any{"title": "Sneak in", "due": "2026-13-45"}), status: 400, code: "invalid_input"},
		{name: "an email that is none", as: asToken, method: "POST", path: public, header: j(), body: call("inviteMember", map[string]any{"email": "not an email"}), status: 400, code: "invalid_input"},
		// confirm.
		{name: "deleteBoard without confirm", as: asToken, method: "POST", path: private, header: j(), body: `{"action":"deleteBoard"}`, status: 428, code: "confirm_required"},
		{name: "deleteBoard confirm yes", as: asToken, method: "POST", path: private, header: j(), body: `{"action":"deleteBoard","confirm":"yes"}`, status: 400, code: "invalid_input"},
		{name: "deleteBoard confirm 1", as: asToken, method: "POST", path: private, header: j(), body: `{"action":"deleteBoard","confirm":1}`, status: 400, code: "invalid_input"},
		{name: "deleteBoard confirm null", as: asToken, method: "POST", path: private, header: j(), body: `{"action":"deleteBoard","confirm":null}`, status: 400, code: "invalid_input"},
		{name: "deleteBoard confirm true as a string", as: asToken, method: "POST", path: private, header: j(), body: `{"action":"deleteBoard","confirm":"true"}`, status: 400, code: "invalid_input"},
		{name: "deleteBoard confirm an object", as: asToken, method: "POST", path: private, header: j(), body: `{"action":"deleteBoard","confirm":{}}`, status: 400, code: "invalid_input"},
		// Origin on a cookie call.
		{name: "cookie call without Origin", as: asAlice, method: "POST", path: public, header: jh("Origin", noOrigin), body: create, status: 403, code: "unauthorized"},
		{name: "cookie call Origin null", as: asAlice, method: "POST", path: public, header: jh("Origin", "null"), body: create, status: 403, code: "unauthorized"},
		{name: "cookie call Origin other scheme", as: asAlice, method: "POST", path: public, header: jh("Origin", "{https}"), body: create, status: 403, code: "unauthorized"},
		{name: "cookie call Origin other host", as: asAlice, method: "POST", path: public, header: jh("Origin", "{localhost}"), body: create, status: 403, code: "unauthorized"},
		{name: "cookie call Origin other port", as: asAlice, method: "POST", path: public, header: jh("Origin", "{port}"), body: create, status: 403, code: "unauthorized"},
		{name: "cookie call Origin with a path", as: asAlice, method: "POST", path: public, header: jh("Origin", "{base}/boards"), body: create, status: 403, code: "unauthorized"},
		{name: "cookie call Origin evil", as: asAlice, method: "POST", path: private, header: jh("Origin", "http://evil.example"), body: `{"action":"deleteBoard","confirm":true}`, status: 403, code: "unauthorized"},
		{name: "cookie call with two Origins, the site's first", as: asAlice, method: "POST", path: public, header: http.Header{"Content-Type": {jsonType}, "Origin": {"{base}", "http://evil.example"}}, body: create, status: 403, code: "unauthorized"},
		// A name twice in one object: one reader takes the first, another the last.
		{name: "confirm false then true", as: asToken, method: "POST", path: private, header: j(), body: `{"action":"deleteBoard","confirm":false,"confirm":true}`, status: 400, code: "invalid_input"},
		{name: "action named twice", as: asToken, method: "POST", path: public, header: j(), body: `{"action":"search","action":"createTask","input":{"title":"a"}}`, status: 400, code: "invalid_input"},
		{name: "an input field twice", as: asToken, method: "POST", path: public, header: j(), body: `{"action":"createTask","input":{"title":"a","title":"b"}}`, status: 400, code: "invalid_input"},
		// IDOR: a private board carol is no member of, a board bob does not own.
		{name: "carol reads the private board", as: asCarol, method: "GET", path: private, header: http.Header{"Accept": {jsonType}}, status: 404, code: "not_found"},
		{name: "carol downloads the private board", as: asCarol, method: "GET", path: private + "/tasks.csv", status: 404},
		{name: "a bad token downloads the public board", as: asBadToken, method: "GET", path: public + "/tasks.csv", status: 401},
		{name: "carol creates a task on the private board", as: asCarol, method: "POST", path: private, header: j(), body: create, status: 404, code: "not_found"},
		{name: "carol moves a private task there", as: asCarol, method: "POST", path: private, header: j(), body: `{"action":"moveTask","input":{"task":{offsite},"status":"done"}}`, status: 404, code: "not_found"},
		{name: "carol moves a private task from the public board", as: asCarol, method: "POST", path: public, header: j(), body: `{"action":"moveTask","input":{"task":{offsite},"status":"done"}}`, status: 404, code: "not_found"},
		{name: "carol deletes a private task from the public board", as: asCarol, method: "POST", path: public, header: j(), body: `{"action":"deleteTask","input":{"task":{offsite}}}`, status: 404, code: "not_found"},
		{name: "carol searches the private board", as: asCarol, method: "POST", path: private, header: j(), body: call("search", map[string]any{"q": "train"}), status: 404, code: "not_found"},
		{name: "carol deletes the private board", as: asCarol, method: "POST", path: private, header: j(), body: `{"action":"deleteBoard","confirm":true}`, status: 404, code: "not_found"},
		{name: "bob deletes a board he does not own", as: asBob, method: "POST", path: private, header: j(), body: `{"action":"deleteBoard","confirm":true}`, status: 409, code: "unavailable"},
		{name: "bob invites to a board he does not own", as: asBob, method: "POST", path: private, header: j(), body: call("inviteMember", map[string]any{"email": "carol@example.com"}), status: 409, code: "unavailable"},
		// Tokens.
		{name: "replaced token", as: asRevoked, method: "POST", path: public, header: j(), body: create, status: 401, code: "unauthorized"},
		{name: "unknown token", as: asBadToken, method: "POST", path: public, header: j(), body: create, status: 401, code: "unauthorized"},
		{name: "unknown token on a public action", as: asBadToken, method: "POST", path: public, header: j(), body: call("search", map[string]any{"q": "the"}), status: 401, code: "unauthorized"},
		{name: "anonymous session action", as: asAnon, method: "POST", path: public, header: j(), body: create, status: 401, code: "unauthorized"},
		// Idempotency misuse.
		{name: "idempotency key with a space", as: asToken, method: "POST", path: public, header: jh("Idempotency-Key", "a b"), body: create, status: 400, code: "invalid_input"},
		{name: "idempotency key not ASCII", as: asToken, method: "POST", path: public, header: jh("Idempotency-Key", "clé"), body: create, status: 400, code: "invalid_input"},
		{name: "idempotency key of 256 characters", as: asToken, method: "POST", path: public, header: jh("Idempotency-Key", strings.Repeat("k", 256)), body: create, status: 400, code: "invalid_input"},
		{name: "idempotency key empty", as: asToken, method: "POST", path: public, header: jh("Idempotency-Key", ""), body: create, status: 400, code: "invalid_input"},
		{name: "two idempotency keys", as: asToken, method: "POST", path: public, header: jh("Idempotency-Key", "k1", "k2"), body: create, status: 400, code: "invalid_input"},
		{name: "idempotency key reused with another body", as: asToken, method: "POST", path: public, header: jh("Idempotency-Key", "same-key"), body: create2, setup: withKey("same-key"), status: 422, code: "invalid_input"},
		{name: "idempotency key replayed", as: asToken, method: "POST", path: public, header: jh("Idempotency-Key", "same-key"), body: create, setup: withKey("same-key"), status: 200, replay: true},
		// Traversal in fragment paths.
		{name: "fragment traversal", as: asAnon, method: "GET", path: "/.well-known/agent-affordances/../../etc/passwd.json", status: 404},
		{name: "fragment traversal encoded dots", as: asAnon, method: "GET", path: "/.well-known/agent-affordances/%2e%2e/%2e%2e/etc/passwd.json", status: 404, code: "not_found"},
		{name: "fragment traversal encoded slashes", as: asAnon, method: "GET", path: "/.well-known/agent-affordances/..%2f..%2fetc%2fpasswd.json", status: 404, code: "not_found"},
		{name: "fragment traversal backslashes", as: asAnon, method: "GET", path: "/.well-known/agent-affordances/..%5c..%5cetc%5cpasswd.json", status: 404, code: "not_found"},
		{name: "fragment traversal double-encoded", as: asAnon, method: "GET", path: "/.well-known/agent-affordances/%252e%252e/%252e%252e/etc/passwd.json", status: 404, code: "not_found"},
		// Methods that must not run a call.
		{name: "PUT a call", as: asToken, method: "PUT", path: public, header: j(), body: create, status: 404},
		{name: "PATCH a call", as: asToken, method: "PATCH", path: public, header: j(), body: create, status: 404},
		{name: "DELETE a call", as: asToken, method: "DELETE", path: private, header: j(), body: `{"action":"deleteBoard","confirm":true}`, status: 404},
		{name: "GET with a call body", as: asToken, method: "GET", path: public, header: jh("Accept", jsonType), body: create, status: 200},
		// Form bodies.
		{name: "form over 1 MiB", as: asAlice, method: "POST", path: public, header: http.Header{"Content-Type": {formType}}, body: "_action=createTask&title=" + big, status: 413},
		{name: "multipart form over 1 MiB", as: asAlice, method: "POST", path: public, header: http.Header{"Content-Type": {mw.FormDataContentType()}}, body: mp.String(), status: 413},
		{name: "form with invalid UTF-8", as: asAlice, method: "POST", path: public, header: http.Header{"Content-Type": {formType}}, body: "_action=createTask&title=Sneak%FE", status: 400},
		{name: "form a browser says is same-site", as: asAlice, method: "POST", path: public, header: http.Header{"Content-Type": {formType}, "Sec-Fetch-Site": {"same-site"}}, body: "_action=createTask&title=Sneak", status: 403},
		{name: "form with a bad escape", as: asAlice, method: "POST", path: public, header: http.Header{"Content-Type": {formType}}, body: "_action=createTask&title=%zz", status: 400},
	}
	// Cross-site forms on every state-changing HTML form.
	for _, fm := range stateForms {
		action := fm.values.Get("_action")
		cases = append(cases,
			badCase{name: "cross-site form " + action + " on " + fm.path, as: fm.as, method: "POST", path: fm.path,
				header: http.Header{"Content-Type": {formType}, "Sec-Fetch-Site": {"cross-site"}}, body: fm.values.Encode(), status: 403},
			badCase{name: "foreign-origin form " + action + " on " + fm.path, as: fm.as, method: "POST", path: fm.path,
				header: http.Header{"Content-Type": {formType}, "Origin": {"http://evil.example"}}, body: fm.values.Encode(), status: 403},
			badCase{name: "other-scheme form " + action + " on " + fm.path, as: fm.as, method: "POST", path: fm.path,
				header: http.Header{"Content-Type": {formType}, "Origin": {"{https}"}, "Sec-Fetch-Site": {"same-origin"}}, body: fm.values.Encode(), status: 403})
	}
	t.Cleanup(func() { t.Logf("%d cases in %v", len(cases), time.Since(start)) })
	runBadCases(t, cases)
}

// TestBadInputControls proves the matrix able to fail: each state-changing
// form, posted from the site's own page, and a good call by cookie and by
// token, change what the snapshot reads.
func TestBadInputControls(t *testing.T) {
	create := call("createTask", map[string]any{"title": "Sneak in"})
	cases := []badCase{
		{name: "a call with a token", as: asToken, method: "POST", path: public, header: http.Header{"Content-Type": {jsonType}}, body: create},
		{name: "a cookie call with the site's Origin", as: asAlice, method: "POST", path: public, header: http.Header{"Content-Type": {jsonType}}, body: create},
		{name: "deleteBoard with confirm true", as: asToken, method: "POST", path: private, header: http.Header{"Content-Type": {jsonType}}, body: `{"action":"deleteBoard","confirm":true}`},
	}
	for _, fm := range stateForms {
		cases = append(cases, badCase{name: "form " + fm.values.Get("_action") + " on " + fm.path, as: fm.as, method: "POST", path: fm.path,
			header: http.Header{"Content-Type": {formType}, "Sec-Fetch-Site": {"same-origin"}}, body: fm.values.Encode()})
	}
	runControlCases(t, cases)
}

// runControlCases runs each case on a fresh board and wants a change in
// the snapshot.
func runControlCases(t *testing.T, cases []badCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newBadFixture(t)
			before := f.snapshot(t)
			resp, body := f.send(t, c)
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusSeeOther {
				t.Errorf("got status %d, want 200 or 303; body %.300s", resp.StatusCode, body)
			}
			if f.snapshot(t) == before {
				t.Errorf("got the same snapshot after it, want a change")
			}
		})
	}
}
