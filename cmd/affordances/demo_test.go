package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
)

// startBoard runs `affordances demo board` on a free port with token as
// alice's, until the test ends, and returns its URL and what it printed
// before it listened.
func startBoard(t *testing.T, token string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	e := &env{stdout: pw, stderr: io.Discard, getenv: func(k string) string {
		if k == demoTokenEnv {
			return token
		}
		return ""
	}}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, e, []string{"demo", "board", "--addr", "127.0.0.1:0", "--data", filepath.Join(t.TempDir(), "board")})
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != exitOK {
				t.Errorf("demo board: exit %d, want 0", code)
			}
		case <-time.After(10 * time.Second):
			t.Error("demo board did not stop")
		}
	})
	var printed strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		printed.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "Press Ctrl-C") {
			go io.Copy(io.Discard, pr)
			u, _, _ := strings.Cut(strings.TrimPrefix(printed.String(), "Demo board listening on "), "\n")
			return u, printed.String()
		}
	}
	t.Fatalf("demo board did not say where it listens:\n%s", printed.String())
	return "", ""
}

// TestDemoBoard: `affordances demo board` serves the task board, prints
// alice's sign-in and the token of $AFFORDANCES_DEMO_TOKEN, and answers an
// agent with that token the graph of her private board.
func TestDemoBoard(t *testing.T) {
	url, printed := startBoard(t, "board-cli-token")
	for _, w := range []string{"sign in: alice@example.com / alice", "token:   board-cli-token", "/boards"} {
		if !strings.Contains(printed, w) {
			t.Errorf("demo board printed no %q:\n%s", w, printed)
		}
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/boards/team-offsite", nil)
	req.Header.Set("Accept", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer board-cli-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != affordances.MediaType {
		t.Errorf("GET /boards/team-offsite with alice's token: got %d %q, want 200 and the graph", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestDemoArgs: the demo is the shop or the board; anything else is a
// usage error, and the help shows both.
func TestDemoArgs(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{[]string{"demo", "cafe"}, exitUsage, "", `unexpected argument "cafe": the demo is shop or board`},
		{[]string{"demo", "board", "extra"}, exitUsage, "", `unexpected argument "extra"`},
		{[]string{"help", "demo"}, exitOK, "affordances demo board", ""},
		{[]string{"demo", "board", "--help"}, exitOK, "Usage: affordances demo [flags] [shop|board]", ""},
	} {
		e, out, errOut := testEnv(nil)
		if code := run(t.Context(), e, tc.args); code != tc.wantCode {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.wantCode, errOut)
		}
		if !strings.Contains(out.String(), tc.wantStdout) || !strings.Contains(errOut.String(), tc.wantStderr) {
			t.Errorf("%v: got stdout %q and stderr %q, want %q and %q", tc.args, out, errOut, tc.wantStdout, tc.wantStderr)
		}
	}
}

// TestLintBoard: `affordances lint URL` finds no problem in the task
// board, anonymous and as alice: every page, fragment and selector, the
// cards' buttons with their data-aal-input included. The board's / only
// redirects to /boards and has no graph, so lint starts from the index's
// routes.
func TestLintBoard(t *testing.T) {
	url, _ := startBoard(t, "board-lint-token")
	for _, args := range [][]string{
		{"lint", url},
		{"lint", "--token", "board-lint-token", url},
		{"lint", url + "/boards"},
	} {
		e, out, errOut := testEnv(nil)
		if code := run(context.Background(), e, args); code != exitOK {
			t.Errorf("%v: exit %d, want 0\n%s\n%s", args, code, out, errOut)
		}
		for _, w := range []string{"(site index)", "(manifest)", "/boards/website-relaunch", "(fragment)", " 0 problems"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: stdout lacks %q:\n%s", args, w, out)
			}
		}
		if private := strings.Contains(out.String(), "/boards/team-offsite"); private != slices.Contains(args, "--token") {
			t.Errorf("%v: the private board linted: %v, want it only with alice's token:\n%s", args, private, out)
		}
	}
}
