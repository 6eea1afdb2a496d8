package main

import (
	"context"
	"strings"
	"testing"
)

// TestConformDemo: `affordances conform URL --allow-writes --token T`
// against the running demo reports every must passing (issue 6, "Done
// when"), with a summary table on stdout and progress on stderr.
func TestConformDemo(t *testing.T) {
	url := startDemo(t, "conform-token")
	e, out, errOut := testEnv(nil)
	args := []string{"conform", url, "--allow-writes", "--token", "conform-token"}
	if code := run(context.Background(), e, args); code != exitOK {
		t.Fatalf("%v: exit %d, want 0\n%s\n%s", args, code, out, errOut)
	}
	for _, w := range []string{"ID", "v0.negotiation.wildcard", "aal.selector.unique", "passed, 0 failed"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(errOut.String(), "pass   must   v0.discovery.index") {
		t.Errorf("stderr lacks the progress:\n%s", errOut)
	}
}

func TestConformUsage(t *testing.T) {
	for _, args := range [][]string{
		{"conform"},
		{"conform", "not-a-url"},
		{"conform", "http://127.0.0.1:1", "--allow-writes"},
	} {
		e, out, errOut := testEnv(nil)
		if code := run(context.Background(), e, args); code != exitUsage {
			t.Errorf("%v: exit %d, want 2\n%s\n%s", args, code, out, errOut)
		}
	}
	e, out, _ := testEnv(nil)
	if code := run(context.Background(), e, []string{"conform", "--help"}); code != exitOK || !strings.Contains(out.String(), "--allow-writes") {
		t.Errorf("conform --help: exit %d\n%s", code, out)
	}
}

// TestConformFails: a site that is not there fails its musts: exit 1.
func TestConformFails(t *testing.T) {
	e, out, errOut := testEnv(nil)
	if code := run(context.Background(), e, []string{"conform", "http://127.0.0.1:1"}); code != exitFail {
		t.Errorf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
}
