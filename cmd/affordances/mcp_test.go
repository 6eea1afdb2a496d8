package main

import (
	"bytes"
	"context"
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
