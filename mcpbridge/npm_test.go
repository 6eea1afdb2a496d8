package mcpbridge_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/pdeathsig"
	"github.com/affordances/affordances-go/mcpbridge"
)

// npmSDK is the version of the official TypeScript MCP SDK the test runs.
const npmSDK = "@modelcontextprotocol/sdk@1.32.2"

// TestTypeScriptClient: a real external client, the TypeScript MCP SDK
// from npm, lists the tools, fetches a page and executes search, against
// the bridge (as `affordances mcp --http` serves it) and against the
// demo's own /mcp endpoint (issue 7).
func TestTypeScriptClient(t *testing.T) {
	node, errNode := exec.LookPath("node")
	npm, errNPM := exec.LookPath("npm")
	if errNode != nil || errNPM != nil {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatal("node and npm are needed for the TypeScript MCP client test")
		}
		t.Skip("node or npm is not installed")
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(installSDK(t, npm), "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "client.mjs")
	src, err := os.ReadFile("testdata/client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}

	_, site := demotest.Shop(t, &shop.Options{MCP: "/mcp"}, withMCP)
	server := mcpbridge.NewServer(nil)
	bridge := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer bridge.Close()

	for _, tc := range []struct{ name, endpoint string }{
		{"affordances mcp --http", bridge.URL + "/mcp"},
		{"the demo's /mcp", site.URL + "/mcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := exec.CommandContext(t.Context(), node, script, tc.endpoint, site.URL)
			pdeathsig.Set(run)
			run.Dir = dir
			out, err := run.Output()
			if err != nil {
				var stderr string
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("node client: %v\n%s\n%s", err, out, stderr)
			}
			var got struct {
				Tools       []string       `json:"tools"`
				Page        map[string]any `json:"page"`
				PageError   bool           `json:"pageError"`
				Search      map[string]any `json:"search"`
				SearchError bool           `json:"searchError"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("client output %q: %v", out, err)
			}
			if want := []string{"execute_affordance", "fetch_affordances", "site_index"}; !slices.Equal(got.Tools, want) {
				t.Errorf("tools: got %v, want %v", got.Tools, want)
			}
			if got.PageError || got.Page["route"] != "/" {
				t.Errorf("fetch_affordances: got error %v, %v; want the catalog's graph", got.PageError, got.Page)
			}
			delta, _ := json.Marshal(got.Search["delta"])
			if got.SearchError || got.Search["ok"] != true || !strings.Contains(string(delta), "canvas-tote") {
				t.Errorf("execute_affordance search: got error %v, %s; want ok with the tote", got.SearchError, delta)
			}
		})
	}
}

// installSDK returns a directory whose node_modules hold npmSDK. It is
// installed once into the user's cache directory and kept there, as Go's
// module cache keeps modules (an install costs npm some 7 CPU-seconds),
// by way of a temporary directory beside it, renamed when npm succeeds:
// what is there is whole.
func installSDK(t *testing.T, npm string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "affordances-go", "npm", strings.NewReplacer("@", "", "/", "-").Replace(npmSDK))
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	install := exec.Command(npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", tmp, npmSDK)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", npmSDK, err, out)
	}
	// Another test binary may have put it there first: theirs is as good.
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr != nil {
			t.Fatal(err)
		}
	}
	return dir
}
