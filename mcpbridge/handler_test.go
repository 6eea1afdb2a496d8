package mcpbridge_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/mcpbridge"
)

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// withMCP serves the bridge at /mcp beside the site h.
func withMCP(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpbridge.Handler(h, nil))
	mux.Handle("/", h)
	return mux
}

func TestHandler(t *testing.T) {
	s, srv := demotest.Shop(t, &shop.Options{MCP: "/mcp"}, withMCP)

	tr := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{s.Token()}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	idx, res := call(t, cs, "site_index", map[string]any{})
	if res.IsError || idx["mcp"] != "/mcp" {
		t.Errorf("site_index: got %v (%s), want the index advertising /mcp", idx, text(res))
	}
	out, res := call(t, cs, "execute_affordance", map[string]any{"url": "/products/canvas-tote", "action": "addToCart",
		"input": map[string]any{"sku": "TOTE-NAT", "quantity": 1}})
	if res.IsError || out["ok"] != true {
		t.Fatalf("addToCart with the caller's token: got %v (%s), want ok", out, text(res))
	}
	_, res = call(t, cs, "fetch_affordances", map[string]any{"url": "https://elsewhere.example/"})
	if !res.IsError || !strings.Contains(text(res), "serves") {
		t.Errorf("another origin: got %s, want refused", text(res))
	}
}
