// Package browsertest starts Chromium for tests, as net/http/httptest
// starts servers.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/affordances/affordances-go/internal/browser"
)

// Start starts headless Chromium for one test and closes it when the test
// ends. Without Chromium the test skips, or fails when AFFORDANCES_CHECK
// is set (make check), where nothing may skip; under go test -short
// (make test) it skips.
func Start(t testing.TB) *browser.Browser {
	t.Helper()
	return StartWith(t, nil)
}

// StartWith is [Start] with options, such as Features:
// []string{"WebMCPTesting"}. opts may be nil.
func StartWith(t testing.TB, opts *browser.Options) *browser.Browser {
	t.Helper()
	b := start(t, t.Context(), opts)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing Chromium: %v", err)
		}
	})
	return b
}

// Need ends the test, as [Start] would, when it may not or cannot start
// Chromium: under go test -short it skips; without Chromium it skips, or
// fails under make check. A test that calls [browser.Start] itself calls
// Need first.
func Need(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser (make check runs the tests in Chromium)")
	}
	if _, err := browser.Executable(""); err != nil {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatalf("%v: make check should have installed it (make deps)", err)
		}
		t.Skipf("%v; make check installs it", err)
	}
}

// start starts Chromium with opts, or ends the test as [Start] says.
func start(t testing.TB, ctx context.Context, opts *browser.Options) *browser.Browser {
	t.Helper()
	Need(t)
	b, err := browser.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var shared struct {
	sync.Mutex
	browsers map[string]*browser.Browser // by their features, joined
}

// Shared is [StartWith] for the tests of a whole test binary that ask for
// the same features (such as "WebMCPTesting"): the first starts Chromium,
// the others get the same one, and [CloseShared], in the package's
// TestMain, closes it. A start costs about a second of CPU time. Tests
// sharing a browser do not share their sessions: each [browser.Page] opens
// in a browser context of its own, with its own cookies and storage. A
// test must close the pages it opens, and not the browser.
func Shared(t testing.TB, features ...string) *browser.Browser {
	t.Helper()
	key := strings.Join(features, ",")
	shared.Lock()
	defer shared.Unlock()
	if b := shared.browsers[key]; b != nil {
		return b
	}
	// It outlives the test that starts it: not the test's context.
	b := start(t, context.Background(), &browser.Options{Features: features})
	if shared.browsers == nil {
		shared.browsers = map[string]*browser.Browser{}
	}
	shared.browsers[key] = b
	return b
}

// CloseShared closes the browsers [Shared] started, once the tests have
// run with exit code code, and returns the code to exit with: 1, with the
// error on stderr, when one did not close cleanly. The package's
// TestMain: os.Exit(browsertest.CloseShared(m.Run())).
func CloseShared(code int) int {
	shared.Lock()
	defer shared.Unlock()
	for key, b := range shared.browsers {
		if err := b.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "browsertest: closing the shared Chromium: %v\n", err)
			code = max(code, 1)
		}
		delete(shared.browsers, key)
	}
	return code
}
