package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBench runs one task in the affordances mode at demo size: the
// summary on stdout, progress on stderr, the report on disk.
func TestBench(t *testing.T) {
	out := t.TempDir()
	e, stdout, stderr := testEnv(nil)
	if code := run(t.Context(), e, []string{"bench", "--tasks", "shop-search", "--modes", "affordances", "--sizes", "demo", "--out", out}); code != exitOK {
		t.Fatalf("got exit code %d, want 0\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), "affordances") || !strings.Contains(stdout.String(), "1/1") {
		t.Errorf("got stdout %q, want the affordances mode's 1/1 verified", stdout)
	}
	if !strings.Contains(stderr.String(), "shop-search affordances: step 1, delta: call search") {
		t.Errorf("got stderr %q, want a line per step", stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []map[string]any
	if err := json.Unmarshal(b, &runs); err != nil || len(runs) != 1 || runs[0]["verified"] != true {
		t.Errorf("got report.json %s (%v), want one verified run", b, err)
	}
	for _, f := range []string{"report.md", "chart.svg", "demo/shop-search/affordances/00-graph.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestBenchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--sites", "forum"},
		{"bench", "--modes", "telepathy"},
		{"bench", "--sizes", "huge"},
		{"bench", "--tasks", "shop-nothing"},
		{"bench", "extra"},
	} {
		e, _, stderr := testEnv(nil)
		if code := run(t.Context(), e, args); code != exitUsage {
			t.Errorf("%q: got exit code %d, want %d (stderr %q)", args, code, exitUsage, stderr)
		}
	}
}
