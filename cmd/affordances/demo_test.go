package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/servicetest"
	"github.com/redis/go-redis/v9"
)

// launch runs `affordances` with args (a demo command) on a free port,
// with token as alice's, and returns its URL, what it printed before it
// listened, and a func that stops it and checks it exited 0.
func launch(t *testing.T, token string, args ...string) (string, string, func()) {
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
		done <- run(ctx, e, append(args, "--addr", "127.0.0.1:0"))
		pw.Close()
	}()
	stop := func() {
		cancel()
		select {
		case code := <-done:
			if code != exitOK {
				t.Errorf("%v: exit %d, want 0", args, code)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%v did not stop", args)
		}
	}
	var printed strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		printed.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "Press Ctrl-C") {
			go io.Copy(io.Discard, pr)
			first, _, _ := strings.Cut(printed.String(), "\n")
			return first[strings.LastIndex(first, " ")+1:], printed.String(), stop
		}
	}
	stop()
	t.Fatalf("%v did not say where it listens:\n%s", args, printed.String())
	return "", "", nil
}

// TestDemoKeysOutliveARestart: a call with an Idempotency-Key, answered
// before the demo stops, is replayed by the demo started again on the same
// data, and the action does not run twice (the keys live in its SQLite
// file); with --redis they live in Redis.
func TestDemoKeysOutliveARestart(t *testing.T) {
	dir := demotest.ShopData(t)
	call := func(url, key string) (int, string, string) {
		req, _ := http.NewRequest("POST", url+"/products/canvas-tote", strings.NewReader(`{"action":"addToCart","input":{"sku":"TOTE-NAT","quantity":1}}`))
		req.Header.Set("Content-Type", affordances.MediaType)
		req.Header.Set("Authorization", "Bearer restart-token")
		req.Header.Set("Idempotency-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, res.Header.Get("Idempotent-Replayed"), string(b)
	}
	url, _, stop := launch(t, "restart-token", "demo", "--data", dir)
	status, replayed, first := call(url, "crash-key-1")
	stop()
	if status != 200 || replayed != "" {
		t.Fatalf("first call: %d replayed %q %s", status, replayed, first)
	}
	url, _, stop = launch(t, "restart-token", "demo", "--data", dir)
	defer stop()
	status, replayed, again := call(url, "crash-key-1")
	if status != 200 || replayed != "true" || again != first {
		t.Errorf("after the restart: %d replayed %q %s, want the first answer replayed: %s", status, replayed, again, first)
	}
	if _, _, fresh := call(url, "crash-key-2"); !strings.Contains(fresh, `"count":2`) {
		t.Errorf("another key: %s, want the cart at 2 (the first key ran once)", fresh)
	}
}

// TestDemoArgs: the demo is the shop or plain; the board, a program of
// its own, is a usage error that says how to run it; anything else is a
// usage error, and the help shows them.
func TestDemoArgs(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{[]string{"demo", "cafe"}, exitUsage, "", `unexpected argument "cafe": the demo is shop or plain (the board: go run ./examples/board)`},
		{[]string{"demo", "board"}, exitUsage, "", "the task board is a program of its own now, to read and copy: run go run ./examples/board"},
		{[]string{"demo", "board", "--addr", "127.0.0.1:0"}, exitUsage, "", "run go run ./examples/board"},
		{[]string{"demo", "plain", "extra"}, exitUsage, "", `unexpected argument "extra"`},
		{[]string{"demo", "plain", "--data", "/tmp/x"}, exitUsage, "", "the plain demo keeps everything in memory and takes only --addr"},
		{[]string{"help", "demo"}, exitOK, "go run ./examples/board -addr", ""},
		{[]string{"help", "demo"}, exitOK, "affordances demo plain --addr", ""},
		{[]string{"demo", "board", "--help"}, exitOK, "Usage: affordances demo [flags] [shop|plain]", ""},
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
// board (examples/board, run as a process of its own), anonymous and as
// alice: every page, fragment and selector, the cards' buttons with their
// data-aal-input included. The board's / only redirects to /boards and
// has no graph, so lint starts from the index's routes.
func TestLintBoard(t *testing.T) {
	url := demotest.StartBoard(t, nil, "-token", "board-lint-token").URL
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

// TestDemoRedis: with --redis the demo keeps its Idempotency-Keys and rate
// limits in Redis (where other instances find them); a URL that is not
// Redis's is a usage error.
func TestDemoRedis(t *testing.T) {
	r := servicetest.StartRedis(t)
	url, _, stop := launch(t, "redis-token", "demo", "--data", demotest.ShopData(t), "--redis", "redis://"+r.Addr+"/0")
	defer stop()
	req, _ := http.NewRequest("POST", url+"/", strings.NewReader(`{"action":"search","input":{"q":"tote"}}`))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Idempotency-Key", "redis-key-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer rdb.Close()
	for _, pattern := range []string{"affordances:idem:*", "affordances:limit:*"} {
		if keys, err := rdb.Keys(t.Context(), pattern).Result(); err != nil || len(keys) != 1 {
			t.Errorf("Redis keys %s: got %v, %v; want one", pattern, keys, err)
		}
	}
	e, _, errOut := testEnv(nil)
	if code := run(t.Context(), e, []string{"demo", "--redis", "http://not-redis"}); code != exitUsage || !strings.Contains(errOut.String(), "--redis") {
		t.Errorf("--redis http://not-redis: exit %d %q, want a usage error", code, errOut)
	}
}

// TestDemoMCPAsksForOAuth: the demo's /mcp answers a client without a
// token 401 with where its protected resource metadata is (RFC 9728,
// docs/protocol.md decision 14), which names the shop as its authorization server;
// with alice's bearer token it serves. --addr on every address without
// --origin is a usage error: the shop's tokens name its origin.
func TestDemoMCPAsksForOAuth(t *testing.T) {
	url, printed, stop := launch(t, "mcp-token", "demo", "--data", demotest.ShopData(t))
	defer stop()
	if !strings.Contains(printed, url+"/mcp") {
		t.Errorf("the demo's banner lacks its /mcp:\n%s", printed)
	}
	initialize := func(token string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	want := `Bearer resource_metadata="` + url + `/.well-known/oauth-protected-resource"`
	if res := initialize(""); res.StatusCode != http.StatusUnauthorized || res.Header.Get("WWW-Authenticate") != want {
		t.Errorf("/mcp without a token: got %d %q, want 401 %q", res.StatusCode, res.Header.Get("WWW-Authenticate"), want)
	}
	if res := initialize("mcp-token"); res.StatusCode != http.StatusOK {
		t.Errorf("/mcp with alice's token: got %d, want 200", res.StatusCode)
	}
	res, err := http.Get(url + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	err = json.NewDecoder(res.Body).Decode(&meta)
	res.Body.Close()
	if err != nil || meta.Resource != url || !slices.Equal(meta.AuthorizationServers, []string{url}) {
		t.Errorf("protected resource metadata: got %+v (%v), want the shop naming itself", meta, err)
	}

	e, _, errOut := testEnv(nil)
	if code := run(t.Context(), e, []string{"demo", "--data", t.TempDir(), "--addr", "0.0.0.0:0"}); code != exitUsage || !strings.Contains(errOut.String(), "--origin") {
		t.Errorf("--addr 0.0.0.0:0 without --origin: exit %d %q, want a usage error naming --origin", code, errOut)
	}
}
