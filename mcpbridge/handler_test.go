package mcpbridge_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go"
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

// client sends every request as if from the address addr, which the
// test's front door (fromClient) makes the request's RemoteAddr, as a
// proxy's real-IP middleware or another machine would.
type client struct{ addr string }

func (c client) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Test-Client", c.addr)
	return http.DefaultTransport.RoundTrip(r)
}

func fromClient(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("X-Test-Client"); a != "" {
			r.RemoteAddr = a
		}
		h.ServeHTTP(w, r)
	})
}

// TestHandlerClientAddress: the calls a site's own MCP endpoint makes
// carry the MCP client's address, so an anonymous client is counted by its
// own address (CLARIFICATIONS 5), not as the host: two clients from two
// addresses have a limit each, and neither spends the other's.
func TestHandlerClientAddress(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{MCP: "/mcp", Limit: affordances.Limit{Calls: 1, Per: time.Hour, Burst: 1}})
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "ping", Description: "Answers pong.", Expose: affordances.ExposePublic, ReadOnly: true},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	srv := httptest.NewServer(fromClient(withMCP(site.Handler(http.NotFoundHandler()))))
	t.Cleanup(srv.Close)
	session := func(addr string) *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: client{addr}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b := session("203.0.113.1:40000"), session("203.0.113.2:40000")
	for _, tc := range []struct {
		name string
		cs   *mcp.ClientSession
		want string // the delta's error code; "": ok
	}{
		{"the first client's first call", a, ""},
		{"the first client's second call", a, "rate_limited"},
		{"the second client's first call", b, ""},
		{"the second client's second call", b, "rate_limited"},
	} {
		out, res := call(t, tc.cs, "execute_affordance", map[string]any{"url": "/", "action": "ping", "input": map[string]any{}})
		got := ""
		if out["ok"] != true {
			delta, _ := out["delta"].(map[string]any)
			e, _ := delta["error"].(map[string]any)
			got = fmt.Sprint(e["code"])
		}
		if got != tc.want {
			t.Errorf("%s: got %q (%s), want %q", tc.name, got, text(res), tc.want)
		}
	}
}

// TestHandlerOrigin: a site's own MCP endpoint refuses a request whose
// Origin is another site's (a page elsewhere posting to it in a person's
// browser), as the MCP transport asks of servers; the site's own Origin,
// and none, are served.
func TestHandlerOrigin(t *testing.T) {
	_, srv := demotest.Shop(t, &shop.Options{MCP: "/mcp"}, withMCP)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`
	https := strings.Replace(srv.URL, "http:", "https:", 1)
	for _, tc := range []struct {
		name    string
		origins []string
		want    int
	}{
		{"no Origin", nil, http.StatusOK},
		{"the site's own", []string{srv.URL}, http.StatusOK},
		{"another site", []string{"http://evil.example"}, http.StatusForbidden},
		{"the site's host by https", []string{https}, http.StatusForbidden},
		{"null", []string{"null"}, http.StatusForbidden},
		{"two, the site's first", []string{srv.URL, "http://evil.example"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for _, o := range tc.origins {
			req.Header.Add("Origin", o)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
}
