package shop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
)

// An agent reads a product page as a graph from the same URL a person
// opens, then adds it to the cart with the demo user's token.
func Example() {
	dir, _ := os.MkdirTemp("", "shop-example-")
	defer os.RemoveAll(dir)
	s, err := shop.Open(context.Background(), &shop.Options{DataDir: dir, DemoToken: "example-token"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/products/canvas-tote", nil)
	req.Header.Set("Accept", affordances.MediaType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	var g affordances.Graph
	json.NewDecoder(resp.Body).Decode(&g)
	resp.Body.Close()
	product := g.Entities["product"].(map[string]any)
	fmt.Println(g.Route, product["name"], product["price"])
	for _, a := range g.Actions {
		fmt.Println(a.Name, a.Expose, a.Available, a.Reason)
	}

	call, _ := json.Marshal(affordances.Call{Action: "addToCart", Input: json.RawMessage(`{"sku":"TOTE-NAT"}`)})
	req, _ = http.NewRequest("POST", srv.URL+"/products/canvas-tote", bytes.NewReader(call))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer "+s.Token())
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	var d affordances.Delta
	json.NewDecoder(resp.Body).Decode(&d)
	resp.Body.Close()
	fmt.Println(d.OK, d.Message, d.Changed["cart"])
	// Output:
	// /products/[slug] Canvas Tote 1800
	// addToCart session false Sign in to use your cart, check out and write reviews.
	// writeReview session false Sign in to use your cart, check out and write reviews.
	// true Added 1 × Canvas Tote (Natural) to your cart. map[count:1 total:1800]
}
