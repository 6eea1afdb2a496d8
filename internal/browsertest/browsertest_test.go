package browsertest_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
)

func TestMain(m *testing.M) { os.Exit(browsertest.CloseShared(m.Run())) }

// TestShared: tests asking for the same features get one browser, which
// outlives the test that started it; other features get another; two
// pages of it do not share cookies.
func TestShared(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var first *browser.Browser
	t.Run("starts", func(t *testing.T) { first = browsertest.Shared(t) })
	b := browsertest.Shared(t)
	if b != first {
		t.Fatal("a second browser for the same features")
	}
	if browsertest.Shared(t, "WebMCPTesting") == b {
		t.Error("the browser of no features for WebMCPTesting")
	}
	ctx := t.Context()
	p, err := b.NewPage(ctx) // after the test that started it ended
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.SetCookie(ctx, srv.URL, &http.Cookie{Name: "session", Value: "alice", Path: "/"}); err != nil {
		t.Fatal(err)
	}
	other, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if got, err := other.Cookies(ctx, srv.URL); err != nil || len(got) != 0 {
		t.Errorf("another page's cookies: %v, %v; want none", got, err)
	}
	if got, err := p.Cookies(ctx, srv.URL); err != nil || len(got) != 1 {
		t.Errorf("the page's own cookies: %v, %v; want its session", got, err)
	}
}
