package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/bench"
)

// TestPlaywrightMCPWebMCPMode: the playwright-mcp-webmcp mode performs
// tasks through the WebMCP tools Playwright MCP offers of the page
// (webmcp_<tool>), as make deps installed it, in Chromium with WebMCP on:
// a navigation's result links its snapshot and the server lists the
// page's tools, whose definitions the model is given from then on; each
// call's result is the page's delta; a snapshot only where the agent needs
// the server to list the tools again.
func TestPlaywrightMCPWebMCPMode(t *testing.T) {
	m := startPlaywrightMCP(t, bench.PlaywrightMCPOptions{WebMCP: true})
	if m.Name() != "playwright-mcp-webmcp" {
		t.Errorf("Name() = %q, want playwright-mcp-webmcp", m.Name())
	}
	for _, tc := range []struct {
		id    string
		whats []string
		tools []int    // the steps the tool definitions changed at
		calls []string // the page's tools the run's definitions offered, some of them
	}{
		// The review's delta adds deleteReview, which the server lists
		// only with a snapshot: the agent reads one, and finds the tool
		// marked consequential, so it asks the person, who says no.
		{"shop-delete-review-declined", []string{
			"browser_navigate /products/canvas-tote", "webmcp_writeReview", "browser_snapshot /products/canvas-tote",
		}, []int{0, 2}, []string{"webmcp_writeReview", "webmcp_addToCart", "webmcp_deleteReview"}},
		// Confirmed: the tool returns the summary, the person confirms on
		// the page, and the agent reads nothing more.
		{"board-delete-board", []string{
			"browser_navigate /boards/team-offsite", "webmcp_deleteBoard",
		}, []int{0}, []string{"webmcp_deleteBoard", "webmcp_createTask"}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			ctx := context.Background()
			tk := task(t, tc.id)
			d, stop, err := bench.StartDemo(ctx, tk.Site, bench.DemoSize, tk.As)
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			root := t.TempDir()
			rec, err := bench.NewRecorder(root, filepath.Join(tc.id, m.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Run(ctx, tk, d, rec); err != nil {
				t.Fatalf("%s in the %s mode: %v", tc.id, m.Name(), err)
			}
			if err := tk.Check(ctx, d); err != nil {
				t.Errorf("%s in the %s mode: the site's data: %v", tc.id, m.Name(), err)
			}
			obs := rec.Observations()
			if got := whats(obs); !slices.Equal(got, tc.whats) {
				t.Errorf("the agent called %q, want %q", got, tc.whats)
			}
			total := 0
			for i, o := range obs {
				b, err := os.ReadFile(filepath.Join(root, o.File))
				if err != nil {
					t.Fatal(err)
				}
				total += o.Tokens
				if o.Step != i || o.Kind != "result" || o.Bytes != len(b) {
					t.Errorf("observation %d: got %+v, want result %d of %d bytes", i, o, i, len(b))
				}
				text := string(b)
				switch tool, _, _ := strings.Cut(o.What, " "); {
				case tool == "browser_navigate":
					// The server took a snapshot (to a file) and listed
					// the page's tools.
					if !strings.Contains(text, "### Snapshot\n- [Snapshot](") || !strings.Contains(text, "webmcp tools available on the page") {
						t.Errorf("%s: no snapshot's link or no WebMCP tools:\n%.400s", o.File, text)
					}
				case tool == "browser_snapshot":
					// The page, inline, under the page's tools.
					if !strings.Contains(text, "- webmcp tools (page-provided, untrusted):") || !strings.Contains(text, "[ref=") {
						t.Errorf("%s: no WebMCP tools or no snapshot:\n%.400s", o.File, text)
					}
				case strings.HasPrefix(tool, "webmcp_"):
					// What the page's tool returned: the delta, as JSON.
					if !strings.Contains(text, "### Result\nCalled WebMCP tool \""+strings.TrimPrefix(tool, "webmcp_")+"\" in ") || !strings.Contains(text, `"ok": `) {
						t.Errorf("%s: no delta:\n%.400s", o.File, text)
					}
				default:
					t.Errorf("%s: the agent called %s", o.File, tool)
				}
			}
			from := rec.ToolTokensFrom()
			var at []int
			for _, f := range from {
				at = append(at, f.Step)
			}
			if !slices.Equal(at, tc.tools) {
				t.Errorf("the tool definitions changed at steps %v (%+v), want %v", at, from, tc.tools)
			}
			t.Logf("%s in the %s mode: %d tool results, %d tokens; tool definitions from each step: %+v", tc.id, m.Name(), len(obs), total, from)
			offered := map[string]string{}
			for _, f := range from {
				file := "tools.json"
				if f.Step > 0 {
					file = fmt.Sprintf("tools-from-%02d.json", f.Step)
				}
				b, err := os.ReadFile(filepath.Join(root, tc.id, m.Name(), file))
				if err != nil {
					t.Fatal(err)
				}
				if n, _ := bench.CountTokens(string(b)); n != f.Tokens {
					t.Errorf("%s: %d tokens, recorded as %d", file, n, f.Tokens)
				}
				var defs []struct {
					Name        string         `json:"name"`
					Description string         `json:"description"`
					InputSchema map[string]any `json:"input_schema"`
				}
				if err := json.Unmarshal(b, &defs); err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				for _, d := range defs {
					if d.InputSchema["type"] != "object" {
						t.Errorf("%s: %s has no input schema of an object: %v", file, d.Name, d.InputSchema)
					}
					offered[d.Name] = d.Description
				}
			}
			for _, name := range append([]string{"browser_navigate", "browser_snapshot"}, tc.calls...) {
				if _, ok := offered[name]; !ok {
					t.Errorf("no tool definitions offered %s", name)
				}
			}
			if d := offered["webmcp_deleteBoard"] + offered["webmcp_deleteReview"]; !strings.Contains(d, "[CONSEQUENTIAL:") {
				t.Errorf("the delete's tool is not marked consequential: %q", d)
			}
		})
	}
}
