package affordances_test

import (
	"bytes"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/webmcp"
)

// webmcpPage renders the page's WebMCP script, and its declarative form
// attributes for the actions a test names in ?form=.
var webmcpPage = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	pg := affordances.PageFrom(r.Context())
	io.WriteString(w, "<!doctype html><head>"+string(pg.Head())+"</head>")
	for _, name := range r.URL.Query()["form"] {
		a := pg.Action(name)
		io.WriteString(w, "<form "+string(a.Tool())+"><input "+string(a.Field("by").Attrs)+"></form>")
	}
})

var webmcpData = regexp.MustCompile(`<script type="application/json" id="affordances-webmcp">(.*?)</script><script src="/.well-known/affordances/webmcp.js" defer></script>`)

// TestWebMCPToolsAreTheGraphsActions: the tools a page declares to the
// browser are its graph's actions, one for one and in order, with the same
// input schemas and availability, and the hints of docs/protocol.md decision 12 (one
// source of truth).
func TestWebMCPToolsAreTheGraphsActions(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(webmcpPage)
	for _, who := range [][]string{nil, {"Authorization: Bearer good"}, {"Authorization: Bearer admin"}} {
		graph := do(t, h, get("/", who...)).graph
		r := httptest.NewRequest("GET", "http://shop.test/", nil)
		with(r, who)
		m := webmcpData.FindSubmatch(do(t, h, r).body)
		if m == nil {
			t.Fatalf("%v: no WebMCP data block and script", who)
		}
		var data struct {
			Tools []struct {
				Name, Title, Description string
				InputSchema              json.RawMessage
				Available                bool
				Annotations              struct{ ReadOnlyHint, ConsequentialHint, UntrustedContentHint bool }
			}
		}
		if err := json.Unmarshal(m[1], &data); err != nil {
			t.Fatal(err)
		}
		if len(data.Tools) != len(graph.Actions) {
			t.Fatalf("%v: got %d tools, want the graph's %d actions", who, len(data.Tools), len(graph.Actions))
		}
		for i, tool := range data.Tools {
			a := graph.Actions[i]
			if tool.Name != a.Name || string(tool.InputSchema) != string(webmcp.Schema(a.Input)) || tool.Available != a.Available || tool.Annotations.ReadOnlyHint != a.ReadOnly {
				t.Errorf("%v: tool %d: got %s %s available=%v readOnly=%v, want the graph's %s %s (within WebMCP's subset) %v %v", who, i, tool.Name, tool.InputSchema, tool.Available, tool.Annotations.ReadOnlyHint, a.Name, a.Input, a.Available, a.ReadOnly)
			}
			if o := webmcp.Outside(tool.InputSchema); o != nil {
				t.Errorf("%v: %s: the input schema is outside WebMCP's subset at %v", who, tool.Name, o)
			}
			// The test site declares no AAL label: the title is the name
			// in words.
			if want := map[string]string{"increment": "Increment", "reset": "Reset"}[a.Name]; tool.Title == "" || want != "" && tool.Title != want {
				t.Errorf("%v: %s: title %q, want %q", who, tool.Name, tool.Title, want)
			}
			wantConsequential := a.Expose == affordances.ExposeConfirm // the test site declares no risky AAL
			if tool.Annotations.ConsequentialHint != wantConsequential {
				t.Errorf("%v: %s: consequentialHint %v, want %v", who, tool.Name, tool.Annotations.ConsequentialHint, wantConsequential)
			}
			// The note follows a sentence that ends (the board's deleteBoard
			// read "…for every member A person confirms it").
			if confirm := regexp.MustCompile(`[.!?…] A person confirms it on the page`).MatchString(tool.Description); confirm != (a.Expose == affordances.ExposeConfirm) || !strings.HasPrefix(tool.Description, a.Description) {
				t.Errorf("%v: %s: description %q", who, tool.Name, tool.Description)
			}
		}
	}
}

// TestWebMCPScriptServed: the script is the library's, small and
// cacheable.
func TestWebMCPScriptServed(t *testing.T) {
	site, _ := testSite(t, nil)
	res := do(t, site.Handler(nil), httptest.NewRequest("GET", "http://shop.test"+affordances.WebMCPScriptPath, nil))
	if res.status != 200 || res.header.Get("Content-Type") != "text/javascript; charset=utf-8" || res.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("got %d %v", res.status, res.header)
	}
	if body := string(res.body); len(body) > 16<<10 || !strings.Contains(body, "registerTool") {
		t.Errorf("script: %d bytes, want a few KB that registers tools", len(body))
	}
}

// TestWebMCPConfirmToolOnlyAsks: in Chromium, an agent in the page of a
// signed-in person runs the tool of reset, a confirm action without
// Verify, which confirm: true from the person's session would run. The
// tool returns the site's summary (confirm_required), and the site
// received one call, without confirm: true, and ran nothing; the same call
// with confirm: true, from the same page, would have run it.
func TestWebMCPConfirmToolOnlyAsks(t *testing.T) {
	site, b := testSite(t, nil)
	h := site.Handler(webmcpPage)
	if res := do(t, h, post("/", `{"action":"increment","input":{"by":2}}`)); !res.delta.OK {
		t.Fatalf("increment: %s", res.body)
	}
	var (
		mu    sync.Mutex
		calls []string // the bodies of the calls the site received
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			mu.Lock()
			calls = append(calls, string(body))
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	p, err := browsertest.StartWith(t, &browser.Options{Features: []string{"WebMCPTesting"}}).NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.SetCookie(ctx, srv.URL, &http.Cookie{Name: "sid", Value: "s1", Path: "/"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}

	out, err := p.ExecuteTool(ctx, "reset", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var d affordances.Delta
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.OK || d.Error == nil || d.Error.Code != affordances.ConfirmRequired || d.Error.Message != "Reset the counter from 2 to 0." {
		t.Errorf("the tool of reset returned %s (%v), want confirm_required with the site's summary", out, err)
	}
	mu.Lock()
	received := slices.Clone(calls)
	mu.Unlock()
	for _, body := range received {
		var c struct {
			Action  string
			Confirm bool
		}
		if err := json.Unmarshal([]byte(body), &c); err != nil || c.Action != "reset" || c.Confirm {
			t.Errorf("the site received the call %s, want reset without confirm: true", body)
		}
	}
	if len(received) != 1 {
		t.Errorf("the site received %d calls, want the tool's one: %q", len(received), received)
	}
	if n, _ := b.snapshot(); n != 2 || b.runs("reset") != 0 {
		t.Fatalf("after the tool the counter is %d and reset ran %d times, want 2 and none", n, b.runs("reset"))
	}

	var status int
	if err := p.Eval(ctx, `fetch("/", {method: "POST", headers: {"Content-Type": "application/vnd.affordances+json"},
  body: JSON.stringify({action: "reset", confirm: true})}).then(r => r.status)`, &status); err != nil || status != 200 || b.runs("reset") != 1 {
		t.Errorf("reset with confirm: true from the page: got %d (%v), ran %d times; want 200 and once, as a tool sending it would", status, err, b.runs("reset"))
	}
}

// TestDeclarativeTools: a form of an available action carries the same
// tool as the script registers; an unavailable one none.
func TestDeclarativeTools(t *testing.T) {
	site, _ := testSite(t, nil)
	body := string(do(t, site.Handler(webmcpPage), httptest.NewRequest("GET", "http://shop.test/?form=increment&form=reset", nil)).body)
	want := `<form toolname="increment" tooldescription="Add to the counter"><input name="by" toolparamdescription="how much to add"></form>`
	if !strings.Contains(body, want) {
		t.Errorf("got %s\nwant it to contain %s", body, want)
	}
	// reset is unavailable to nobody: no tool, no parameter of it.
	if !strings.Contains(body, `<form ><input name="by"></form>`) {
		t.Errorf("an unavailable action's form: got %s", body)
	}
	var nilPage *affordances.Page
	if a := nilPage.Action("x"); a.Tool() != "" || a.Reason() != "Not available here." || len(a.ToolAttributes()) != 0 {
		t.Error("the action of a nil *Page answers something")
	}
}

// TestLLMsTxt: /llms.txt is the site index in Markdown, as the requester
// sees it, and every link in it answers 200.
func TestLLMsTxt(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(app)
	for _, tc := range []struct {
		who          []string
		want, absent []string
	}{
		{nil, []string{"# Test\n", "## /\n", "The board\n", "## /items/[id]\n", "## /items/new\n", "- `ping` (public, read-only): Answer pong\n",
			"- `reset` (confirm): Set the counter to zero\n", "[Graph of /](http://shop.test/?affordances=1)", "[Site index](http://shop.test/.well-known/affordances.json)"},
			[]string{"`audit`", "`hidden`"}},
		{[]string{"Authorization: Bearer admin"}, []string{"- `audit` (session): Admins only\n"}, []string{"`hidden`"}},
	} {
		r := httptest.NewRequest("GET", "http://shop.test/llms.txt", nil)
		with(r, tc.who)
		res := do(t, h, r)
		body := string(res.body)
		if res.status != 200 || res.header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Fatalf("%v: got %d %q", tc.who, res.status, res.header.Get("Content-Type"))
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%v: llms.txt lacks %q:\n%s", tc.who, w, body)
			}
		}
		if strings.Contains(body, "\n\n\n") {
			t.Errorf("%v: llms.txt has an empty paragraph:\n%s", tc.who, body)
		}
		for _, w := range tc.absent {
			if strings.Contains(body, w) {
				t.Errorf("%v: llms.txt shows %q:\n%s", tc.who, w, body)
			}
		}
		// Every route of the index has its section.
		var idx affordances.SiteIndex
		json.Unmarshal(do(t, h, with(httptest.NewRequest("GET", "http://shop.test"+affordances.IndexPath, nil), tc.who)).body, &idx)
		for _, rt := range idx.Routes {
			if !strings.Contains(body, "\n## "+rt.Route+"\n") {
				t.Errorf("%v: llms.txt has no section for %s", tc.who, rt.Route)
			}
			for _, a := range rt.Actions {
				if !strings.Contains(body, "- `"+a.Name+"`") {
					t.Errorf("%v: llms.txt does not list %s of %s", tc.who, a.Name, rt.Route)
				}
			}
		}
		for _, link := range regexp.MustCompile(`\]\((http://shop\.test[^)]*)\)`).FindAllStringSubmatch(body, -1) {
			lr := httptest.NewRequest("GET", link[1], nil)
			with(lr, tc.who)
			if got := do(t, h, lr).status; got != 200 {
				t.Errorf("%v: link %s answers %d, want 200", tc.who, link[1], got)
			}
		}
	}
}

// TestPageAction: one template value per action says everything its form
// and controls carry: the reason it is not available, the binding's hidden
// field, its declarative tool, its inputs and its data-aal attributes, the
// action named once.
func TestPageAction(t *testing.T) {
	site, _ := testSite(t, nil)
	tmpl := template.Must(template.New("").Parse(`{{range .Names}}{{with $.Page.Action .}}{{if .Reason}}[{{.Reason}} <button {{.AAL}} disabled>]` +
		`{{else}}[<form {{.Tool}}>{{.Hidden}}<input {{(.Field "by").Attrs}}><button {{.AAL "by" 2}}>]{{end}}{{end}}{{end}}`))
	h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := tmpl.Execute(w, struct {
			Page  *affordances.Page
			Names []string
		}{affordances.PageFrom(r.Context()), []string{"increment", "reset", "nothing"}})
		if err != nil {
			t.Error(err)
		}
	}))
	got := string(do(t, h, httptest.NewRequest("GET", "http://shop.test/", nil)).body)
	want := `[<form toolname="increment" tooldescription="Add to the counter"><input type="hidden" name="_action" value="increment"><input name="by" toolparamdescription="how much to add"><button data-aal="increment" data-aal-input="{&#34;by&#34;:2}">]` +
		`[Sign in to do this. <button data-aal="reset" disabled>]` +
		`[Not available here. <button data-aal="nothing" disabled>]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
