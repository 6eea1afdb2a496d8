package main

// Tests of what the app publishes for agents (agents.go): its pages'
// graphs under /app, the calls an agent makes with ada's bearer token and
// a person's browser with her cookie, each carried out by the app's own
// POST handler, and what the HTML head carries for agents.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
)

// An agent calls the app's pages as a client of the protocol does, with a
// bearer token (or, with token "", a cookie and the site's Origin).
type agent struct {
	t      *testing.T
	base   string
	token  string
	cookie string // a session cookie's value, for a cookie call
}

// answer is a graph or delta response, decoded.
type answer struct {
	status int
	header http.Header
	graph  affordances.Graph
	delta  affordances.Delta
}

func (ag *agent) send(method, path, body string) answer {
	ag.t.Helper()
	req, _ := http.NewRequest(method, ag.base+path, strings.NewReader(body))
	req.Header.Set("Accept", affordances.MediaType)
	if body != "" {
		req.Header.Set("Content-Type", affordances.MediaType)
	}
	if ag.token != "" {
		req.Header.Set("Authorization", "Bearer "+ag.token)
	}
	if ag.cookie != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: ag.cookie})
		req.Header.Set("Origin", ag.base)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		ag.t.Fatal(err)
	}
	defer res.Body.Close()
	a := answer{status: res.StatusCode, header: res.Header}
	var raw json.RawMessage
	if err := json.NewDecoder(res.Body).Decode(&raw); err != nil {
		ag.t.Fatalf("%s %s: got %d, not JSON: %v", method, path, res.StatusCode, err)
	}
	json.Unmarshal(raw, &a.graph)
	json.Unmarshal(raw, &a.delta)
	return a
}

func (ag *agent) get(path string) answer { return ag.send("GET", path, "") }

// call calls action on the page at path with input (JSON), confirmed or not.
func (ag *agent) call(path, action, input string, confirm bool) answer {
	return ag.send("POST", path, `{"action":"`+action+`","input":`+input+`,"confirm":`+map[bool]string{true: "true", false: "false"}[confirm]+`}`)
}

func (a answer) code() affordances.Code {
	if a.delta.Error == nil {
		return ""
	}
	return a.delta.Error.Code
}

// titles returns the titles of the links entity of a graph or a delta's
// changed.
func titles(t *testing.T, v any) []string {
	t.Helper()
	b, _ := json.Marshal(v)
	var links []Link
	if err := json.Unmarshal(b, &links); err != nil {
		t.Fatalf("links: %s: %v", b, err)
	}
	var out []string
	for _, l := range links {
		out = append(out, l.Title)
	}
	return out
}

// TestGraphs: every page speaks of itself by its full path, /app
// included; the one-segment public page catches none of the app's own
// pages; a page needing a session lists its actions as unavailable to
// nobody.
func TestGraphs(t *testing.T) {
	srv := serve(t)
	ada := &agent{t: t, base: srv.URL, token: testToken}
	nobody := &agent{t: t, base: srv.URL}

	g := ada.get("/app/links/")
	if g.status != 200 || g.graph.Page != "/app/links/" || g.graph.Route != "/app/links/" {
		t.Fatalf("/app/links/: got %d page %q route %q, want 200 /app/links/", g.status, g.graph.Page, g.graph.Route)
	}
	if got := titles(t, g.graph.Entities["links"]); len(got) != 6 || !slices.Contains(got, "Birthday ideas for Grace") {
		t.Errorf("ada's links: got %q, want her six, the private one too", got)
	}
	var names []string
	for _, a := range g.graph.Actions {
		names = append(names, a.Name)
	}
	if want := []string{"addLink", "markRead", "deleteLink"}; !slices.Equal(names, want) {
		t.Errorf("actions: got %q, want %q", names, want)
	}
	var nav []string
	for _, n := range g.graph.Nav {
		nav = append(nav, n.To)
	}
	for _, want := range []string{"/app/links/?show=unread", "/app/tags/go/", "/app/ada"} {
		if !slices.Contains(nav, want) {
			t.Errorf("nav: got %q, want %s among them", nav, want)
		}
	}

	tagged := ada.get("/app/tags/go/")
	if tagged.graph.Page != "/app/tags/go/" || tagged.graph.Route != "/app/tags/[tag]/" || tagged.graph.Entities["tag"] != "go" {
		t.Errorf("/app/tags/go/: got page %q route %q tag %v", tagged.graph.Page, tagged.graph.Route, tagged.graph.Entities["tag"])
	}
	if got := titles(t, tagged.graph.Entities["links"]); !slices.Equal(got, []string{"Effective Go", "Routing Enhancements for Go 1.22"}) {
		t.Errorf("/app/tags/go/ lists %q", got)
	}

	public := nobody.get("/app/ada")
	if public.graph.Route != "/app/[user]" || public.graph.Entities["name"] != "Ada Lovelace" {
		t.Errorf("/app/ada: got route %q entities %v", public.graph.Route, public.graph.Entities)
	}
	if got := titles(t, public.graph.Entities["links"]); len(got) != 5 || slices.Contains(got, "Birthday ideas for Grace") {
		t.Errorf("ada's public links: got %q, want five, not the private one", got)
	}
	if b, _ := json.Marshal(public.graph.Entities); strings.Contains(string(b), `"read"`) || strings.Contains(string(b), "@example.com") {
		t.Errorf("the public page's graph says what its HTML does not: %s", b)
	}

	anon := nobody.get("/app/links/")
	for _, a := range anon.graph.Actions {
		if a.Available || a.Reason != "Sign in to change your links." {
			t.Errorf("%s for nobody: available %v, reason %q", a.Name, a.Available, a.Reason)
		}
	}

	for _, path := range []string{"/app/login", "/app/about", "/app/nobody", "/app/.conformance/nothing"} {
		if a := ada.get(path); a.status != 404 || a.code() != affordances.NotFound {
			t.Errorf("the graph of %s: got %d %q, want a not_found delta", path, a.status, a.code())
		}
	}
	// The app's own pages are the app's: no Link to a graph on them.
	b := newBrowser(t, srv)
	for _, path := range []string{"/app/login", "/app/about"} {
		r := b.get(path)
		if r.StatusCode != 200 || r.Header.Get("Link") != "" {
			t.Errorf("%s: got %d with Link %q, want the app's page and no Link", path, r.StatusCode, r.Header.Get("Link"))
		}
	}

	// An agent with the token reads ada's page, and gets no session.
	req, _ := http.NewRequest("GET", srv.URL+"/app/links/", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	page := newBrowser(t, srv).do(req)
	if page.StatusCode != 200 || !strings.Contains(page.body, "Birthday ideas for Grace") || page.Header.Get("Set-Cookie") != "" {
		t.Errorf("ada's page read with her token: got %d, Set-Cookie %q", page.StatusCode, page.Header.Get("Set-Cookie"))
	}

	var index affordances.SiteIndex
	res, err := http.Get(srv.URL + affordances.IndexPath)
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(res.Body).Decode(&index)
	res.Body.Close()
	var routes []string
	for _, r := range index.Routes {
		routes = append(routes, r.Route)
	}
	if want := []string{"/app/links/", "/app/tags/[tag]/", "/app/[user]"}; !slices.Equal(routes, want) {
		t.Errorf("the index's routes: got %q, want %q", routes, want)
	}
}

// TestAgentCalls: an agent's calls are carried out by the app's own POST
// handlers, as the user of the bearer token: a link added, the app's
// refusal in the app's words, another's link not found; and the token
// opens none of the app's handlers directly.
func TestAgentCalls(t *testing.T) {
	srv := serve(t)
	ada := &agent{t: t, base: srv.URL, token: testToken}

	d := ada.call("/app/links/", "addLink", `{"url":"https://go.dev/ref/spec","title":"The Go spec","tags":"go reference","private":true}`, false)
	if d.status != 200 || !d.delta.OK || d.delta.Redirect != "/app/links/" || d.header.Get("Set-Cookie") != "" {
		t.Fatalf("addLink: got %d %+v, Set-Cookie %q; want ok, redirected to /app/links/, no cookie", d.status, d.delta, d.header.Get("Set-Cookie"))
	}
	if got := titles(t, d.delta.Changed["links"]); len(got) != 7 || got[0] != "The Go spec" {
		t.Errorf("addLink's changed links: got %q, want The Go spec first of 7", got)
	}
	person := signIn(t, srv, demoEmail, demoPassword)
	if l := person.links()[0]; l.Title != "The Go spec" || !l.Private || strings.Join(l.Tags, " ") != "go reference" {
		t.Errorf("ada's newest link, as the app's API says: %+v", l)
	}

	for _, tc := range []struct {
		name, path, action, input string
		code                      affordances.Code
		message                   string
	}{
		{"the app refuses the address", "/app/links/", "addLink", `{"url":"ftp://nope"}`, affordances.InvalidInput, "Enter a web address that starts with http:// or https://."},
		{"the app refuses a tag", "/app/links/", "addLink", `{"url":"https://a.example/","tags":"Bad_Tag"}`, affordances.InvalidInput, "“bad_tag” is not a tag: use letters, digits and dashes, up to 30."},
		{"grace's link is not ada's", "/app/links/", "markRead", `{"id":7,"read":true}`, affordances.NotFound, "No such link. It may have been deleted."},
		{"the schema refuses first", "/app/links/", "markRead", `{"id":"one"}`, affordances.InvalidInput, ""},
		{"no adding on a tag's page", "/app/tags/go/", "addLink", `{"url":"https://a.example/"}`, affordances.NotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := ada.call(tc.path, tc.action, tc.input, false)
			if d.code() != tc.code || (tc.message != "" && d.delta.Error.Message != tc.message) {
				t.Errorf("got %d %+v, want %s %q", d.status, d.delta.Error, tc.code, tc.message)
			}
		})
	}
	if n := len(person.links()); n != 7 {
		t.Errorf("after the refusals ada has %d links, want 7", n)
	}

	read := ada.call("/app/tags/go/", "markRead", `{"id":5,"read":true}`, false)
	if !read.delta.OK || read.delta.Changed["unread"] != float64(4) {
		t.Errorf("markRead: got %+v, want ok and 4 unread", read.delta)
	}

	// The token is the site's to check: posted to the app's own handler
	// it opens nothing, for the app's CSRF check holds.
	req, _ := http.NewRequest("POST", srv.URL+"/app/links/", strings.NewReader(url.Values{"url": {"https://b.example/"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a bearer form post to the app's handler: got %d, want 403", res.StatusCode)
	}
	if bad := (&agent{t: t, base: srv.URL, token: "wrong"}).call("/app/links/", "addLink", `{"url":"https://c.example/"}`, false); bad.status != 401 {
		t.Errorf("a wrong token: got %d %+v, want 401", bad.status, bad.delta.Error)
	}
}

// TestDeleteConfirm: deleteLink asks first, with the link as the app's own
// delete page names it; nothing is deleted until the call is confirmed;
// then the app's handler deletes it.
func TestDeleteConfirm(t *testing.T) {
	srv := serve(t)
	ada := &agent{t: t, base: srv.URL, token: testToken}
	ask := ada.call("/app/links/", "deleteLink", `{"id":5}`, false)
	if ask.status != 428 || ask.code() != affordances.ConfirmRequired || ask.delta.Error.Message != "Delete “Effective Go” (https://go.dev/doc/effective_go). This cannot be undone." {
		t.Fatalf("deleteLink without confirm: got %d %+v", ask.status, ask.delta.Error)
	}
	if got := titles(t, ada.get("/app/links/").graph.Entities["links"]); !slices.Contains(got, "Effective Go") {
		t.Fatalf("asking deleted: %q", got)
	}
	done := ada.call("/app/links/", "deleteLink", `{"id":5}`, true)
	if !done.delta.OK || slices.Contains(titles(t, done.delta.Changed["links"]), "Effective Go") {
		t.Errorf("deleteLink confirmed: got %+v, want Effective Go gone", done.delta)
	}
	if again := ada.call("/app/links/", "deleteLink", `{"id":5}`, false); again.code() != affordances.NotFound {
		t.Errorf("deleting it again: got %+v, want not_found", again.delta.Error)
	}
}

// TestCookieCalls: a person's own browser calls with her session cookie
// (the page's WebMCP tools do), with the site's Origin; the same call
// without it is refused before the app's handler runs.
func TestCookieCalls(t *testing.T) {
	srv := serve(t)
	person := signIn(t, srv, demoEmail, demoPassword)
	ada := &agent{t: t, base: srv.URL, cookie: person.cookie()}
	d := ada.call("/app/links/", "markRead", `{"id":5,"read":true}`, false)
	if !d.delta.OK || d.delta.Changed["unread"] != float64(3) {
		t.Fatalf("a cookie call: got %d %+v, want ok and 3 unread", d.status, d.delta)
	}
	req, _ := http.NewRequest("POST", srv.URL+"/app/links/", strings.NewReader(`{"action":"markRead","input":{"id":4,"read":true}}`))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: person.cookie()})
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a cookie call without Origin: got %d, want 403", res.StatusCode)
	}
	if r := person.get("/app/links/?show=unread"); strings.Count(r.body, `<li class="link`) != 3 {
		t.Errorf("ada has %d unread links, want 3", strings.Count(r.body, `<li class="link`))
	}
}

var headScript = regexp.MustCompile(`<script[^>]*>`)

// TestHead: a page of a route carries, for agents, the link to its graph,
// its AAL fragment and its WebMCP tools, every script with the response's
// CSP nonce; its buttons carry the attributes its affordances select,
// one per link picked by its input.
func TestHead(t *testing.T) {
	srv := serve(t)
	b := signIn(t, srv, demoEmail, demoPassword)
	r := b.get("/app/links/")
	m := cspNonce.FindStringSubmatch(r.Header.Get("Content-Security-Policy"))
	if m == nil {
		t.Fatal("no CSP nonce")
	}
	for _, want := range []string{
		`<link rel="affordances" href="?affordances=1">`,
		`<link rel="agent-affordances" href="/app/.well-known/agent-affordances/app/links/index.json">`,
		`src="/app/.well-known/affordances/webmcp.js"`,
		`type="application/aal+json"`,
		`id="affordances-webmcp"`,
		`data-aal="add-link"`,
		`data-aal="mark-read" data-aal-input="{&#34;id&#34;:5,&#34;read&#34;:true}"`,
		`data-aal="delete-link" data-aal-input="{&#34;id&#34;:5}"`,
		`toolname="addLink"`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("/app/links/ lacks %s", want)
		}
	}
	scripts := headScript.FindAllString(r.body, -1)
	for _, s := range scripts {
		if !strings.Contains(s, `nonce="`+m[1]+`"`) {
			t.Errorf("%s lacks the response's nonce %s", s, m[1])
		}
	}
	if len(scripts) != 4 {
		t.Errorf("got scripts %q, want the fragment, the tools, webmcp.js and the app's own", scripts)
	}
	if v := r.Header.Values("Vary"); !slices.Contains(v, "Cookie") || !slices.Contains(v, "Accept") {
		t.Errorf("Vary: got %q, want Cookie and Accept", v)
	}
	// The script is served where the head says, at the origin's root.
	res, err := http.Get(srv.URL + affordances.WebMCPScriptPath)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("%s: got %d", affordances.WebMCPScriptPath, res.StatusCode)
	}
}
