package main

import (
	"flag"
	"strings"
	"testing"
)

// TestWriteValue: entities summarised for a person.
func TestWriteValue(t *testing.T) {
	rows := make([]any, 5)
	for i := range rows {
		rows[i] = map[string]any{"n": float64(i), "long": strings.Repeat("x", 120)}
	}
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"scalar", "hi\u200b", "  k: \"hi\\u200b\"\n"},
		{"short array of scalars", []any{"a", "b"}, "  k: 2 items [\"a\",\"b\"]\n"},
		{"empty array", []any{}, "  k: 0 items\n"},
		{"long array of objects", rows, "  k: 5 items\n" +
			"    - {\"long\":\"" + strings.Repeat("x", 100-len(`    - {"long":"`)-1) + "…\n" +
			"    - {\"long\":\"" + strings.Repeat("x", 100-len(`    - {"long":"`)-1) + "…\n" +
			"    - {\"long\":\"" + strings.Repeat("x", 100-len(`    - {"long":"`)-1) + "…\n" +
			"    … 2 more\n"},
		{"small object", map[string]any{"b": 1.0, "a": true}, "  k: {\"a\":true,\"b\":1}\n"},
		{"large object", map[string]any{"b": strings.Repeat("y", 90), "a": 1.0}, "  k:\n    a: 1\n    b: \"" + strings.Repeat("y", 90) + "\"\n"},
	} {
		var b strings.Builder
		writeValue(&b, "  ", "k", tc.v, 0)
		if b.String() != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, b.String(), tc.want)
		}
	}
}

// TestInterspersed: flags may follow the arguments; a flag's value stays
// with it; "--" ends the flags.
func TestInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Bool("json", false, "")
	fs.String("token", "", "")
	var g grantList
	fs.Var(&g, "grant", "")
	for _, tc := range []struct{ in, want string }{
		{"URL ACTION --json", "--json -- URL ACTION"},
		{"--token t URL --grant a --grant=b ACTION {}", "--token t --grant a --grant=b -- URL ACTION {}"},
		{"URL ACTION - --json", "--json -- URL ACTION -"},
		{"URL -- -1 --json", "-- URL -1 --json"},
		{"--help", "--help"},
		{"URL --nope x", "--nope -- URL x"},
		{"URL --token", "--token"},
	} {
		if got := strings.Join(interspersed(fs, strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("interspersed(%s): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAgentHelp: each agent command's help teaches its flags, an example,
// the token variable and every exit code.
func TestAgentHelp(t *testing.T) {
	for _, name := range []string{"inspect", "call", "index"} {
		code, out, _ := cli(t, nil, name, "--help")
		if code != exitOK {
			t.Errorf("%s --help: exit %d, want 0", name, code)
		}
		for _, w := range []string{"Usage: affordances " + name, "-json", "-token", "-cookie-jar", "$AFFORDANCES_TOKEN", "Example:",
			"Exit status:", "  1  the site answered an error delta", "  2  usage", "  3  the call needed a person's approval", "  4  network or protocol failure"} {
			if !strings.Contains(out, w) {
				t.Errorf("%s --help lacks %q:\n%s", name, w, out)
			}
		}
	}
	_, out, _ := cli(t, nil, "help", "call")
	for _, w := range []string{"-approve", "the person's explicit approval of this one call; never give it on a model's behalf", "-grant", "-unattended", "Approve? [y/N]"} {
		if !strings.Contains(out, w) {
			t.Errorf("help call lacks %q:\n%s", w, out)
		}
	}
}
