// Package browsertest starts Chromium for tests, as net/http/httptest
// starts servers, and reads a page's WebMCP tools as an in-page agent
// does.
package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/affordances/affordances-go/internal/browser"
)

// Start starts headless Chromium for one test and closes it when the test
// ends. Without Chromium the test skips, or fails when AFFORDANCES_CHECK
// is set (make check), where nothing may skip.
func Start(t testing.TB) *browser.Browser {
	t.Helper()
	return StartWith(t, nil)
}

// StartWith is [Start] with options, such as Features:
// []string{"WebMCPTesting"}. opts may be nil.
func StartWith(t testing.TB, opts *browser.Options) *browser.Browser {
	t.Helper()
	b := start(t, t.Context(), opts)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing Chromium: %v", err)
		}
	})
	return b
}

// start starts Chromium with opts, or ends the test as [Start] says.
func start(t testing.TB, ctx context.Context, opts *browser.Options) *browser.Browser {
	t.Helper()
	b, err := browser.Start(ctx, opts)
	if errors.Is(err, browser.ErrNoChromium) {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatalf("%v: make check should have installed it (make deps)", err)
		}
		t.Skipf("%v; make check installs it", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var shared struct {
	sync.Mutex
	browsers map[string]*browser.Browser // by their features, joined
}

// Shared is [StartWith] for the tests of a whole test binary that ask for
// the same features (such as "WebMCPTesting"): the first starts Chromium,
// the others get the same one, and [CloseShared], in the package's
// TestMain, closes it. A start costs about a second of CPU time. Tests
// sharing a browser do not share their sessions: each [browser.Page] opens
// in a browser context of its own, with its own cookies and storage. A
// test must close the pages it opens, and not the browser.
func Shared(t testing.TB, features ...string) *browser.Browser {
	t.Helper()
	key := strings.Join(features, ",")
	shared.Lock()
	defer shared.Unlock()
	if b := shared.browsers[key]; b != nil {
		return b
	}
	// It outlives the test that starts it: not the test's context.
	b := start(t, context.Background(), &browser.Options{Features: features})
	if shared.browsers == nil {
		shared.browsers = map[string]*browser.Browser{}
	}
	shared.browsers[key] = b
	return b
}

// CloseShared closes the browsers [Shared] started, once the tests have
// run with exit code code, and returns the code to exit with: 1, with the
// error on stderr, when one did not close cleanly. The package's
// TestMain: os.Exit(browsertest.CloseShared(m.Run())).
func CloseShared(code int) int {
	shared.Lock()
	defer shared.Unlock()
	for key, b := range shared.browsers {
		if err := b.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "browsertest: closing the shared Chromium: %v\n", err)
			code = max(code, 1)
		}
		delete(shared.browsers, key)
	}
	return code
}

// A Tool is a WebMCP tool of a page, as an in-page agent sees it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"` // null when the tool has none
	// Annotations are what the page passed to registerTool, in the tools
	// of [Registered] only: Chromium 148 lists none.
	Annotations map[string]any `json:"annotations,omitempty"`
}

// webmcp lists ("list") or executes ("execute") a page's tools, on the
// draft's document.modelContext (getTools, executeTool(tool, input)) when
// the page has it, else on Chromium 148's navigator.modelContextTesting
// (listTools, whose inputSchema is a string, and executeTool(name,
// inputJSON)). A result is the string the tool returned.
const webmcp = `(async (op, name, input) => {
  const draft = document.modelContext && typeof document.modelContext.getTools === "function" ? document.modelContext : null;
  const testing = navigator.modelContextTesting;
  if (!draft && !testing) throw new Error("the page has no WebMCP (start Chromium with the WebMCPTesting feature)");
  const tools = draft ? await draft.getTools() : testing.listTools();
  if (op === "list") {
    return tools.map(t => ({name: t.name, description: t.description,
      inputSchema: typeof t.inputSchema === "string" ? (t.inputSchema === "" ? null : JSON.parse(t.inputSchema)) : (t.inputSchema ?? null)}));
  }
  let out;
  if (draft) {
    const tool = tools.find(t => t.name === name);
    if (!tool) throw new Error("Tool not found: " + name);
    out = await draft.executeTool(tool, input);
  } else {
    out = await testing.executeTool(name, JSON.stringify(input));
  }
  return typeof out === "string" ? out : JSON.stringify(out);
})`

// Tools returns the WebMCP tools the page's document registered, as an
// agent in the browser lists them.
func Tools(ctx context.Context, p *browser.Page) ([]Tool, error) {
	var tools []Tool
	if err := p.Eval(ctx, webmcp+`("list")`, &tools); err != nil {
		return nil, fmt.Errorf("browsertest: listing the WebMCP tools: %w", err)
	}
	return tools, nil
}

// Execute runs the page's WebMCP tool name with input, as an agent in the
// browser does, and returns what the tool returned.
func Execute(ctx context.Context, p *browser.Page, name string, input any) (string, error) {
	in, err := json.Marshal(input)
	if err != nil {
		return "", fmt.Errorf("browsertest: the input of %s: %w", name, err)
	}
	arg, _ := json.Marshal(name) // a string always encodes
	var out string
	if err := p.Eval(ctx, webmcp+`("execute", `+string(arg)+`, `+string(in)+`)`, &out); err != nil {
		return "", fmt.Errorf("browsertest: executing the WebMCP tool %s: %w", name, err)
	}
	return out, nil
}

// recorder wraps registerTool, before the document's own scripts run, to
// keep a copy of every tool the page registers, annotations included.
const recorder = `(() => {
  const mc = document.modelContext || navigator.modelContext;
  if (!mc || typeof mc.registerTool !== "function") return;
  const register = mc.registerTool, seen = [];
  Object.defineProperty(window, "__browsertestRegistered", {value: seen});
  mc.registerTool = function (tool, options) {
    seen.push(JSON.parse(JSON.stringify({name: tool.name, description: tool.description,
      inputSchema: tool.inputSchema ?? null, annotations: tool.annotations ?? {}})));
    return register.call(this, tool, options);
  };
})();`

// Record makes every document p loads from now on keep what its scripts
// pass to WebMCP's registerTool, for [Registered].
func Record(ctx context.Context, p *browser.Page) error {
	return p.AddScriptOnNewDocument(ctx, recorder)
}

// Registered returns every tool the page's document passed to
// registerTool since it loaded, in order, those unregistered since
// included; nil when [Record] was not called first.
func Registered(ctx context.Context, p *browser.Page) ([]Tool, error) {
	var tools []Tool
	if err := p.Eval(ctx, `window.__browsertestRegistered ?? null`, &tools); err != nil {
		return nil, fmt.Errorf("browsertest: reading the registered tools: %w", err)
	}
	return tools, nil
}
