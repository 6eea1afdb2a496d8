package main

import (
	"context"
	"strings"
	"testing"
)

// TestLintFiles: lint reads AAL documents and seed 000 documents from
// files, names each problem with its JSON Pointer, and exits 1 on any
// (issue 3, CLI).
func TestLintFiles(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		want     []string // substrings of stdout
	}{
		{"clean fragment", []string{"lint", "testdata/lint/fragment-ok.json"}, exitOK, []string{"ok    testdata/lint/fragment-ok.json (fragment)", "1 document checked, 0 problems"}},
		{"clean manifest", []string{"lint", "testdata/lint/manifest-ok.json"}, exitOK, []string{"(manifest)", "0 problems"}},
		{"broken fragment", []string{"lint", "testdata/lint/fragment-bad.json"}, exitFail, []string{
			"(fragment) /affordances/0/label:", `\u200b`, // the invisible character is shown, not hidden
			"(fragment) /affordances/1/action:", "(fragment) /affordances/1/id:", "(fragment) /flow", "(fragment) /affordances/1/cost/currency:"}},
		{"broken graph", []string{"lint", "testdata/lint/graph-bad.json"}, exitFail, []string{"(graph) /actions/0: missing property 'available'", "(graph) /actions/0/expose:"}},
		{"not a known document", []string{"lint", "testdata/lint/unknown.json"}, exitFail, []string{"(unknown)"}},
		{"several files", []string{"lint", "testdata/lint/fragment-ok.json", "testdata/lint/graph-bad.json"}, exitFail, []string{"2 documents checked"}},
		{"missing file is a usage error", []string{"lint", "testdata/lint/nope.json"}, exitUsage, nil},
		{"no argument is a usage error", []string{"lint"}, exitUsage, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, out, errOut := testEnv(nil)
			if code := run(context.Background(), e, tc.args); code != tc.wantCode {
				t.Errorf("exit: got %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestLintDemo: `affordances lint URL` against the running demo walks the
// index, the manifest and every page reachable through nav, and finds no
// problem, anonymous and signed in (issue 3, "Done when").
func TestLintDemo(t *testing.T) {
	url := startDemo(t, "lint-token")
	for _, args := range [][]string{
		{"lint", url},
		{"lint", "--token", "lint-token", url},
	} {
		e, out, errOut := testEnv(nil)
		if code := run(context.Background(), e, args); code != exitOK {
			t.Errorf("%v: exit %d, want 0\n%s\n%s", args, code, out, errOut)
		}
		for _, w := range []string{"(site index)", "(manifest)", "/products/", "(fragment)", " 0 problems"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: stdout lacks %q:\n%s", args, w, out)
			}
		}
	}
}
