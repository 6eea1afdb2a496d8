package mcpbridge_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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

// loopback is an HTTP client's transport whose connections come from one
// loopback address (all of 127.0.0.0/8 is the host's on Linux); moves
// sends its requests from then on from another.
type loopback struct {
	mu sync.Mutex
	rt http.RoundTripper
}

func from(ip string) *loopback {
	l := &loopback{}
	l.moves(ip)
	return l
}

func (l *loopback) moves(ip string) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rt = &http.Transport{DialContext: d.DialContext}
}

func (l *loopback) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	rt := l.rt
	l.mu.Unlock()
	return rt.RoundTrip(r)
}

// forged sends every request with the header by which Handler passes an
// MCP request's address on, claiming another address.
type forged struct{ rt http.RoundTripper }

func (f forged) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Affordances-Mcp-Caller", "127.0.0.9:40000")
	return f.rt.RoundTrip(r)
}

// TestHandlerClientAddress: the calls a site's own MCP endpoint makes are
// counted by the address of the MCP request that carries each, as a call
// its client made itself would be (docs/protocol.md decision 5): two
// anonymous clients from two addresses have a limit each, and neither
// spends the other's; a client whose session moves to another address is
// counted there; a client cannot claim another's.
func TestHandlerClientAddress(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{MCP: "/mcp", Limit: affordances.Limit{Calls: 1, Per: time.Hour, Burst: 1}})
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "ping", Description: "Answers pong.", Expose: affordances.ExposePublic, ReadOnly: true},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	srv := httptest.NewServer(withMCP(site.Handler(http.NotFoundHandler())))
	t.Cleanup(srv.Close)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.5")}}
	if conn, err := d.DialContext(t.Context(), "tcp", srv.Listener.Addr().String()); err != nil {
		t.Skipf("no loopback addresses besides 127.0.0.1 here (Linux has 127.0.0.0/8): %v", err)
	} else {
		conn.Close()
	}
	session := func(rt http.RoundTripper) *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: rt}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b, c := from("127.0.0.2"), from("127.0.0.3"), from("127.0.0.4")
	sa, sb, sc, sd := session(a), session(b), session(c), session(forged{from("127.0.0.2")})
	for _, tc := range []struct {
		name string
		cs   *mcp.ClientSession
		move func()
		want string // the delta's error code; "": ok
	}{
		{"127.0.0.2's first call", sa, nil, ""},
		{"127.0.0.2's second call", sa, nil, "rate_limited"},
		{"127.0.0.3's first call", sb, nil, ""},
		{"127.0.0.3's second call", sb, nil, "rate_limited"},
		{"127.0.0.4's first call", sc, nil, ""},
		{"its session's call from 127.0.0.5", sc, func() { c.moves("127.0.0.5") }, ""},
		{"its session's second call from 127.0.0.5", sc, nil, "rate_limited"},
		{"its session's call from 127.0.0.2", sc, func() { c.moves("127.0.0.2") }, "rate_limited"},
		{"127.0.0.2 claiming another address", sd, nil, "rate_limited"},
	} {
		if tc.move != nil {
			tc.move()
		}
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
