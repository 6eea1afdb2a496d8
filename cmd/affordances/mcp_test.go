package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/internal/tokens"
	"github.com/affordances/affordances-go/mcpbridge"
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
		// issue 14: a token or a grant that would go to any site
		{[]string{"mcp", "--token", "alice-token"}, exitUsage},
		{[]string{"mcp", "--grant", "financial:50USD"}, exitUsage},
		{[]string{"mcp", "--site", "https://shop.example", "--grant", "financial@https://elsewhere.example"}, exitUsage},
		{[]string{"mcp", "--site", "shop.example"}, exitUsage},
		{[]string{"mcp", "--site", "https://a.example", "--token", "t", "--token", "u"}, exitUsage},
		{[]string{"mcp", "--token", "https://a.example="}, exitUsage},
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

// TestMCPTokenStaysWithItsSite: the command line of issue 14 (--token
// alice-token, then a URL the model names) sends the token to the --site
// only; $AFFORDANCES_TOKEN without --site is sent nowhere.
func TestMCPTokenStaysWithItsSite(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]string{} // Authorization headers by listener
	listen := func(name string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got[name] = append(got[name], r.Header.Get("Authorization"))
			mu.Unlock()
			http.NotFound(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	site, elsewhere := listen("site"), listen("elsewhere")
	for _, tc := range []struct {
		name   string
		sites  []string
		tokens []string
		env    string
		want   map[string]string // the Authorization each listener gets
	}{
		{"--site and --token", []string{site}, []string{"alice-token"}, "", map[string]string{"site": "Bearer alice-token", "elsewhere": ""}},
		{"--token ORIGIN=TOKEN", nil, []string{site + "=alice-token"}, "", map[string]string{"site": "Bearer alice-token", "elsewhere": ""}},
		{"$AFFORDANCES_TOKEN and --site", []string{site}, nil, "alice-token", map[string]string{"site": "Bearer alice-token", "elsewhere": ""}},
		{"$AFFORDANCES_TOKEN alone", nil, nil, "alice-token", map[string]string{"site": "", "elsewhere": ""}},
		// The sign-in affordances login kept for site: sent to it alone,
		// and only when it is a --site.
		{"--site signed in", []string{site}, nil, "", map[string]string{"site": "Bearer kept-token", "elsewhere": ""}},
		{"signed in, not a --site", []string{elsewhere}, nil, "", map[string]string{"site": "", "elsewhere": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			clear(got)
			mu.Unlock()
			kept := &tokens.File{Path: filepath.Join(t.TempDir(), "tokens.json")}
			if err := kept.Put(site, &tokens.SignIn{AccessToken: "kept-token", Expiry: time.Now().Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
			e, _, _ := testEnv(map[string]string{tokenEnv: tc.env, tokens.FileEnv: kept.Path})
			opts, err := mcpOptions(e, tc.sites, tc.tokens, nil)
			if err != nil {
				t.Fatal(err)
			}
			ct, st := mcp.NewInMemoryTransports()
			ss, err := mcpbridge.NewServer(opts).Connect(t.Context(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, u := range []string{site, elsewhere} {
				if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fetch_affordances", Arguments: map[string]any{"url": u + "/"}}); err != nil {
					t.Fatal(err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for name, want := range tc.want {
				if len(got[name]) == 0 || slices.ContainsFunc(got[name], func(a string) bool { return a != want }) {
					t.Errorf("%s: got Authorization %q, want %q", name, got[name], want)
				}
			}
		})
	}
}

// TestMCPHTTPOrigin: mcp --http answers no request whose Origin header is
// present and is not the bridge's own (403), as the MCP streamable HTTP
// transport asks of servers against DNS rebinding: a page of another site,
// another scheme or port, Origin null, or a name that resolves to the
// bridge's address. An MCP client, which sends no Origin, is served.
func TestMCPHTTPOrigin(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	e, _, errOut := testEnv(nil)
	done := make(chan int, 1)
	go func() { done <- run(ctx, e, []string{"mcp", "--http", "127.0.0.1:0"}) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("mcp --http: got exit %d, want 0 (%s)", code, errOut.String())
		}
	})
	listening := regexp.MustCompile(`listening on (http://127\.0\.0\.1:(\d+))/mcp`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if m = listening.FindStringSubmatch(errOut.String()); m == nil && time.Now().After(deadline) {
			t.Fatalf("mcp --http said %q, want the address it listens on", errOut.String())
		}
	}
	own, port := m[1], m[2]
	for _, tc := range []struct {
		name    string
		host    string // the Host header; "": the address
		origins []string
		status  int
	}{
		{"no Origin (an MCP client)", "", nil, 200},
		{"its own Origin", "", []string{own}, 200},
		{"its own Origin by the name localhost", "", []string{"http://localhost:" + port}, 200},
		{"another site", "", []string{"https://evil.example"}, 403},
		{"https on its host and port", "", []string{"https://127.0.0.1:" + port}, 403},
		{"another port", "", []string{"http://127.0.0.1:1"}, 403},
		{"null", "", []string{"null"}, 403},
		{"its own and another", "", []string{own, "https://evil.example"}, 403},
		{"DNS rebinding", "rebound.example:" + port, []string{"http://rebound.example:" + port}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, own+"/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header["Origin"] = tc.origins
			if tc.host != "" {
				req.Host = tc.host
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != tc.status {
				t.Errorf("got %d, want %d", res.StatusCode, tc.status)
			}
		})
	}
}
