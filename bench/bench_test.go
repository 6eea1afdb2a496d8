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

// TestBench runs two tasks, one on each site, end to end in every mode
// at every size: each verified, each observation on disk, report.json as
// the issue has it. The browser modes are left out only on a machine without Chromium
// (or Node and the npm packages make deps installs, for axtree) and
// outside make check.
func TestBench(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser, no npm packages (make check runs the bench)")
	}
	modes := bench.ModeNames()
	packages, errPackages := node.Repo()
	if os.Getenv("AFFORDANCES_CHECK") == "" {
		need := map[string][]string{"screenshot": {"chromium"}, "axtree": {"chromium", "node"}, "webmcp": {"chromium"}}
		modes = slices.DeleteFunc(modes, func(m string) bool {
			for _, bin := range need[m] {
				if _, err := exec.LookPath(bin); err != nil {
					t.Logf("the %s mode is left out: %s is not installed (make check installs it)", m, bin)
					return true
				}
			}
			if m == "axtree" && errPackages != nil {
				t.Logf("the axtree mode is left out: %v", errPackages)
				return true
			}
			return false
		})
	} else if errPackages != nil {
		t.Fatal(errPackages)
	}
	out := t.TempDir()
	rep, err := bench.Run(context.Background(), &bench.Options{
		Tasks: []string{"shop-checkout", "board-delete-task-declined"}, Modes: modes, Out: out, Progress: testWriter{t},
		AXTree: &bench.AXTreeOptions{Packages: packages},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rep.Runs), 2*len(modes)*len(bench.Sizes()); got != want {
		t.Fatalf("got %d runs, want %d", got, want)
	}
	for _, r := range rep.Runs {
		if !r.Verified {
			t.Errorf("%s %s: not verified: %s", r.Task, r.Mode, r.Error)
		}
		if len(r.Observations) == 0 || r.Tokens == 0 {
			t.Errorf("%s %s: got %d observations and %d tokens", r.Task, r.Mode, len(r.Observations), r.Tokens)
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
		Task, Site, Mode *string
		Verified         *bool
		Steps, Tokens    *int
		Observations     []struct {
			Step, Bytes, Tokens *int
			File                *string
		}
	}
	if err := json.Unmarshal(b, &runs); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	for i, r := range runs {
		if r.Task == nil || r.Site == nil || r.Mode == nil || r.Verified == nil || r.Steps == nil || r.Tokens == nil || len(r.Observations) == 0 {
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

// testWriter sends the bench's progress to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p[:len(p)-min(1, len(p))]))
	return len(p), nil
}
