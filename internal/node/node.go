// Package node pins the npm packages this repository runs: package.json
// and package-lock.json, beside this file. playwright-core, the bench's
// axtree mode's browser driver, and @playwright/mcp, the Playwright MCP
// server its playwright-mcp mode runs, are dependencies; the TypeScript
// MCP SDK, which only mcpbridge's tests run, and htmx, which
// examples/templapp's browser test serves, are devDependencies.
//
// make deps installs them all here, into node_modules (not committed),
// with npm ci; the tests use that install and never run npm ([Repo]).
// The bench, in a binary built from this repository, installs the
// dependencies under a cache folder of its own from the copies of the two
// files the binary holds ([Install]).
package node

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

var (
	//go:embed package.json
	packageJSON []byte
	//go:embed package-lock.json
	packageLock []byte
)

// Stamp is the file, under a folder's node_modules, where make deps and
// the bench copy package-lock.json once npm ci finished there. npm ci
// removes node_modules first, so an install that fails leaves no stamp.
const Stamp = ".installed-lock.json"

// ErrNotInstalled is the error [Repo] wraps when make deps has not
// installed the packages of package-lock.json.
var ErrNotInstalled = errors.New("node: the pinned npm packages are not installed")

// Installed reports whether npm ci installed dir's node_modules from
// this package's package-lock.json: whether dir's [Stamp] is a copy of it.
// It is the check make deps makes before it installs.
func Installed(dir string) bool {
	stamp, err := os.ReadFile(filepath.Join(dir, "node_modules", Stamp))
	return err == nil && bytes.Equal(stamp, packageLock)
}

// Repo returns the folder of this package in the repository, where make
// deps installs the packages: internal/node under the module root, the
// first folder with a go.mod from the working directory up (a package's
// tests run in the package's folder). Its error wraps [ErrNotInstalled],
// and names make deps, when the packages there are missing or were
// installed from another package-lock.json.
func Repo() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("node: %w", err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(root)
		if up == root {
			return "", fmt.Errorf("node: no go.mod in %s or a folder above it", wd)
		}
		root = up
	}
	dir := filepath.Join(root, "internal", "node")
	if !Installed(dir) {
		return "", fmt.Errorf("%w in %s: run make deps", ErrNotInstalled, filepath.Join(dir, "node_modules"))
	}
	return dir, nil
}

// Install installs the dependencies of package-lock.json under cache, as
// the binary holds it, with npm ci, unless an earlier Install did, and
// returns the folder. The devDependencies, which only the tests run, are
// left out. npm ci runs in a folder of its own, renamed into place when the
// install is whole, so that two processes installing at once both end with
// one whole install. progress (nil: none) gets a line when npm ci starts,
// every 10 seconds while it runs, and when it ends.
func Install(ctx context.Context, npm, cache string, progress io.Writer) (string, error) {
	if progress == nil {
		progress = io.Discard
	}
	sum := sha256.Sum256(packageLock)
	dir := filepath.Join(cache, "npm-"+hex.EncodeToString(sum[:6]))
	if Installed(dir) {
		return dir, nil
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(packageJSON, &pkg); err != nil {
		return "", fmt.Errorf("node: package.json: %w", err)
	}
	var names []string
	for _, name := range slices.Sorted(maps.Keys(pkg.Dependencies)) {
		names = append(names, name+"@"+pkg.Dependencies[name])
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("node: %w", err)
	}
	tmp, err := os.MkdirTemp(cache, ".install-")
	if err != nil {
		return "", fmt.Errorf("node: %w", err)
	}
	defer os.RemoveAll(tmp)
	for name, b := range map[string][]byte{"package.json": packageJSON, "package-lock.json": packageLock} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return "", fmt.Errorf("node: %w", err)
		}
	}
	fmt.Fprintf(progress, "installing %s with npm ci into %s (once)\n", strings.Join(names, ", "), dir)
	start := time.Now()
	ictx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ictx, npm, "ci", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "npm_config_update_notifier=false")
	done, ticked := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ticked)
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fmt.Fprintf(progress, "npm ci: still installing, %s\n", time.Since(start).Round(time.Second))
			}
		}
	}()
	out, err := cmd.CombinedOutput()
	close(done)
	<-ticked
	if err != nil {
		return "", fmt.Errorf("node: npm ci for %s: %w: %s", dir, err, firstLines(out, 4))
	}
	if err := os.WriteFile(filepath.Join(tmp, "node_modules", Stamp), packageLock, 0o644); err != nil {
		return "", fmt.Errorf("node: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil && !Installed(dir) {
		return "", fmt.Errorf("node: %w", err)
	}
	fmt.Fprintf(progress, "npm ci: installed in %s\n", time.Since(start).Round(time.Second))
	return dir, nil
}

// firstLines returns the first n lines of out, for an error message: npm
// says why it failed first (a stack and where its log is follow).
func firstLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
