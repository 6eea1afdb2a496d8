package affordances_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
)

// TestWebMCPInChromium runs in Debian's Chromium with WebMCPTesting what
// the browser offers, found by looking for it, never by its version: a
// tool's title as the browser lists it; a declarative form, on a page
// whose script cannot register tools (as in a browser with declarative
// tools only), answered through SubmitEvent.respondWith with the delta of
// one Affordances call, the page staying where it is; and, on pages whose
// headers keep WebMCP from registering (Origin-Agent-Cluster: ?0,
// Permissions-Policy: tools=()), the script's one warning in the console.
// Each part the browser lacks is skipped, and the log says so.
func TestWebMCPInChromium(t *testing.T) {
	site, b := testSite(t, nil)
	// webmcpPage's forms, each with a submit button: Chromium lists a
	// declarative tool of a form without toolautosubmit that has one.
	h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		webmcpPage(rec, r)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(bytes.ReplaceAll(rec.Body.Bytes(), []byte("</form>"), []byte("<button>Add</button></form>")))
	}))
	var (
		mu    sync.Mutex
		calls []string // the content type and body of each POST
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("headers") {
		case "oac":
			w.Header().Set("Origin-Agent-Cluster", "?0")
		case "pp":
			w.Header().Set("Permissions-Policy", "geolocation=(), tools=()")
		}
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			mu.Lock()
			calls = append(calls, r.Header.Get("Content-Type")+" "+string(body))
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	br := browsertest.StartWith(t, &browser.Options{Features: []string{"WebMCPTesting"}})
	open := func(url, before string) *browser.Page {
		t.Helper()
		p, err := br.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		if before != "" {
			if err := p.AddScriptOnNewDocument(ctx, before); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Navigate(ctx, srv.URL+url); err != nil {
			t.Fatal(err)
		}
		return p
	}

	t.Run("title", func(t *testing.T) {
		p := open("/", "")
		var listed []map[string]any
		err := p.Eval(ctx, `(async () => {
  const mc = document.modelContext;
  if (!mc || typeof mc.getTools !== "function") return null;
  for (let i = 0; i < 100; i++) {
    const ts = await mc.getTools();
    if (ts.some(t => t.name === "increment")) return ts.map(t => ({name: t.name, hasTitle: "title" in t, title: t.title}));
    await new Promise(r => setTimeout(r, 20));
  }
  return [];
})()`, &listed)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(listed, func(m map[string]any) bool { return m["name"] == "increment" })
		switch {
		case listed == nil:
			t.Skip("the browser has no document.modelContext.getTools: an agent cannot list titles here")
		case i < 0:
			t.Fatalf("increment is not among the listed tools %v", listed)
		case listed[i]["hasTitle"] != true:
			t.Skip("the browser lists tools without a title")
		case listed[i]["title"] != "Increment":
			t.Errorf("increment's title is %v, want Increment", listed[i]["title"])
		}
	})

	t.Run("respondWith", func(t *testing.T) {
		// The script finds no registerTool, as in a browser whose WebMCP
		// has declarative tools only: the form keeps its toolname.
		p := open("/?form=increment", `if (document.modelContext) Object.defineProperty(document.modelContext, "registerTool", {value: undefined});`)
		var offered struct{ RespondWith, List bool }
		if err := p.Eval(ctx, `({respondWith: typeof SubmitEvent === "function" && "respondWith" in SubmitEvent.prototype && "agentInvoked" in SubmitEvent.prototype,
  list: !!document.modelContext && typeof document.modelContext.getTools === "function" && typeof document.modelContext.executeTool === "function"})`, &offered); err != nil {
			t.Fatal(err)
		}
		if !offered.RespondWith || !offered.List {
			t.Skipf("the browser offers SubmitEvent.respondWith and agentInvoked: %v; getTools and executeTool: %v", offered.RespondWith, offered.List)
		}
		mu.Lock()
		calls = nil
		mu.Unlock()
		var got struct {
			Result, Before, After string
		}
		// The browser fills the form and waits for the person to submit
		// it (the form has no toolautosubmit): the test submits it.
		err := p.Eval(ctx, `(async () => {
  const mc = document.modelContext, before = location.href;
  let tool;
  for (let i = 0; i < 100 && !tool; i++) {
    tool = (await mc.getTools()).find(t => t.name === "increment");
    if (!tool) await new Promise(r => setTimeout(r, 20));
  }
  if (!tool) throw new Error("no declarative tool increment");
  const result = mc.executeTool(tool, {by: 2});
  const form = document.querySelector("form[toolname=increment]");
  for (let i = 0; i < 100 && form.elements.by.value !== "2"; i++) await new Promise(r => setTimeout(r, 20));
  form.requestSubmit();
  const out = await Promise.race([result, new Promise((_, no) => setTimeout(() => no(new Error("the tool did not answer")), 5000))]);
  return {result: typeof out === "string" ? out : JSON.stringify(out), before, after: location.href};
})()`, &got)
		if err != nil {
			t.Fatal(err)
		}
		var d affordances.Delta
		if err := json.Unmarshal([]byte(got.Result), &d); err != nil || !d.OK || d.Message != "The counter is 2." {
			t.Errorf("the form's tool answered %q (%v), want the delta of increment", got.Result, err)
		}
		if got.After != got.Before {
			t.Errorf("the page went from %s to %s, want it to stay", got.Before, got.After)
		}
		time.Sleep(100 * time.Millisecond) // a navigation the form might have started
		mu.Lock()
		received := slices.Clone(calls)
		mu.Unlock()
		if want := []string{affordances.MediaType + ` {"action":"increment","input":{"by":2}}`}; !slices.Equal(received, want) {
			t.Errorf("the site received %q, want %q", received, want)
		}
		if n, _ := b.snapshot(); n != 2 {
			t.Errorf("the counter is %d, want 2", n)
		}
	})

	t.Run("a long result", func(t *testing.T) {
		long := httptest.NewServer(longSite(t).Handler(webmcpPage))
		t.Cleanup(long.Close)
		p, err := br.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		if _, err := p.Navigate(ctx, long.URL+"/"); err != nil {
			t.Fatal(err)
		}
		var out string
		for range 50 { // until the script has registered the tool
			if out, err = p.ExecuteTool(ctx, "dump", map[string]any{}); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			t.Skipf("no tool to run: %v", err)
		}
		var short struct {
			OK   bool
			More string
		}
		if len(out) > 1500 || json.Unmarshal([]byte(out), &short) != nil || !short.OK || !strings.Contains(short.More, "read the page /") {
			t.Errorf("dump's tool returned %d characters: %s; want at most 1,500, JSON, ok, and the page to read", len(out), out)
		}
	})

	t.Run("headers", func(t *testing.T) {
		for _, tc := range []struct{ headers, want string }{{"oac", "SecurityError"}, {"pp", "NotAllowedError"}} {
			p := open("/?headers="+tc.headers, "")
			var has bool
			if err := p.Eval(ctx, `!!(document.modelContext || navigator.modelContext)`, &has); err != nil {
				t.Fatal(err)
			}
			if !has {
				t.Skip("the browser has no WebMCP: nothing to refuse")
			}
			var lines []string
			for range 50 {
				all, err := p.ConsoleNow(ctx)
				if err != nil {
					t.Fatal(err)
				}
				lines = slices.DeleteFunc(all, func(l string) bool { return !strings.Contains(l, "affordances:") })
				if len(lines) > 0 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "warning: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("%s: the console has %q, want one warning that names %s", tc.headers, lines, tc.want)
			}
		}
	})
}
