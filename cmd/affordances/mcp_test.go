package main

import (
	"bytes"
	"context"
	"flag"
	"regexp"
	"strings"
	"testing"
)

func TestMCPCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"mcp", "--help"}, exitOK},
		{[]string{"mcp", "--grant", "bogus"}, exitUsage},
		{[]string{"mcp", "extra"}, exitUsage},
		{[]string{"mcp", "--http"}, exitUsage},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			e := &env{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
			if got := run(context.Background(), e, tc.args); got != tc.want {
				t.Errorf("got exit %d, want %d (%s)", got, tc.want, errOut.String())
			}
		})
	}
}

// TestHelpNamesOnlyItsFlags: every --flag a command's help names is one of
// its flags (issue 14: mcp --help documented a --cookie-jar it lacks).
func TestHelpNamesOnlyItsFlags(t *testing.T) {
	flagName := regexp.MustCompile(`(?:^|[\s("'])--([a-z][a-z-]*)`)
	for _, name := range []string{"mcp", "lint", "conform", "call", "inspect"} {
		t.Run(name, func(t *testing.T) {
			e, out, _ := testEnv(nil)
			if code := run(context.Background(), e, []string{name, "--help"}); code != exitOK {
				t.Fatalf("got exit %d, want 0", code)
			}
			fs := flag.NewFlagSet(name, flag.ContinueOnError)
			lookup(name).Flags(fs)
			for _, m := range flagName.FindAllStringSubmatch(out.String(), -1) {
				if fs.Lookup(m[1]) == nil && m[1] != "help" {
					t.Errorf("got --%s in the help, want only flags of %s", m[1], name)
				}
			}
		})
	}
}
