package node_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/node"
)

// TestRepo: Repo finds internal/node from a package's folder of the
// module, and says to run make deps until the lockfile's copy is there.
func TestRepo(t *testing.T) {
	lock, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "internal", "node")
	pkg := filepath.Join(root, "mcpbridge")
	for _, d := range []string{filepath.Join(dir, "node_modules"), pkg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	stamp := filepath.Join(dir, "node_modules", node.Stamp)
	for _, tc := range []struct {
		name  string
		stamp []byte // nil: none
		ok    bool
	}{
		{"no install", nil, false},
		{"an install of another lockfile", []byte(`{"lockfileVersion": 3}`), false},
		{"an install of this lockfile", lock, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(stamp)
			if tc.stamp != nil {
				if err := os.WriteFile(stamp, tc.stamp, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := node.Repo()
			switch {
			case tc.ok && (err != nil || got != dir):
				t.Errorf("got %q, %v; want %s", got, err, dir)
			case !tc.ok && (!errors.Is(err, node.ErrNotInstalled) || !strings.Contains(err.Error(), "run make deps")):
				t.Errorf("got %q, %v; want ErrNotInstalled saying to run make deps", got, err)
			}
		})
	}
}
