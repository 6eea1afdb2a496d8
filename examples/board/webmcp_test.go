package main

// Tests in Chromium with WebMCP (Debian's Chromium 148 has it behind the
// WebMCPTesting feature), as an agent that lives in the browser sees the
// board (docs/protocol.md decision 12): each page's tools are its available actions,
// with their input schemas and the hints of their declarations; running
// one is an Affordances call with the person's own session, and the next
// page shows it; deleteBoard's tool only asks; tools follow the actions
// as the delta lists them, on Chromium's WebMCP and on the draft's; a
// page of another origin reaches none of them. Without the feature, no
// page logs an error.

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/webmcp"
)

// untrusted are the board's actions whose results carry text other people
// wrote (Action.UntrustedContent): task titles, members' names.
var untrusted = []string{"createTask", "search", "moveTask", "deleteTask", "inviteMember"}

// The board's people, by name: email and password.
var people = map[string][2]string{
	"alice": {demoEmail, demoPassword},
	"bob":   {"bob@example.com", "bob"},
	"carol": {"carol@example.com", "carol"},
}

// toolsSoon returns the names of the page's tools once they are those in want, or
// after 5 s: the page follows a delta at once, but the browser lets a tool
// go a moment after its call returned.
func (x *person) toolsSoon(want []string) []string {
	x.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, _ := x.tools()
		if slices.Equal(got, want) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// signOutAndInByTools has the agent in x's tab, x signed in as alice,
// sign out and in again by the tools of the sign-in page: signOut's tool
// goes with signOut, and comes back with signIn.
func (x *person) signOutAndInByTools() {
	x.t.Helper()
	x.visit("/login")
	if got, _ := x.tools(); !slices.Equal(got, []string{"signIn", "signOut"}) {
		x.t.Fatalf("the sign-in page's tools: got %q, want signIn and signOut", got)
	}
	d := x.execute("signOut", map[string]any{})
	if !d.OK || !slices.Equal(d.ActionsRemoved, []string{"signOut"}) {
		x.t.Fatalf("signOut: got %+v, want signOut removed", d)
	}
	if got := x.toolsSoon([]string{"signIn"}); !slices.Equal(got, []string{"signIn"}) {
		x.t.Errorf("after signing out the tools are %q, want signIn alone", got)
	}
	d = x.execute("signIn", map[string]any{"email": demoEmail, "password": demoPassword})
	if !d.OK || len(d.ActionsAdded) != 1 || d.ActionsAdded[0].Name != "signOut" {
		x.t.Fatalf("signIn: got %+v, want signOut added", d)
	}
	if got := x.toolsSoon([]string{"signIn", "signOut"}); !slices.Equal(got, []string{"signIn", "signOut"}) {
		x.t.Errorf("after signing in the tools are %q, want signIn and signOut", got)
	}
}

// tools returns the names of the page's tools, as an agent in x's tab
// lists them, sorted, and the tools by name.
func (x *person) tools() ([]string, map[string]browser.Tool) {
	x.t.Helper()
	list, err := x.p.Tools(x.t.Context())
	if err != nil {
		x.t.Fatalf("on %s: %v", x.path(), err)
	}
	var names []string
	tools := map[string]browser.Tool{}
	for _, t := range list {
		names = append(names, t.Name)
		tools[t.Name] = t
	}
	slices.Sort(names)
	return names, tools
}

// execute runs the page's tool name with input, as an agent in x's tab
// does, and returns the delta the tool returned; -v logs it as it came.
func (x *person) execute(name string, input any) affordances.Delta {
	x.t.Helper()
	out, err := x.p.ExecuteTool(x.t.Context(), name, input)
	if err != nil {
		x.t.Fatalf("on %s: %v", x.path(), err)
	}
	x.t.Logf("on %s the tool %s returned: %s", x.path(), name, out)
	var d affordances.Delta
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		x.t.Fatalf("on %s: the tool %s returned %q, not a delta: %v", x.path(), name, out, err)
	}
	return d
}

// graph GETs the graph of the page x is on, with x's session cookie.
func (x *person) graph() affordances.Graph {
	x.t.Helper()
	req, _ := http.NewRequestWithContext(x.t.Context(), http.MethodGet, x.base+x.path(), nil)
	req.Header.Set("Accept", affordances.MediaType)
	cs, err := x.p.Cookies(x.t.Context(), x.base)
	if err != nil {
		x.t.Fatal(err)
	}
	for _, c := range cs {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		x.t.Fatal(err)
	}
	defer resp.Body.Close()
	var g affordances.Graph
	if err := json.NewDecoder(resp.Body).Decode(&g); err != nil || resp.StatusCode != http.StatusOK {
		x.t.Fatalf("the graph of %s with the person's cookies: %d, %v", x.path(), resp.StatusCode, err)
	}
	return g
}

// sameJSON reports whether a and b encode the same JSON value.
func sameJSON(a, b any) bool {
	decode := func(v any) any {
		raw, ok := v.(json.RawMessage)
		if !ok {
			raw, _ = json.Marshal(v)
		}
		var out any
		json.Unmarshal(raw, &out)
		return out
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// checkTools checks the tools an agent in x's tab finds on the page it is
// on: exactly the available actions of the page's graph, fetched with x's
// session, each with the action's description and input schema; what the
// page passed to registerTool are the hints the page declares
// (in its data block, from affordances.Page.Head), and those say what the
// graph and the AAL fragment do.
func checkTools(t *testing.T, x *person) {
	t.Helper()
	path := x.path()
	g := x.graph()
	names, tools := x.tools()
	var block struct{ Tools []webmcpTool }
	if err := x.p.Eval(t.Context(), `JSON.parse(document.getElementById("affordances-webmcp").textContent)`, &block); err != nil {
		t.Fatalf("%s: the page's WebMCP data block: %v", path, err)
	}
	passed, err := x.p.RegisteredTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f, err := x.p.Fragment(t.Context())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var want []string
	for _, a := range g.Actions {
		if !a.Available {
			continue
		}
		want = append(want, a.Name)
		tool := tools[a.Name]
		if !strings.HasPrefix(tool.Description, a.Description) || !sameJSON(tool.InputSchema, webmcp.Schema(a.Input)) {
			t.Errorf("%s: tool %s is %q with %s, want the action's description %q and schema %s within WebMCP's subset", path, a.Name, tool.Description, tool.InputSchema, a.Description, a.Input)
		}
		i := slices.IndexFunc(f.Affordances, func(af aal.Affordance) bool { return af.ID == aal.ID(a.Name) })
		if i < 0 {
			t.Errorf("%s: the AAL fragment has no affordance of %s", path, a.Name)
			continue
		}
		hints := webmcpHints{
			ReadOnlyHint:         a.ReadOnly,
			ConsequentialHint:    len(aal.Classify(f.Affordances[i], string(a.Expose)).Classes) > 0,
			UntrustedContentHint: slices.Contains(untrusted, a.Name),
		}
		j := slices.IndexFunc(block.Tools, func(d webmcpTool) bool { return d.Name == a.Name })
		k := slices.IndexFunc(passed, func(r browser.Tool) bool { return r.Name == a.Name })
		if j < 0 || k < 0 {
			t.Errorf("%s: %s is not in the page's data block (%d) or was never registered (%d)", path, a.Name, j, k)
			continue
		}
		if got := block.Tools[j].Annotations; got != hints {
			t.Errorf("%s: the page declares %s with hints %+v, want %+v", path, a.Name, got, hints)
		}
		if got := passed[k].Annotations; !sameJSON(got, hints) {
			t.Errorf("%s: the page registered %s with annotations %v, want %+v", path, a.Name, got, hints)
		}
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("%s: the tools are %q, want the page's available actions %q", path, names, want)
	}
}

// checkConsole checks that x's tab logged no error, no exception and no
// warning of the library's script since its console held seen lines, and
// returns how many it holds now.
func checkConsole(t *testing.T, x *person, seen int) int {
	t.Helper()
	lines, err := x.p.ConsoleNow(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[min(seen, len(lines)):] {
		if strings.HasPrefix(l, "error:") || strings.HasPrefix(l, "exception:") || strings.Contains(l, "affordances:") {
			t.Errorf("on %s: the console says %q", x.path(), l)
		}
	}
	return len(lines)
}

// boardPages are the pages each person opens, by who ("" for nobody).
var boardPages = []struct {
	who   string
	pages []string
}{
	{"", []string{"/boards", "/boards/website-relaunch", "/boards/website-relaunch?q=the", "/login"}},
	{"alice", []string{"/boards", "/boards/website-relaunch", "/boards/team-offsite", "/boards/team-offsite?q=book", "/login"}},
	{"bob", []string{"/boards", "/boards/website-relaunch", "/boards/team-offsite"}},
	{"carol", []string{"/boards/website-relaunch"}},
}

// TestWebMCPTools: on every page, for nobody, the owner and two members
// signed in through the form, the tools an agent in the browser lists are
// the page's available actions with their schemas, registered with the
// hints of their declarations; no page logs an error.
func TestWebMCPTools(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t, "WebMCPTesting")
	_, srv := testBoard(t)
	for _, who := range boardPages {
		x := newPerson(t, b, srv)
		if err := x.p.RecordTools(t.Context()); err != nil {
			t.Fatal(err)
		}
		if who.who != "" {
			x.signIn(people[who.who][0], people[who.who][1])
		}
		seen := 0
		for _, path := range who.pages {
			x.visit(path)
			checkTools(t, x)
			seen = checkConsole(t, x, seen)
		}
	}
}

// TestWebMCPCalls: an agent in the browser searches the public board, and
// the page of the search's redirect shows what it found; alice signs in
// through the form, and the agent in her tab adds a task, which her
// reloaded board shows; deleteBoard's tool returns the site's summary and
// deletes nothing. On the sign-in page, signing out takes signOut's tool
// away, and signing in again brings it back.
func TestWebMCPCalls(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t, "WebMCPTesting")
	_, srv := testBoard(t)
	agent := newClient(t, srv, demoToken)
	const public, private = "/boards/website-relaunch", "/boards/team-offsite"

	visitor := newPerson(t, b, srv)
	visitor.visit(public)
	if got, _ := visitor.tools(); !slices.Equal(got, []string{"exportTasks", "search"}) {
		t.Fatalf("the public board's tools for nobody: got %q, want exportTasks and search", got)
	}
	d := visitor.execute("search", map[string]any{"q": "typeface"})
	if !d.OK || d.Redirect != public+"?q=typeface" || d.Message != `Found 1 task for "typeface".` {
		t.Fatalf("search typeface: got %+v, want the redirect to the board's search and its message", d)
	}
	visitor.visit(d.Redirect)
	visitor.see(".columns", "Pick a typeface for headings", "!Write the new home page copy")
	visitor.see("main", "Tasks whose title contains “typeface”.")

	// Signing in by a tool on the sign-in page lists signOut, which the
	// page did not declare: its tool comes from the delta, with hints no
	// less careful than those the page declares once reloaded.
	if err := visitor.p.RecordTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	visitor.visit("/login")
	d = visitor.execute("signIn", map[string]any{"email": people["carol"][0], "password": people["carol"][1]})
	if !d.OK || len(d.ActionsAdded) != 1 || d.ActionsAdded[0].Name != "signOut" {
		t.Fatalf("carol's signIn: got %+v, want signOut added", d)
	}
	if got, _ := visitor.tools(); !slices.Equal(got, []string{"signIn", "signOut"}) {
		t.Errorf("after signing in the tools are %q, want signIn and signOut", got)
	}
	fromDelta := registeredHints(t, visitor, "signOut")
	visitor.visit("/login")
	declared := registeredHints(t, visitor, "signOut")
	if fromDelta.ReadOnlyHint && !declared.ReadOnlyHint || declared.ConsequentialHint && !fromDelta.ConsequentialHint ||
		declared.UntrustedContentHint && !fromDelta.UntrustedContentHint {
		t.Errorf("signOut's tool from the delta has the hints %+v, less careful than the page's %+v", fromDelta, declared)
	}
	t.Logf("signOut's hints: from signIn's delta %+v, as the page declares them %+v", fromDelta, declared)

	alice := newPerson(t, b, srv)
	if err := alice.p.RecordTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	alice.signIn(demoEmail, demoPassword)
	alice.visit(private)
	d = alice.execute("createTask", map[string]any{"title": "Book the ferry", "assignee": "bob@example.com"})
	if !d.OK || d.Message != `Added "Book the ferry" to To do.` {
		t.Fatalf("createTask: got %+v", d)
	}
	alice.visit(private) // the reload
	alice.see("#col-todo + .cards", "Book the ferry", "Bob")
	alice.see(".head", "6 tasks")

	_, asked := agent.call(private, "deleteBoard", nil, false)
	if asked.Error == nil || asked.Error.Message != `Delete the board "Team offsite" and its 6 tasks.` {
		t.Fatalf("deleteBoard unconfirmed over HTTP: got %+v, want the summary", asked.Error)
	}
	d = alice.execute("deleteBoard", map[string]any{})
	if d.OK || d.Error == nil || d.Error.Code != affordances.ConfirmRequired || d.Error.Message != asked.Error.Message {
		t.Errorf("deleteBoard by the tool: got %+v, want confirm_required with the site's summary %q", d.Error, asked.Error.Message)
	}
	if status, g := agent.graph(private); status != http.StatusOK || len(g.Entities["tasks"].([]any)) != 6 {
		t.Errorf("after deleteBoard's tool the board answers %d with %v, want it there with its 6 tasks", status, tasks(g))
	}
	alice.visit(private)
	alice.see("h1", "Team offsite")

	// Signing out by a tool: signOut is no longer listed, its tool goes;
	// signing in brings it back.
	alice.signOutAndInByTools()
	alice.visit(private)
	alice.see(".who", "Alice")
	lines, err := alice.p.ConsoleNow(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		// Chromium logs every answer of a fetch that is not a success.
		if l != "error: Failed to load resource: the server responded with a status of 428 (Precondition Required)" {
			t.Errorf("alice's console says %q", l)
		}
	}
}

// registeredHints returns the annotations the page last registered the
// tool name with.
func registeredHints(t *testing.T, x *person, name string) webmcpHints {
	t.Helper()
	passed, err := x.p.RegisteredTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	i := -1
	for j, r := range passed {
		if r.Name == name {
			i = j
		}
	}
	if i < 0 {
		t.Fatalf("on %s the page never registered %s", x.path(), name)
	}
	var h webmcpHints
	b, _ := json.Marshal(passed[i].Annotations)
	json.Unmarshal(b, &h)
	return h
}

// origins records the method and Origin of each request the board gets.
type origins struct {
	next http.Handler
	mu   sync.Mutex
	seen []string // "METHOD origin path status"
}

func (o *origins) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.next.ServeHTTP(w, r)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, r.Method+" "+r.Header.Get("Origin")+" "+r.URL.Path)
}

// TestWebMCPOtherOrigin: alice, signed in, opens a page of another origin
// (another loopback port). Its agent finds no tool there, cannot run the
// board's, and its cross-origin createTask with alice's cookie is stopped
// by CORS at the preflight: the board never receives it.
func TestWebMCPOtherOrigin(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t, "WebMCPTesting")
	rec := &origins{}
	_, srv := serveBoard(t, options{Token: demoToken}, func(h http.Handler) http.Handler { rec.next = h; return rec })
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang=en><title>Win a prize</title><h1>Win a prize</h1>`)
	}))
	t.Cleanup(attacker.Close)
	ctx := t.Context()
	const private = "/boards/team-offsite"

	alice := newPerson(t, b, srv)
	alice.signIn(demoEmail, demoPassword)
	alice.visit(private)
	if got, _ := alice.tools(); !slices.Contains(got, "createTask") {
		t.Fatalf("the board's tools: got %q, want createTask", got)
	}
	if _, err := alice.p.Navigate(ctx, attacker.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if got, _ := alice.tools(); len(got) != 0 {
		t.Errorf("the other origin's page lists the tools %q, want none", got)
	}
	if out, err := alice.p.ExecuteTool(ctx, "createTask", map[string]any{"title": "Forged"}); err == nil {
		t.Errorf("the other origin ran the board's createTask: %s", out)
	}
	target, _ := json.Marshal(srv.URL + private)
	var result string
	err := alice.p.Eval(ctx, `fetch(`+string(target)+`, {method: "POST", credentials: "include",
  headers: {"Content-Type": "application/vnd.affordances+json", "Accept": "application/vnd.affordances+json"},
  body: JSON.stringify({action: "createTask", input: {title: "Forged"}})}).then(r => "answered " + r.status, e => "refused: " + e.message)`, &result)
	if err != nil || !strings.HasPrefix(result, "refused") {
		t.Errorf("a cross-origin call with alice's cookie: got %q (%v), want CORS to refuse it", result, err)
	}
	rec.mu.Lock()
	for _, r := range rec.seen {
		if strings.Contains(r, " "+attacker.URL+" ") && !strings.HasPrefix(r, http.MethodOptions+" ") {
			t.Errorf("the board received %q from the other origin, want at most a preflight", r)
		}
	}
	rec.mu.Unlock()
	if _, g := newClient(t, srv, demoToken).graph(private); slices.Contains(tasks(g)["todo"], "Forged") {
		t.Errorf("after the other origin's tries the board holds a forged task: %v", tasks(g))
	}
}

// TestPagesLogNoErrors: in Chromium without WebMCP, where the library's
// script finds nothing to register with, every page loads, for nobody and
// for each person, and none logs an error or an exception.
func TestPagesLogNoErrors(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	_, srv := testBoard(t)
	for _, who := range boardPages {
		x := newPerson(t, b, srv)
		if who.who != "" {
			x.signIn(people[who.who][0], people[who.who][1])
		}
		seen := 0
		for _, path := range who.pages {
			x.visit(path)
			seen = checkConsole(t, x, seen)
		}
		for _, l := range x.p.Console() {
			t.Logf("%s's console: %s", who.who, l)
		}
	}
}

// draftModelContext gives each document the draft's document.modelContext
// over the browser's own, before the page's own scripts run: its
// registerTool returns a promise, and refuses by rejecting it, not by a
// throw (Chromium 148's and 150's throw). A name whose tool went keeps
// being taken until one registration of it has been refused, as a browser
// keeps the name of a tool a moment after its call returned (Chromium's
// own race, here on every registration of a name that went). Listing and
// running tools go to the browser's own.
const draftModelContext = `(() => {
  const mc = document.modelContext || navigator.modelContext;
  if (!mc) return;
  const taken = new Set();
  Object.defineProperty(document, "modelContext", {value: {
    registerTool(tool, options) {
      if (taken.delete(tool.name)) return Promise.reject(new DOMException(tool.name + " is still taken", "InvalidStateError"));
      let registered;
      try {
        registered = Promise.resolve(mc.registerTool(tool, options));
      } catch (e) {
        return Promise.reject(e);
      }
      if (options && options.signal) options.signal.addEventListener("abort", () => taken.add(tool.name));
      return registered;
    },
    getTools: mc.getTools && mc.getTools.bind(mc),
    executeTool: mc.executeTool && mc.executeTool.bind(mc),
  }});
})();`

// TestWebMCPDraft: where the browser has the draft's WebMCP, whose
// registerTool rejects a promise rather than throw, the tools still
// follow the deltas: signing out takes signOut's tool away, and signing in
// brings it back, though its name is still taken at the first try.
func TestWebMCPDraft(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t, "WebMCPTesting")
	_, srv := testBoard(t)
	alice := newPerson(t, b, srv)
	if err := alice.p.AddScriptOnNewDocument(t.Context(), draftModelContext); err != nil {
		t.Fatal(err)
	}
	alice.signIn(demoEmail, demoPassword)
	alice.signOutAndInByTools()
	checkConsole(t, alice, 0)
}

// TestWebMCPDeclarative: where the library's script does not run (here
// the board does not serve it), the forms a person fills are the same
// tools, declared by their attributes: one per form of an available
// action, never one per card, each field an input of the action.
func TestWebMCPDeclarative(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t, "WebMCPTesting")
	_, srv := serveBoard(t, options{Token: demoToken}, func(withoutScript http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == affordances.WebMCPScriptPath {
				http.NotFound(w, r)
				return
			}
			withoutScript.ServeHTTP(w, r)
		})
	})
	for _, who := range []struct {
		who   string
		pages map[string][]string // path: the declarative tools
	}{
		{"", map[string][]string{"/login": {"signIn"}, "/boards/website-relaunch": {"search"}}},
		{"alice", map[string][]string{"/boards/team-offsite": {"createTask", "inviteMember", "search"}}},
		{"bob", map[string][]string{"/boards/team-offsite": {"createTask", "search"}}},
	} {
		x := newPerson(t, b, srv)
		if who.who != "" {
			x.signIn(people[who.who][0], people[who.who][1])
		}
		for path, want := range who.pages {
			x.visit(path)
			g := x.graph()
			names, tools := x.tools()
			if !slices.Equal(names, want) {
				t.Errorf("%s on %s: the declarative tools are %q, want %q", who.who, path, names, want)
			}
			for name, tool := range tools {
				i := slices.IndexFunc(g.Actions, func(a affordances.ActionDescriptor) bool { return a.Name == name })
				if i < 0 || !g.Actions[i].Available || tool.Description != g.Actions[i].Description {
					t.Errorf("%s: the form of %s is the tool %q, want an available action's description", path, name, tool.Description)
					continue
				}
				var in, form struct{ Properties map[string]any }
				json.Unmarshal(g.Actions[i].Input, &in)
				json.Unmarshal(tool.InputSchema, &form)
				for field := range form.Properties {
					if _, ok := in.Properties[field]; !ok {
						t.Errorf("%s: the form of %s has the field %s, which is no input of the action", path, name, field)
					}
				}
				if len(form.Properties) == 0 {
					t.Errorf("%s: the form of %s has no field", path, name)
				}
			}
		}
	}
}

// A webmcpTool is a tool of a page's WebMCP data block, as Page.Head
// writes it (docs/protocol.md decision 12).
type webmcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations webmcpHints     `json:"annotations"`
	Available   bool            `json:"available"`
}

// webmcpHints are a tool's annotations.
type webmcpHints struct {
	ReadOnlyHint         bool `json:"readOnlyHint"`
	ConsequentialHint    bool `json:"consequentialHint"`
	UntrustedContentHint bool `json:"untrustedContentHint"`
}
