package bench_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/bench"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/node"
)

// TestPlaywrightMCPMode: the playwright-mcp mode performs tasks through
// the tools of the Playwright MCP server, as make deps installed it, and
// records each tool's result as the model receives it and the server's
// tool definitions.
func TestPlaywrightMCPMode(t *testing.T) {
	m := startPlaywrightMCP(t, bench.PlaywrightMCPOptions{})
	testPlaywrightMCP(t, m, []mcpCase{
		// Two pages: a click, a navigation, a field filled in, a click;
		// a snapshot after each navigation and click.
		{"shop-cart-quantity", []string{
			"browser_navigate /products/stoneware-mug", "browser_snapshot /products/stoneware-mug",
			"browser_click Add to cart", "browser_snapshot /products/stoneware-mug",
			"browser_navigate /cart", "browser_snapshot /cart",
			"browser_fill_form Quantity of Stoneware Mug, Cream", "browser_click Update the quantity of Stoneware Mug, Cream",
			"browser_snapshot /cart",
		}},
		// Confirmed: the delete, then the confirmation page's button.
		{"board-delete-board", []string{
			"browser_navigate /boards/team-offsite", "browser_snapshot /boards/team-offsite",
			"browser_click Delete board…", "browser_snapshot /boards/team-offsite",
			"browser_click Yes, do it", "browser_snapshot /boards",
		}},
		// Refused: the page shows the button disabled; the agent read it
		// and stops.
		{"shop-sold-out", []string{"browser_navigate /products/canvas-cap", "browser_snapshot /products/canvas-cap"}},
	}, func(t *testing.T, id, tool, file, text string) {
		switch tool {
		case "browser_navigate", "browser_click":
			// The page's snapshot is a link to a file, not the snapshot:
			// the agent asks for it.
			if !regexp.MustCompile(`### Snapshot\n- \[Snapshot\]\([^)]*\.yml\)`).MatchString(text) || strings.Contains(text, "[ref=") {
				t.Errorf("%s: %s holds no link to a snapshot file, or holds refs:\n%.300s", id, file, text)
			}
			fallthrough
		case "browser_fill_form":
			// The action on a ref of the latest snapshot, as Playwright
			// code.
			if !strings.Contains(text, "### Ran Playwright code") {
				t.Errorf("%s: %s: %.300s", id, file, text)
			}
		}
	})
}

// TestPlaywrightMCPLeanMode: the playwright-mcp-lean mode runs the server
// with --snapshot-mode none and --codegen none: an action's result holds
// no snapshot, no link to one and no code, and the agent reads the page
// only before it acts on it and after its last action.
func TestPlaywrightMCPLeanMode(t *testing.T) {
	m := startPlaywrightMCP(t, bench.PlaywrightMCPOptions{Lean: true})
	if m.Name() != "playwright-mcp-lean" {
		t.Errorf("Name() = %q, want playwright-mcp-lean", m.Name())
	}
	testPlaywrightMCP(t, m, []mcpCase{
		// The click that adds to the cart is followed by a navigation:
		// the agent does not read the product page again.
		{"shop-cart-quantity", []string{
			"browser_navigate /products/stoneware-mug", "browser_snapshot /products/stoneware-mug",
			"browser_click Add to cart",
			"browser_navigate /cart", "browser_snapshot /cart",
			"browser_fill_form Quantity of Stoneware Mug, Cream", "browser_click Update the quantity of Stoneware Mug, Cream",
			"browser_snapshot /cart",
		}},
		// Confirmed: it reads the confirmation page for its button, and
		// the page the confirmation led to.
		{"board-delete-board", []string{
			"browser_navigate /boards/team-offsite", "browser_snapshot /boards/team-offsite",
			"browser_click Delete board…", "browser_snapshot /boards/team-offsite",
			"browser_click Yes, do it", "browser_snapshot /boards",
		}},
	}, func(t *testing.T, id, tool, file, text string) {
		switch tool {
		case "browser_navigate", "browser_click", "browser_fill_form":
			if strings.Contains(text, "### Snapshot") || strings.Contains(text, "[ref=") || strings.Contains(text, "### Ran Playwright code") {
				t.Errorf("%s: %s holds a snapshot, its link or code:\n%.300s", id, file, text)
			}
		}
		if tool == "browser_navigate" && !strings.Contains(text, "- Page URL: ") {
			t.Errorf("%s: %s does not say where the page is:\n%.300s", id, file, text)
		}
	})
}

// startPlaywrightMCP returns a playwright-mcp mode of opts, with the
// packages make deps installed, started; it skips the test without them.
func startPlaywrightMCP(t *testing.T, opts bench.PlaywrightMCPOptions) *bench.PlaywrightMCPMode {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser, no npm packages (make check runs the mode)")
	}
	dir, err := node.Repo()
	if err != nil {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	opts.Packages = dir
	m := bench.NewPlaywrightMCPMode(&opts)
	err = m.Start(context.Background())
	if !errors.Is(err, bench.ErrNoNode) {
		needs(t, err, browser.ErrNoChromium)
	}
	needs(t, err, bench.ErrNoNode)
	return m
}

// An mcpCase is a task and what each tool call of its run was, in order.
type mcpCase struct {
	id    string
	whats []string
}

// testPlaywrightMCP runs each case in m and checks its tool calls, each
// observation on disk, and the tool definitions; result checks what the
// model reads of each tool's result.
func testPlaywrightMCP(t *testing.T, m *bench.PlaywrightMCPMode, cases []mcpCase, result func(t *testing.T, id, tool, file, text string)) {
	for _, tc := range cases {
		// Each run has a server and a demo of its own: they run side by
		// side, mostly waiting on the server's settle time.
		t.Run(tc.id, func(t *testing.T) {
			t.Parallel()
			obs, root, toolTokens := runMCPTask(t, m, tc.id)
			if got := whats(obs); !slices.Equal(got, tc.whats) {
				t.Errorf("%s: the agent called %q, want %q", tc.id, got, tc.whats)
			}
			total := 0
			for i, o := range obs {
				b, err := os.ReadFile(filepath.Join(root, o.File))
				if err != nil {
					t.Fatal(err)
				}
				n, _ := bench.CountTokens(string(b))
				total += n
				if o.Step != i || o.Kind != "result" || o.Bytes != len(b) || o.Tokens != n || !strings.HasSuffix(o.File, ".md") {
					t.Errorf("%s: observation %d: got %+v, want result %d of %d bytes, %d tokens, in Markdown", tc.id, i, o, i, len(b), n)
				}
				text := string(b)
				tool, _, _ := strings.Cut(o.What, " ")
				if tool == "browser_snapshot" {
					// The page's AI snapshot, inline, with the refs the
					// agent acts on.
					if !strings.Contains(text, "### Snapshot\n```yaml\n- ") || !regexp.MustCompile(`\[ref=(f\d+)?e\d+\]`).MatchString(text) {
						t.Errorf("%s: %s holds no snapshot with refs:\n%.300s", tc.id, o.File, text)
					}
				}
				result(t, tc.id, tool, o.File, text)
			}
			t.Logf("%s in the %s mode: %d tool results, %d tokens; %d tokens of tool definitions", tc.id, m.Name(), len(obs), total, toolTokens)
			tools, err := os.ReadFile(filepath.Join(root, tc.id, m.Name(), "tools.json"))
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := bench.CountTokens(string(tools)); toolTokens != n || n < 1000 {
				t.Errorf("%s: ToolTokens = %d, want the %d tokens of tools.json (some thousands)", tc.id, toolTokens, n)
			}
			var defs []struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				InputSchema map[string]any `json:"input_schema"`
			}
			if err := json.Unmarshal(tools, &defs); err != nil {
				t.Fatalf("%s: tools.json: %v", tc.id, err)
			}
			names := map[string]bool{}
			for _, d := range defs {
				names[d.Name] = d.Description != "" && d.InputSchema["type"] == "object"
			}
			for _, want := range []string{"browser_navigate", "browser_snapshot", "browser_click", "browser_fill_form"} {
				if !names[want] {
					t.Errorf("%s: tools.json has no %s with a description and an input schema: %.300s", tc.id, want, tools)
				}
			}
		})
	}
}

// runMCPTask is runTask, with the tokens of the tool definitions the run
// recorded.
func runMCPTask(t *testing.T, m *bench.PlaywrightMCPMode, id string) ([]bench.Observation, string, int) {
	t.Helper()
	ctx := context.Background()
	tk := task(t, id)
	d, stop, err := bench.StartDemo(ctx, tk.Site, bench.DemoSize, tk.As)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	root := t.TempDir()
	rec, err := bench.NewRecorder(root, filepath.Join(id, m.Name()))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(ctx, tk, d, rec); err != nil {
		t.Fatalf("%s in the %s mode: %v", id, m.Name(), err)
	}
	if err := tk.Check(ctx, d); err != nil {
		t.Errorf("%s in the %s mode: the site's data: %v", id, m.Name(), err)
	}
	return rec.Observations(), root, rec.ToolTokens()
}

// TestPlaywrightMCPPinned: the lockfile make deps and the bench install
// from pins the @playwright/mcp the bench says it runs.
func TestPlaywrightMCPPinned(t *testing.T) {
	b, err := os.ReadFile("../internal/node/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct{ Version string }
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	if got := lock.Packages["node_modules/@playwright/mcp"].Version; got != bench.PlaywrightMCPVersion {
		t.Errorf("package-lock.json pins @playwright/mcp %q, want %s (bench.PlaywrightMCPVersion)", got, bench.PlaywrightMCPVersion)
	}
}
