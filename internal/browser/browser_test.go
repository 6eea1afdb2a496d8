package browser_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
)

func newPage(t *testing.T, b *browser.Browser) *browser.Page {
	t.Helper()
	p, err := b.NewPage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// testSite serves a few small pages.
func testSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Test</title><link rel="stylesheet" href="/s.css"></head><body>%s</body></html>`, body)
		}
	}
	mux.HandleFunc("GET /s.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		w.Write([]byte("body { margin: 0; font-family: sans-serif } .tall { height: 3000px }"))
	})
	mux.HandleFunc("GET /{$}", page(`
<main>
<h1>Home</h1>
<a id="next" href="/next">Next</a>
<button id="nothing" type="button">Does nothing</button>
<button class="twin" type="button">One</button><button class="twin" type="button">Two</button>
<button id="off" disabled>Off</button>
<form method="post" action="/echo" data-aal="echo-form">
  <label>Your name <input name="name"></label>
  <input name="city" aria-label="City">
  <label><input type="checkbox" name="gift" value="yes"> Gift wrap</label>
  <button id="send" data-aal="send">Send</button>
</form>
</main>
<script type="application/aal+json">{"aal":"0.1","page":"/","affordances":[{"id":"send","selector":"[data-aal=\"send\"]","action":"submit","label":"Send","destructive":false,"reversible":true,"trust":"safe"}]}</script>`))
	mux.HandleFunc("GET /items", page(`
<main>
<ul>
<li><form method="post" action="/echo"><input type="hidden" name="name" value="t-1"><button data-aal="delete-task" data-aal-input='{"task":"t-1"}'>Delete</button></form>
<li><form method="post" action="/echo"><input type="hidden" name="name" value="t-2"><button data-aal="delete-task" data-aal-input='{"list":"a","task":"t-2"}'>Delete</button></form>
<li><form method="post" action="/echo"><input type="hidden" name="name" value="t-3"><button data-aal="delete-task" data-aal-input='{"task":"t-3"}' disabled>Delete</button></form>
</ul>
<form method="post" action="/echo" data-aal="rename" data-aal-input='{"task":"t-4"}'><input type="hidden" name="name" value="t-4"></form>
<form method="post" action="/echo" data-aal="rename" data-aal-input='{"task":"t-5"}'><input type="hidden" name="name" value="t-5"></form>
<button type="button" data-aal="bare">A</button><button type="button" data-aal="bare">B</button>
<button type="button" data-aal="same" data-aal-input='{"x":1}'>A</button><button type="button" data-aal="same" data-aal-input='{"x":1.0}'>B</button>
<button type="button" data-aal="only" data-aal-input='{"task":"t-9"}'>Only</button>
</main>`))
	mux.HandleFunc("GET /next", page(`<main><h1>Next page</h1></main>`))
	mux.HandleFunc("GET /tall", page(`<div class="tall">Tall</div>`))
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		page(fmt.Sprintf(`<p id="got">%s from %s, gift %q</p>`, r.PostFormValue("name"), r.PostFormValue("city"), r.PostFormValue("gift")))(w, r)
	})
	mux.HandleFunc("GET /cookie", func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("sid")
		v := "none"
		if c != nil {
			v = c.Value
		}
		page(`<p id="sid">`+v+`</p>`)(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestStartWithoutChromium(t *testing.T) {
	_, err := browser.Start(t.Context(), &browser.Options{Path: "/nonexistent/chromium"})
	if !errors.Is(err, browser.ErrNoChromium) {
		t.Fatalf("got %v, want ErrNoChromium", err)
	}
	if !strings.Contains(err.Error(), "install Debian's chromium") {
		t.Errorf("got %q, want it to say how to install Chromium", err)
	}
}

func TestPage(t *testing.T) {
	b := browsertest.Start(t)
	srv := testSite(t)
	ctx := t.Context()
	p := newPage(t, b)

	resp, err := p.Navigate(ctx, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || !strings.HasPrefix(resp.ContentType, "text/html") {
		t.Errorf("Navigate: got %d %q, want 200 text/html", resp.Status, resp.ContentType)
	}
	got := map[string]string{}
	for _, r := range p.Responses() {
		got[strings.TrimPrefix(r.URL, srv.URL)] = r.Type + " " + r.ContentType
	}
	if got["/"] != "Document text/html; charset=utf-8" || got["/s.css"] != "Stylesheet text/css" {
		t.Errorf("Responses: got %v, want the document and its stylesheet", got)
	}

	// Clicks that load nothing return no response; clicks on what a
	// person could not click are errors.
	t0 := time.Now()
	if r, err := p.Click(ctx, "#nothing"); err != nil || r != nil {
		t.Errorf("Click(#nothing): got %v, %v; want no response, no error", r, err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Click(#nothing) took %v", d)
	}
	for sel, want := range map[string]string{
		".twin":    "found 2 elements, want exactly one",
		"#missing": "found 0 elements, want exactly one",
		"#off":     "disabled",
		"[[":       "not a valid CSS selector",
	} {
		if _, err := p.Click(ctx, sel); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Click(%s): got %v, want an error saying %q", sel, err, want)
		}
	}

	if err := p.FillLabel(ctx, "Your name", "Ada"); err != nil {
		t.Fatal(err)
	}
	if err := p.FillLabel(ctx, "City", "Paris"); err != nil {
		t.Fatal(err)
	}
	if err := p.FillLabel(ctx, "Nobody", "x"); err == nil || !strings.Contains(err.Error(), "found 0 fields") {
		t.Errorf("FillLabel(Nobody): got %v, want found 0 fields", err)
	}
	if err := p.Check(ctx, `input[name="gift"]`); err != nil {
		t.Fatal(err)
	}
	resp, err = p.Click(ctx, "#send")
	if err != nil {
		t.Fatal(err)
	}
	if resp == nil || resp.Status != 200 || !strings.HasSuffix(resp.URL, "/echo") {
		t.Fatalf("Click(#send): got %+v, want the /echo page", resp)
	}
	if text, err := p.Text(ctx, "#got"); err != nil || text != `Ada from Paris, gift "yes"` {
		t.Errorf("Text(#got): got %q, %v", text, err)
	}

	// A link.
	p.Navigate(ctx, srv.URL+"/")
	if resp, err := p.Click(ctx, "#next"); err != nil || resp == nil || !strings.HasSuffix(resp.URL, "/next") {
		t.Fatalf("Click(#next): got %+v, %v", resp, err)
	}
	if u, err := p.URL(ctx); err != nil || u != srv.URL+"/next" {
		t.Errorf("URL: got %q, %v", u, err)
	}
	if n, err := p.Count(ctx, "h1"); err != nil || n != 1 {
		t.Errorf("Count(h1): got %d, %v", n, err)
	}
}

func TestCookiesArePerPage(t *testing.T) {
	b := browsertest.Start(t)
	srv := testSite(t)
	ctx := t.Context()
	alice, bob := newPage(t, b), newPage(t, b)
	if err := alice.SetCookie(ctx, srv.URL, &http.Cookie{Name: "sid", Value: "alice", Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[*browser.Page]string{alice: "alice", bob: "none"} {
		if _, err := p.Navigate(ctx, srv.URL+"/cookie"); err != nil {
			t.Fatal(err)
		}
		if got, err := p.Text(ctx, "#sid"); err != nil || got != want {
			t.Errorf("the server saw sid %q (%v), want %q", got, err, want)
		}
	}
	cs, err := alice.Cookies(ctx, srv.URL)
	if err != nil || len(cs) != 1 || cs[0].Value != "alice" || !cs[0].HttpOnly {
		t.Errorf("Cookies: got %v, %v; want alice's HttpOnly sid", cs, err)
	}
}

func TestScreenshot(t *testing.T) {
	b := browsertest.Start(t)
	srv := testSite(t)
	ctx := t.Context()
	for _, tc := range []struct {
		path          string
		width, height int
		wantH         int
	}{
		{"/", 800, 600, 600},
		{"/", 390, 844, 844},
		{"/tall", 400, 0, 3000},
	} {
		shot, err := b.Screenshot(ctx, srv.URL+tc.path, tc.width, tc.height)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", tc.path, err)
		}
		if got := img.Bounds().Size(); got.X != tc.width || got.Y != tc.wantH {
			t.Errorf("Screenshot(%s, %d, %d): got %dx%d, want %dx%d", tc.path, tc.width, tc.height, got.X, got.Y, tc.width, tc.wantH)
		}
	}
}

func TestPerform(t *testing.T) {
	b := browsertest.Start(t)
	srv := testSite(t)
	ctx := t.Context()
	p := newPage(t, b)
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	f, err := p.Fragment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Affordances) != 1 || f.Affordances[0].ID != "send" {
		t.Fatalf("Fragment: got %+v", f)
	}
	p.FillLabel(ctx, "Your name", "Bo")
	resp, err := p.Perform(ctx, f.Affordances[0])
	if err != nil || resp == nil || !strings.HasSuffix(resp.URL, "/echo") {
		t.Fatalf("Perform(send): got %+v, %v; want the /echo page", resp, err)
	}
	if _, err := p.Fragment(ctx); !errors.Is(err, browser.ErrNoFragment) {
		t.Errorf("Fragment on a page without one: got %v, want ErrNoFragment", err)
	}

	// A form's own selector submits it.
	p.Navigate(ctx, srv.URL+"/")
	resp, err = p.Perform(ctx, aal.Affordance{ID: "echo-form", Selector: `[data-aal="echo-form"]`})
	if err != nil || resp == nil || !strings.HasSuffix(resp.URL, "/echo") {
		t.Fatalf("Perform(echo-form): got %+v, %v; want the /echo page", resp, err)
	}

	p.Navigate(ctx, srv.URL+"/")
	for _, a := range []aal.Affordance{
		{ID: "twin", Selector: ".twin"},
		{ID: "gone", Selector: `[data-aal="gone"]`},
		{ID: "off", Selector: "#off"},
		{ID: "empty"},
	} {
		if _, err := p.Perform(ctx, a); err == nil || !strings.Contains(err.Error(), a.ID) {
			t.Errorf("Perform(%s): got %v, want an error naming it", a.ID, err)
		}
	}
}

// TestPerformInput: among the elements one selector finds, the call's
// input picks the one whose data-aal-input it matches (docs/protocol.md decision 11).
func TestPerformInput(t *testing.T) {
	b := browsertest.Start(t)
	srv := testSite(t)
	ctx := t.Context()
	p := newPage(t, b)
	aff := func(id string) aal.Affordance {
		return aal.Affordance{ID: id, Selector: `[data-aal="` + id + `"]`}
	}
	for _, tc := range []struct {
		id    string
		input map[string]any
		want  string // the text of #got on the page it loads
	}{
		{"delete-task", map[string]any{"task": "t-1"}, "t-1 from"},
		{"delete-task", map[string]any{"task": "t-2", "list": "a", "note": "more fields"}, "t-2 from"},
		{"rename", map[string]any{"task": "t-5"}, "t-5 from"}, // a form is submitted
	} {
		if _, err := p.Navigate(ctx, srv.URL+"/items"); err != nil {
			t.Fatal(err)
		}
		resp, err := p.PerformInput(ctx, aff(tc.id), tc.input)
		if err != nil || resp == nil || !strings.HasSuffix(resp.URL, "/echo") {
			t.Fatalf("PerformInput(%s, %v): got %+v, %v; want the /echo page", tc.id, tc.input, resp, err)
		}
		if got, err := p.Text(ctx, "#got"); err != nil || !strings.HasPrefix(got, tc.want) {
			t.Errorf("PerformInput(%s, %v): the page says %q (%v), want %q", tc.id, tc.input, got, err, tc.want)
		}
	}

	if _, err := p.Navigate(ctx, srv.URL+"/items"); err != nil {
		t.Fatal(err)
	}
	if resp, err := p.PerformInput(ctx, aff("only"), map[string]any{"task": "t-9"}); err != nil || resp != nil {
		t.Errorf("PerformInput(only, t-9): got %+v, %v; want no page loaded, no error", resp, err)
	}
	for _, tc := range []struct {
		id    string
		input map[string]any
		want  string // in the error
	}{
		{"delete-task", map[string]any{"task": "t-3"}, "the element is disabled"},
		{"delete-task", map[string]any{"task": "t-9"}, `the input {"task":"t-9"} picks none of the 3 elements found; their data-aal-input: {"task":"t-1"}, {"list":"a","task":"t-2"}, {"task":"t-3"}`},
		{"delete-task", map[string]any{}, "picks none of the 3 elements found"},
		{"delete-task", nil, `found 3 elements and no input to pick one by; their data-aal-input: {"task":"t-1"}`},
		{"bare", map[string]any{"x": 1}, "picks none of the 2 elements found; their data-aal-input: (none), (none)"},
		{"same", map[string]any{"x": 1}, `picks 2 of the 2 elements found, want one; their data-aal-input: {"x":1}, {"x":1.0}`},
		{"only", map[string]any{"task": "t-8"}, `the input {"task":"t-8"} picks none of the 1 elements found; their data-aal-input: {"task":"t-9"}`},
		{"gone", map[string]any{"task": "t-1"}, "found 0 elements"},
	} {
		_, err := p.PerformInput(ctx, aff(tc.id), tc.input)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.id) {
			t.Errorf("PerformInput(%s, %v): got %v, want an error naming it and saying %q", tc.id, tc.input, err, tc.want)
		}
	}
	if _, err := p.Perform(ctx, aff("delete-task")); err == nil || !strings.Contains(err.Error(), "no input to pick one by") {
		t.Errorf("Perform(delete-task): got %v, want an error saying no input picks one of several", err)
	}
}

func TestAccessibility(t *testing.T) {
	b := browsertest.Start(t)
	srv := testSite(t)
	ctx := t.Context()
	p := newPage(t, b)
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	nodes, err := p.Accessibility(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		switch n.Role {
		case "heading", "button", "link", "textbox", "main":
			got = append(got, fmt.Sprintf("%s %q %d", n.Role, n.Name, n.Level))
		}
	}
	for _, want := range []string{`main "" 0`, `heading "Home" 1`, `link "Next" 0`, `button "Send" 0`, `textbox "Your name" 0`, `textbox "City" 0`} {
		if !slices.Contains(got, want) {
			t.Errorf("accessibility tree: no %s in %q", want, got)
		}
	}
}

// The context of Start bounds the start only.
func TestStartContext(t *testing.T) {
	browsertest.Need(t)
	ctx, cancel := context.WithCancel(t.Context())
	b, err := browser.Start(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cancel()
	if _, err := b.Screenshot(t.Context(), "about:blank", 100, 100); err != nil {
		t.Errorf("after the start's context ended: %v", err)
	}
}

// TestEvalConsoleAndFeatures: Eval returns a value the page computes, a
// promise's included; Console records what the page logs; Features turns a
// Chromium feature on (WebMCPTesting exposes navigator.modelContext).
func TestEvalConsoleAndFeatures(t *testing.T) {
	browsertest.Need(t)
	srv := testSite(t)
	for _, tc := range []struct {
		features []string
		wantMC   bool
	}{{nil, false}, {[]string{"WebMCPTesting"}, true}} {
		b, err := browser.Start(t.Context(), &browser.Options{Features: tc.features})
		if err != nil {
			t.Fatal(err)
		}
		p := newPage(t, b)
		if _, err := p.Navigate(t.Context(), srv.URL+"/"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := p.Eval(t.Context(), `new Promise(r => setTimeout(() => r(6 * 7), 10))`, &n); err != nil || n != 42 {
			t.Errorf("Eval: got %d, %v; want 42", n, err)
		}
		if err := p.Eval(t.Context(), `Promise.reject(new Error("no"))`, &n); err == nil {
			t.Error("Eval of a rejected promise: no error")
		}
		var mc bool
		if err := p.Eval(t.Context(), `!!(document.modelContext || navigator.modelContext)`, &mc); err != nil || mc != tc.wantMC {
			t.Errorf("features %v: WebMCP there: got %v (%v), want %v", tc.features, mc, err, tc.wantMC)
		}
		var none any
		p.Eval(t.Context(), `console.error("from the page")`, &none)
		// Chromium may log more (the page's missing favicon); never the
		// marker ConsoleNow logs.
		if got, err := p.ConsoleNow(t.Context()); err != nil || !slices.Contains(got, "error: from the page") ||
			slices.ContainsFunc(got, func(m string) bool { return strings.Contains(m, "affordances-browser-console") }) {
			t.Errorf("ConsoleNow: got %q, %v; want it to hold %q, and no marker of its own", got, err, "error: from the page")
		}
		b.Close()
	}
}

// TestAddScriptOnNewDocument: the script runs in every document the page
// loads afterwards, before the document's own scripts, and can wrap what
// they call.
func TestAddScriptOnNewDocument(t *testing.T) {
	b := browsertest.Start(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Early</title><p id="out"></p>
<script>document.getElementById("out").textContent = (window.early || "none") + " " + JSON.stringify(JSON.parse("[1]"));</script>`)
	}))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	p := newPage(t, b)
	if _, err := p.Navigate(ctx, srv.URL+"/before"); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Text(ctx, "#out"); err != nil || got != "none [1]" {
		t.Fatalf("before AddScriptOnNewDocument: got %q, %v; want %q", got, err, "none [1]")
	}
	err := p.AddScriptOnNewDocument(ctx, `window.early = "early:" + document.readyState;
const parse = JSON.parse; JSON.parse = s => ["wrapped", ...parse(s)];`)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/one", "/two"} {
		if _, err := p.Navigate(ctx, srv.URL+path); err != nil {
			t.Fatal(err)
		}
		if got, err := p.Text(ctx, "#out"); err != nil || got != `early:loading ["wrapped",1]` {
			t.Errorf("%s: got %q, %v; want the script to have run first, while the document was loading", path, got, err)
		}
	}
}

// TestToolsOfEveryShape: Tools and ExecuteTool list and run a page's WebMCP
// tools on every shape of the API an agent in the browser may find
// (docs/webmcp.md): the browser's own, whichever it is; Chromium 148's and
// 150's navigator.modelContextTesting (listTools with each input schema a
// string, executeTool(name, inputJSON)); and Chromium 156's
// document.modelContext (getTools, executeTool(tool, input)). The last two
// are a page's own here, over a registry of its own, with the other shape
// hidden, so that each is tried whatever Chromium runs. RecordTools keeps
// what the page passed to registerTool.
func TestToolsOfEveryShape(t *testing.T) {
	b := browsertest.StartWith(t, &browser.Options{Features: []string{"WebMCPTesting"}})
	const echo = `{name: "echo", description: "Echo the input", inputSchema: {type: "object", properties: {a: {type: "string"}}},
  annotations: {readOnlyHint: true, untrustedContentHint: true}, execute: input => ({echo: input})}`
	// registry is a page's own list of tools, each as a browser lists it.
	const registry = `const tools = [];
const find = name => { const t = tools.find(t => t.name === name); if (!t) throw new Error("Tool not found: " + name); return t; };
const hide = (o, name) => Object.defineProperty(o, name, {value: undefined});
`
	pages := map[string]string{
		"/browser": `(document.modelContext || navigator.modelContext).registerTool(` + echo + `);`,
		"/testing": registry + `hide(document, "modelContext"); hide(navigator, "modelContext");
Object.defineProperty(navigator, "modelContextTesting", {value: {
  listTools() { return tools.map(t => ({name: t.name, description: t.description, inputSchema: JSON.stringify(t.inputSchema)})); },
  executeTool(name, input) {
    if (typeof input !== "string") return Promise.reject(new Error("Failed to parse input arguments"));
    return Promise.resolve(JSON.stringify(find(name).execute(JSON.parse(input))));
  },
}});
tools.push(` + echo + `);`,
		"/draft": registry + `hide(navigator, "modelContextTesting"); hide(navigator, "modelContext");
Object.defineProperty(document, "modelContext", {value: {
  registerTool(tool) { tools.push(tool); return Promise.resolve(); },
  getTools() { return Promise.resolve(tools.map(t => ({name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations, window}))); },
  executeTool(tool, input) {
    if (typeof input !== "object") return Promise.reject(new TypeError("invalid input object: value is not an object"));
    return Promise.resolve(JSON.stringify(find(tool.name).execute(input)));
  },
}});
document.modelContext.registerTool(` + echo + `);`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><title>Tools</title><script>%s</script>`, pages[r.URL.Path])
	}))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	p := newPage(t, b)
	if err := p.RecordTools(ctx); err != nil {
		t.Fatal(err)
	}
	for _, path := range slices.Sorted(maps.Keys(pages)) {
		if _, err := p.Navigate(ctx, srv.URL+path); err != nil {
			t.Fatal(err)
		}
		tools, err := p.Tools(ctx)
		if err != nil || len(tools) != 1 || tools[0].Name != "echo" || tools[0].Description != "Echo the input" ||
			string(tools[0].InputSchema) != `{"type":"object","properties":{"a":{"type":"string"}}}` {
			t.Errorf("%s: Tools: got %+v, %v; want echo with its description and schema", path, tools, err)
		}
		if path == "/browser" && (len(tools) != 1 || tools[0].Annotations["readOnlyHint"] != true || tools[0].Annotations["untrustedContentHint"] != true) {
			t.Errorf("%s: Tools: got %+v; want the annotations the page passed, recorded", path, tools)
		}
		if out, err := p.ExecuteTool(ctx, "echo", map[string]any{"a": "x"}); err != nil || out != `{"echo":{"a":"x"}}` {
			t.Errorf("%s: ExecuteTool(echo): got %q, %v", path, out, err)
		}
		if out, err := p.ExecuteTool(ctx, "nope", map[string]any{}); err == nil {
			t.Errorf("%s: ExecuteTool(nope): got %q, want an error", path, out)
		}
	}
	if _, err := p.Navigate(ctx, srv.URL+"/browser"); err != nil {
		t.Fatal(err)
	}
	reg, err := p.RegisteredTools(ctx)
	if err != nil || len(reg) != 1 || reg[0].Name != "echo" || reg[0].Annotations["readOnlyHint"] != true || reg[0].Annotations["untrustedContentHint"] != true {
		t.Errorf("RegisteredTools: got %+v, %v; want echo with the annotations the page passed", reg, err)
	}
	// Without WebMCP, the error says how to turn it on.
	plain := newPage(t, browsertest.Start(t))
	if _, err := plain.Navigate(ctx, srv.URL+"/none"); err != nil {
		t.Fatal(err)
	}
	if tools, err := plain.Tools(ctx); err == nil || !strings.Contains(err.Error(), "WebMCPTesting") {
		t.Errorf("Tools without WebMCP: got %+v, %v; want an error naming the WebMCPTesting feature", tools, err)
	}
}

// operateSite serves a page of forms for Operate: each form posts to
// /echo, which shows the fields it was sent, sorted.
func operateSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /form", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		row := func(task string) string {
			return fmt.Sprintf(`<li><form method="post" action="/echo"><input type="hidden" name="task" value="%[1]s">
<button data-aal="move" name="status" value="done" data-aal-input='{"task":"%[1]s","status":"done"}'>Done</button>
<button data-aal="move" name="status" value="doing" data-aal-input='{"task":"%[1]s","status":"doing"}'>Doing</button></form>`, task)
		}
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Forms</title><main>
<form method="post" action="/echo">
  <input type="hidden" name="_action" value="order"><input type="hidden" name="list" value="l-1">
  <label>Title <input name="title"></label>
  <label>Count <input type="number" name="count" value="1"></label>
  <label>Notes <textarea name="notes"></textarea></label>
  <label>Colour <select name="colour"><option value="">Choose</option><option value="red">Red</option><option value="blue">Blue</option></select></label>
  <label><input type="radio" name="size" value="s" checked> S</label><label><input type="radio" name="size" value="m"> M</label>
  <label><input type="checkbox" name="gift" value="yes"> Gift</label><label><input type="checkbox" name="news" value="yes" checked> News</label>
  <button data-aal="order">Order</button>
</form>
<ul>`+row("t-1")+row("t-2")+`</ul>
<form id="del" method="post" action="/echo" data-aal="delete-user"></form>
<button form="del" name="email" value="a@x">Delete a</button><button form="del" name="email" value="b@x">Delete b</button>
<button type="button" data-aal="off" disabled>Off</button>
<a data-aal="go" href="/echo">Go</a>
</main>`)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		var got []string
		for _, k := range slices.Sorted(maps.Keys(r.PostForm)) {
			got = append(got, k+"="+strings.Join(r.PostForm[k], ","))
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><title>Echo</title><p id="got">%s</p>`, strings.Join(got, ";"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestOperate: Operate fills in the form of an affordance's element from
// the call's input (text, number, textarea, select, radio, checkbox; a
// hidden field must already hold its value), then clicks the element, and
// says what it did after each interaction; it refuses an input the form
// cannot take before changing anything.
func TestOperate(t *testing.T) {
	b := browsertest.Start(t)
	srv := operateSite(t)
	ctx := t.Context()
	p := newPage(t, b)
	aff := func(id string) aal.Affordance { return aal.Affordance{ID: id, Selector: `[data-aal="` + id + `"]`} }
	for _, tc := range []struct {
		name  string
		id    string
		input map[string]any
		whats []string // each's what, in order
		got   string   // the fields /echo was sent
	}{
		{"every kind of field", "order", map[string]any{"title": "Tea", "count": 3, "notes": "Hot", "colour": "blue", "size": "m", "gift": true, "news": false, "list": "l-1"},
			[]string{"select colour", "fill count", "check gift", "uncheck news", "fill notes", "choose size", "fill title", "click order"},
			"_action=order;colour=blue;count=3;gift=yes;list=l-1;notes=Hot;size=m;title=Tea"},
		{"values already there", "order", map[string]any{"count": 1.0, "size": "s", "news": true},
			[]string{"click order"}, "_action=order;colour=;count=1;list=l-1;news=yes;notes=;size=s;title="},
		{"the input picks a button", "move", map[string]any{"task": "t-2", "status": "doing"},
			[]string{"click move"}, "status=doing;task=t-2"},
		{"a form submitted by a row's button", "delete-user", map[string]any{"email": "b@x"},
			[]string{"click delete-user"}, "email=b@x"},
		{"a link", "go", nil, []string{"click go"}, ""},
	} {
		if _, err := p.Navigate(ctx, srv.URL+"/form"); err != nil {
			t.Fatal(err)
		}
		var whats []string
		resp, err := p.Operate(ctx, aff(tc.id), tc.input, func(what string) error { whats = append(whats, what); return nil })
		if err != nil || resp == nil || !strings.HasSuffix(resp.URL, "/echo") {
			t.Fatalf("%s: Operate: got %+v, %v; want the /echo page", tc.name, resp, err)
		}
		if !slices.Equal(whats, tc.whats) {
			t.Errorf("%s: each was told %q, want %q", tc.name, whats, tc.whats)
		}
		if got, err := p.Text(ctx, "#got"); err != nil || got != tc.got {
			t.Errorf("%s: /echo got %q (%v), want %q", tc.name, got, err, tc.got)
		}
	}

	// What the form cannot take is refused before anything changes.
	if _, err := p.Navigate(ctx, srv.URL+"/form"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id    string
		input map[string]any
		want  string
	}{
		{"order", map[string]any{"title": "X", "nope": "x"}, "the form has no field nope (its fields: _action, list, title, count, notes, colour, size, gift, news)"},
		{"order", map[string]any{"title": "X", "list": "l-2"}, `the hidden field list holds "l-1", not "l-2"`},
		{"order", map[string]any{"title": "X", "colour": "green"}, `no option of colour has the value "green" (the values: "", "red", "blue")`},
		{"order", map[string]any{"title": "X", "size": "xl"}, `no radio button size has the value "xl" (the values: "s", "m")`},
		{"order", map[string]any{"title": "X", "gift": "yes"}, `the checkbox gift takes true or false, not "yes"`},
		{"order", map[string]any{"title": []string{"X"}}, "a form holds a string, a number or a boolean"},
		{"move", map[string]any{"task": "t-3", "status": "done"}, `picks none of the 4 elements found`},
		{"delete-user", map[string]any{"email": "c@x"}, `no button submits email="c@x" (the values: "a@x", "b@x")`},
		{"go", map[string]any{"q": "x"}, "the element is in no form, and the input has fields: q"},
	} {
		called := false
		_, err := p.Operate(ctx, aff(tc.id), tc.input, func(string) error { called = true; return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, browser.ErrUnavailable) {
			t.Errorf("Operate(%s, %v): got %v, want an error saying %q", tc.id, tc.input, err, tc.want)
		}
		if called {
			t.Errorf("Operate(%s, %v): each was called, want nothing done", tc.id, tc.input)
		}
	}
	var title string
	if err := p.Eval(ctx, `document.querySelector("[name=title]").value`, &title); err != nil || title != "" {
		t.Errorf("after the refused inputs the title holds %q (%v), want nothing", title, err)
	}
	for _, id := range []string{"off", "gone"} {
		if _, err := p.Operate(ctx, aff(id), nil, nil); !errors.Is(err, browser.ErrUnavailable) {
			t.Errorf("Operate(%s): got %v, want ErrUnavailable", id, err)
		}
	}

	// Prepare fills in and clicks nothing; an error from each stops Operate.
	var whats []string
	if err := p.Prepare(ctx, aff("order"), map[string]any{"title": "Tea"}, func(what string) error { whats = append(whats, what); return nil }); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	if _, err := p.Operate(ctx, aff("order"), map[string]any{"title": "Coffee"}, func(string) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Operate with each failing: got %v, want its error", err)
	}
	if u, _ := p.URL(ctx); !strings.HasSuffix(u, "/form") || !slices.Equal(whats, []string{"fill title"}) {
		t.Errorf("Prepare: on %s, each told %q; want /form and [fill title]", u, whats)
	}
}
