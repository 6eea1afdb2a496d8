package demotest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
)

// get GETs the graph of path as token's holder.
func get(t *testing.T, url, token string) *affordances.Graph {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	req.Header.Set("Accept", affordances.MediaType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var g affordances.Graph
	if res.StatusCode != 200 || json.Unmarshal(body, &g) != nil {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, body)
	}
	return &g
}

// TestShop: two shops from the one seeded database are each their own: a
// cart filled in one is empty in the other; the demo token is opts'; the
// handler is wrapped.
func TestShop(t *testing.T) {
	wrapped := false
	a, srvA := demotest.Shop(t, &shop.Options{DemoToken: "token-a", NoApproval: true}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { wrapped = true; h.ServeHTTP(w, r) })
	})
	_, srvB := demotest.Shop(t, &shop.Options{DemoToken: "token-b"}, nil)
	if a.Token() != "token-a" {
		t.Errorf("token: got %q, want token-a", a.Token())
	}
	call := []byte(`{"action":"addToCart","input":{"sku":"TOTE-NAT","quantity":1}}`)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srvA.URL+"/products/canvas-tote", bytes.NewReader(call))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Accept", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer token-a")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("addToCart: %d", res.StatusCode)
	}
	if !wrapped {
		t.Error("the handler was not wrapped")
	}
	cart := func(url, token string) string {
		b, _ := json.Marshal(get(t, url+"/cart", token).Entities["cart"])
		return string(b)
	}
	if got := cart(srvA.URL, "token-a"); !strings.Contains(got, "TOTE-NAT") {
		t.Errorf("shop A's cart: got %s, want the tote", got)
	}
	if got := cart(srvB.URL, "token-b"); strings.Contains(got, "TOTE-NAT") {
		t.Errorf("shop B's cart: got %s, want it empty", got)
	}
}

// TestStartBoard: the task board, started as a process of its own with a
// fixed token for alice, serves her the graph of her private board.
func TestStartBoard(t *testing.T) {
	p := demotest.StartBoard(t, nil, "-token", "board-token")
	if g := get(t, p.URL+"/boards/team-offsite", "board-token"); g.Route != "/boards/[board]" {
		t.Errorf("route: got %q, want /boards/[board]", g.Route)
	}
}
