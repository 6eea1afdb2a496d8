// Package browsertest starts Chromium for tests, as net/http/httptest
// starts servers.
package browsertest

import (
	"errors"
	"os"
	"testing"

	"github.com/affordances/affordances-go/browser"
)

// Start starts headless Chromium for one test and closes it when the test
// ends. Without Chromium the test skips, or fails when AFFORDANCES_CHECK
// is set (make check), where nothing may skip.
func Start(t testing.TB) *browser.Browser {
	t.Helper()
	b, err := browser.Start(t.Context(), nil)
	if errors.Is(err, browser.ErrNoChromium) {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatalf("%v: make check should have installed it (make deps)", err)
		}
		t.Skipf("%v; make check installs it", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing Chromium: %v", err)
		}
	})
	return b
}
