package bench_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/bench"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/node"
)

// TestBench runs two short tasks, one on each site, end to end in every mode at
// demo size: each verified, each observation on disk, report.json as the
// issue has it (with each run's size and per-request tokens). The
// browser modes are left out only on a machine without Chromium (or Node
// and the npm packages make deps installs, for axtree and the playwright-mcp modes)
// and outside make check.
func TestBench(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser, no npm packages (make check runs the bench)")
	}
	modes := bench.ModeNames()
	packages, errPackages := node.Repo()
	if os.Getenv("AFFORDANCES_CHECK") == "" {
		need := map[string][]string{"screenshot": {"chromium"}, "axtree": {"chromium", "node"}, "playwright-mcp": {"chromium", "node"}, "playwright-mcp-lean": {"chromium", "node"}, "webmcp": {"chromium"}, "playwright-mcp-webmcp": {"chromium", "node"}}
		modes = slices.DeleteFunc(modes, func(m string) bool {
			for _, bin := range need[m] {
				if _, err := exec.LookPath(bin); err != nil {
					t.Logf("the %s mode is left out: %s is not installed (make check installs it)", m, bin)
					return true
				}
			}
			if (m == "axtree" || strings.HasPrefix(m, "playwright-mcp")) && errPackages != nil {
				t.Logf("the %s mode is left out: %v", m, errPackages)
				return true
			}
			return false
		})
	} else if errPackages != nil {
		t.Fatal(errPackages)
	}
	out := t.TempDir()
	rep, err := bench.Run(context.Background(), &bench.Options{
		Tasks: []string{"shop-place-order-declined", "board-delete-task-declined"}, Modes: modes, Sizes: []bench.Size{bench.DemoSize},
		Out: out, Progress: testWriter{t}, AXTree: &bench.AXTreeOptions{Packages: packages},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rep.Runs), 2*len(modes); got != want {
		t.Fatalf("got %d runs, want %d", got, want)
	}
	for _, r := range rep.Runs {
		if !r.Verified {
			t.Errorf("%s %s: not verified: %s", r.Task, r.Mode, r.Error)
		}
		if len(r.Observations) == 0 || r.Tokens == 0 {
			t.Errorf("%s %s: got %d observations and %d tokens", r.Task, r.Mode, len(r.Observations), r.Tokens)
		}
		// A model request a step, each with the tool definitions.
		steps := map[int]bool{}
		for _, o := range r.Observations {
			steps[o.Step] = true
		}
		tools := len(steps) * r.ToolTokens
		if len(r.ToolsFrom) > 0 {
			// The tools changed during the run (the page's WebMCP tools):
			// each request has those of its step.
			tools = 0
			for s := range steps {
				n := r.ToolsFrom[0].Tokens
				for _, f := range r.ToolsFrom {
					if f.Step <= s {
						n = f.Tokens
					}
				}
				tools += n
			}
		}
		if r.RequestTokens != r.HistoryTokens+tools {
			t.Errorf("%s %s: got %d tokens per request, want the history's %d and %d steps' %d tool tokens (%d each at most)", r.Task, r.Mode, r.RequestTokens, r.HistoryTokens, len(steps), tools, r.ToolTokens)
		}
		if mcp := strings.Contains(r.Mode, "mcp") && r.Mode != "webmcp"; mcp != (r.ToolTokens > 0) {
			t.Errorf("%s %s: got %d tool tokens", r.Task, r.Mode, r.ToolTokens)
		}
		for _, o := range r.Observations {
			if fi, err := os.Stat(filepath.Join(out, o.File)); err != nil || int(fi.Size()) != o.Bytes {
				t.Errorf("%s %s: observation %s: %v", r.Task, r.Mode, o.File, err)
			}
		}
	}

	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []struct {
		Task, Site, Mode, Size       *string
		Verified                     *bool
		Steps, Tokens, RequestTokens *int
		Observations                 []struct {
			Step, Bytes, Tokens *int
			File                *string
		}
	}
	if err := json.Unmarshal(b, &runs); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	for i, r := range runs {
		if r.Task == nil || r.Site == nil || r.Mode == nil || r.Size == nil || r.Verified == nil || r.Steps == nil || r.Tokens == nil || r.RequestTokens == nil || len(r.Observations) == 0 {
			t.Fatalf("report.json run %d lacks a field of the issue's shape: %s", i, b)
		}
		for _, o := range r.Observations {
			if o.Step == nil || o.Bytes == nil || o.Tokens == nil || o.File == nil {
				t.Fatalf("report.json run %d: an observation lacks a field: %s", i, b)
			}
		}
	}
	for _, f := range []string{"report.md", "chart.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// The report names the browser that ran, as it names itself.
	if exe, err := browser.Executable(""); err == nil {
		version, err := browser.Version(t.Context(), exe)
		if err != nil {
			t.Fatal(err)
		}
		if md, err := os.ReadFile(filepath.Join(out, "report.md")); err != nil || !strings.Contains(string(md), "with "+version+" ("+exe+")") {
			t.Errorf("report.md: got %v, want it to say it ran with %s (%s)", err, version, exe)
		}
	}
}

// TestRealisticSize: the same two tasks at realistic size, through the
// bridge and in screenshots, are verified, and what the model reads is
// the realistic seed's, a page of it.
func TestRealisticSize(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the demos and a browser (make check runs it)")
	}
	out := t.TempDir()
	rep, err := bench.Run(context.Background(), &bench.Options{
		Tasks: []string{"shop-checkout", "board-delete-task-declined"}, Modes: []string{"mcp", "screenshot"},
		Sizes: []bench.Size{bench.Realistic}, Out: out, Progress: testWriter{t},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if !r.Verified || r.Size != bench.Realistic {
			t.Errorf("%s %s: got size %s, verified %v: %s", r.Task, r.Mode, r.Size, r.Verified, r.Error)
		}
	}
	board, err := os.ReadFile(filepath.Join(out, "realistic", "board-delete-task-declined", "mcp", "00-graph.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(board), "tasks: 20,") {
		t.Errorf("the model read the team offsite board without its realistic 20 tasks:\n%s", board)
	}
}

// testWriter sends the bench's progress to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p[:len(p)-min(1, len(p))]))
	return len(p), nil
}
