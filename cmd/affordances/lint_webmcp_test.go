package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/demotest"
)

// TestLintWebMCPHeaders: a page with WebMCP tools whose response says
// Origin-Agent-Cluster: ?0 or a Permissions-Policy without tools for the
// page gets a warning for each, and the exit status stays 0; the shop as
// it is gets none.
func TestLintWebMCPHeaders(t *testing.T) {
	_, bad := demotest.Shop(t, nil, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Origin-Agent-Cluster", "?0")
			w.Header().Set("Permissions-Policy", "camera=(), tools=()")
			h.ServeHTTP(w, r)
		})
	})
	_, good := demotest.Shop(t, nil, nil)
	for _, tc := range []struct {
		name, url string
		want      []string
	}{
		{"headers that refuse", bad.URL, []string{
			"WARN  " + bad.URL + "/ (HTML) \"\": the page has WebMCP tools, and the browser registers none of them: Origin-Agent-Cluster: ?0",
			"WARN  " + bad.URL + "/ (HTML) \"\": the page has WebMCP tools, and the browser registers none of them: Permissions-Policy: tools=() does not allow",
			", 2 warnings\n"}},
		{"the shop as it is", good.URL, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := cli(t, nil, "lint", "--max-pages", "1", tc.url)
			if code != exitOK {
				t.Errorf("exit %d, want 0\n%s%s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if tc.want == nil && strings.Contains(out, "WebMCP") {
				t.Errorf("warned of WebMCP:\n%s", out)
			}
		})
	}
}
