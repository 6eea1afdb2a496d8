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
	"github.com/affordances/affordances-go/internal/node"
	"github.com/affordances/affordances-go/internal/pdeathsig"
	"github.com/affordances/affordances-go/mcpbridge"
)

// TestTypeScriptClient: real external clients, the TypeScript MCP SDK
// from npm (the versions internal/node/package-lock.json pins, as make
// deps installed them), v1 speaking MCP 2025-11-25 and v2 2026-07-28, list
// the tools (every hint set), fetch a page and execute search, against the
// bridge (as `affordances mcp --http` serves it) and against the demo's own
// /mcp endpoint (issues 7 and 40).
func TestTypeScriptClient(t *testing.T) {
	_, site := demotest.Shop(t, &shop.Options{MCP: "/mcp"}, withMCP)
	server := mcpbridge.NewServer(nil)
	bridge := httptest.NewServer(mcpbridge.StreamableHTTP(func(*http.Request) *mcp.Server { return server }))
	defer bridge.Close()

	for _, client := range []struct{ script, version string }{
		{"client.mjs", "2025-11-25"},
		{"client2026.mjs", "2026-07-28"},
	} {
		nodejs, dir := nodeScript(t, client.script)
		for _, tc := range []struct{ name, endpoint string }{
			{"affordances mcp --http", bridge.URL + "/mcp"},
			{"the demo's /mcp", site.URL + "/mcp"},
		} {
			t.Run(client.version+", "+tc.name, func(t *testing.T) {
				run := exec.CommandContext(t.Context(), nodejs, filepath.Join(dir, client.script), tc.endpoint, site.URL)
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
					Version     string                     `json:"version"`
					Tools       []string                   `json:"tools"`
					Annotations map[string]map[string]bool `json:"annotations"`
					Page        map[string]any             `json:"page"`
					PageError   bool                       `json:"pageError"`
					Search      map[string]any             `json:"search"`
					SearchError bool                       `json:"searchError"`
				}
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("client output %q: %v", out, err)
				}
				if got.Version != client.version {
					t.Errorf("MCP version: got %q, want %s", got.Version, client.version)
				}
				if want := []string{"execute_affordance", "fetch_affordances", "site_index"}; !slices.Equal(got.Tools, want) {
					t.Errorf("tools: got %v, want %v", got.Tools, want)
				}
				for name, hints := range got.Annotations {
					if len(hints) != 4 {
						t.Errorf("%s: annotations %v, want the four hints set", name, hints)
					}
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
}

// nodeScript returns node and a directory of the test's holding the
// script testdata/name beside the npm packages internal/node pins (as make
// deps installed them). Under go test -short the test skips; without node
// or the packages it skips, or fails under make check (AFFORDANCES_CHECK),
// where nothing may skip.
func nodeScript(t *testing.T, name string) (nodejs, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no node, no npm packages (make check runs the client)")
	}
	check := os.Getenv("AFFORDANCES_CHECK") != ""
	nodejs, err := exec.LookPath("node")
	if err != nil {
		if check {
			t.Fatal("node is needed for the TypeScript MCP client test: make check should have installed it (make deps)")
		}
		t.Skip("node is not installed; make check installs it")
	}
	packages, err := node.Repo()
	if err != nil {
		if check {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir = t.TempDir()
	if err := os.Symlink(filepath.Join(packages, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return nodejs, dir
}
