package bench_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/bench"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/node"
)

// TestAXTreeMode: the axtree mode performs a task through the same UI
// interactions with playwright-core, as make deps installed it, and reads
// Playwright's AI snapshot after each.
func TestAXTreeMode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser, no npm packages (make check runs the mode)")
	}
	dir, err := node.Repo()
	if err != nil {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	m := bench.NewAXTreeMode(&bench.AXTreeOptions{Packages: dir})
	t.Cleanup(func() { m.Close() })
	err = m.Start(context.Background())
	if !errors.Is(err, bench.ErrNoNode) {
		needs(t, err, browser.ErrNoChromium)
	}
	needs(t, err, bench.ErrNoNode)
	for _, tc := range uiTasks {
		obs, root := runTask(t, m, tc.id)
		if got := whats(obs); !slices.Equal(got, tc.whats) {
			t.Errorf("%s: the agent observed after %q, want %q", tc.id, got, tc.whats)
		}
		for i, o := range obs {
			b, err := os.ReadFile(filepath.Join(root, o.File))
			if err != nil {
				t.Fatal(err)
			}
			snap := string(b)
			n, _ := bench.CountTokens(snap)
			if o.Step != i || o.Kind != "axtree" || o.Bytes != len(b) || o.Tokens != n || !strings.HasSuffix(o.File, ".yaml") {
				t.Errorf("%s: observation %d: got %+v, want axtree %d of %d bytes, %d tokens, in YAML", tc.id, i, o, i, len(b), n)
			}
			// The snapshot of mode "ai": roles, names and refs.
			if !strings.HasPrefix(snap, "- ") || !strings.Contains(snap, "[ref=") {
				t.Errorf("%s: %s is not an AI snapshot: %.200s", tc.id, o.File, snap)
			}
		}
	}
	obs, root := runTask(t, m, "shop-add-to-cart")
	b, err := os.ReadFile(filepath.Join(root, obs[0].File))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`heading "Heavyweight Tee" [level=1]`, `button "Add to cart"`, `spinbutton "Quantity"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the product page's snapshot lacks %s:\n%s", want, b)
		}
	}
}

// TestPlaywrightPinned: the lockfile make deps and the bench install from
// pins the playwright-core the bench says it drives.
func TestPlaywrightPinned(t *testing.T) {
	b, err := os.ReadFile("../internal/node/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct{ Version string }
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	if got := lock.Packages["node_modules/playwright-core"].Version; got != bench.PlaywrightVersion {
		t.Errorf("package-lock.json pins playwright-core %q, want %s (bench.PlaywrightVersion)", got, bench.PlaywrightVersion)
	}
}

// TestAXTreeModeWithoutNode: without node on $PATH the mode says what to
// install.
func TestAXTreeModeWithoutNode(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	m := bench.NewAXTreeMode(&bench.AXTreeOptions{Cache: t.TempDir()})
	defer m.Close()
	err := m.Start(context.Background())
	if errors.Is(err, browser.ErrNoChromium) {
		t.Skip("no Chromium at", browser.DefaultPath, "to get as far as node:", err)
	}
	if !errors.Is(err, bench.ErrNoNode) || !strings.Contains(err.Error(), "apt-get install nodejs npm") {
		t.Errorf("got %v, want ErrNoNode saying what to install", err)
	}
}
