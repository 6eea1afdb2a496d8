package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
)

// syncBuffer is an io.Writer safe for the demo's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func testEnv(vars map[string]string) (*env, *syncBuffer, *syncBuffer) {
	var out, errOut syncBuffer
	return &env{stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }}, &out, &errOut
}

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // a substring
		wantStderr string // a substring
	}{
		{"no command is a usage error", nil, exitUsage, "", "Usage:"},
		{"an unknown command is a usage error", []string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{"help lists the commands", []string{"help"}, exitOK, "demo", ""},
		{"--help lists the commands", []string{"--help"}, exitOK, "version", ""},
		{"help demo teaches with an example", []string{"help", "demo"}, exitOK, "Example:", ""},
		{"help of an unknown command", []string{"help", "nope"}, exitUsage, "", `unknown command "nope"`},
		{"demo --help shows the flags", []string{"demo", "--help"}, exitOK, "-addr", ""},
		{"demo with a bad flag", []string{"demo", "--port", "1"}, exitUsage, "", "flag provided but not defined: -port"},
		{"demo with an argument", []string{"demo", "extra"}, exitUsage, "", `unexpected argument "extra"`},
		{"version", []string{"version"}, exitOK, "affordances ", ""},
		{"version with an argument", []string{"version", "x"}, exitUsage, "", "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, out, errOut := testEnv(nil)
			if got := run(t.Context(), e, tt.args); got != tt.wantCode {
				t.Errorf("got exit code %d, want %d\nstderr: %s", got, tt.wantCode, errOut)
			}
			if !strings.Contains(out.String(), tt.wantStdout) {
				t.Errorf("got stdout %q, want it to contain %q", out, tt.wantStdout)
			}
			if !strings.Contains(errOut.String(), tt.wantStderr) {
				t.Errorf("got stderr %q, want it to contain %q", errOut, tt.wantStderr)
			}
		})
	}
}

func TestDataDir(t *testing.T) {
	tests := []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/a"}, "/xdg/affordances-demo"},
		{map[string]string{"HOME": "/home/a"}, "/home/a/.local/share/affordances-demo"},
	}
	for _, tt := range tests {
		e, _, _ := testEnv(tt.vars)
		if got, err := dataDir(e); err != nil || got != tt.want {
			t.Errorf("dataDir(%v): got %q, %v, want %q", tt.vars, got, err, tt.want)
		}
	}
}

// TestDemo runs the demo on a free port, asks it for a graph with the token
// it printed, and stops it as Ctrl-C would.
func TestDemo(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var errOut syncBuffer
	e := &env{stdout: pw, stderr: &errOut, getenv: func(k string) string {
		if k == demoTokenEnv {
			return "cli-test-token"
		}
		return ""
	}}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, e, []string{"demo", "--addr", "127.0.0.1:0", "--data", t.TempDir()})
		pw.Close()
	}()

	lines := bufio.NewScanner(pr)
	var url, token string
	for lines.Scan() && (url == "" || token == "") {
		l := lines.Text()
		if u, ok := strings.CutPrefix(l, "Demo shop listening on "); ok {
			url = u
		}
		if tok, ok := strings.CutPrefix(strings.TrimSpace(l), "token:"); ok {
			token = strings.TrimSpace(tok)
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" || token != "cli-test-token" {
		t.Fatalf("got url %q and token %q, want the demo's address and $%s\nstderr: %s", url, token, demoTokenEnv, errOut.String())
	}

	req, _ := http.NewRequest("GET", url+"/cart", nil)
	req.Header.Set("Accept", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != affordances.MediaType {
		t.Errorf("GET /cart: got %d %q, want 200 %s", resp.StatusCode, resp.Header.Get("Content-Type"), affordances.MediaType)
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("got exit code %d, want 0\nstderr: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the demo did not stop")
	}
}

// TestErrorsSayAffordancesOnce: a library error printed by a command does
// not repeat the prefix (issue 14: "affordances inspect: affordances: GET /"),
// nor add the agent package's ("affordances inspect: agent: GET /").
func TestErrorsSayAffordancesOnce(t *testing.T) {
	for _, args := range [][]string{
		{"inspect", "http://127.0.0.1:1/"},
		{"index", "http://127.0.0.1:1/"},
		{"call", "http://127.0.0.1:1/", "go"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			e, _, errOut := testEnv(nil)
			run(context.Background(), e, args)
			if msg := errOut.String(); !strings.HasPrefix(msg, "affordances "+args[0]+": ") || strings.Contains(msg, "affordances: ") || strings.Contains(msg, "agent: ") {
				t.Errorf("got %q, want one affordances prefix, the command's", msg)
			}
		})
	}
}

// TestUnreachableIsOneSentence: a site where nothing listens is one line
// on stderr, what could not be reached, why and what to try, with no
// package name, the URL once, and exit 4; conform runs no check and lint
// lists no problem (issue 36).
func TestUnreachableIsOneSentence(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	origin := "http://" + host
	why := " (connection refused: nothing listens at " + host + "); is the site running, at that address?\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", origin + "/cart"}, "could not reach " + origin + "/cart" + why},
		{[]string{"call", origin + "/", "search", `{"q":"tote"}`}, "could not reach " + origin + "/" + why},
		{[]string{"index", origin}, "could not reach " + origin + "/.well-known/affordances.json" + why},
		{[]string{"lint", origin}, "could not reach " + origin + why},
		{[]string{"conform", origin}, "could not reach " + origin + why},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			code, out, errOut := cli(t, nil, tc.args...)
			if want := "affordances " + tc.args[0] + ": " + tc.want; code != exitNetwork || errOut != want || out != "" {
				t.Errorf("got exit %d, stderr %q, stdout %q; want 4, stderr %q, no stdout", code, errOut, out, want)
			}
		})
	}
}
