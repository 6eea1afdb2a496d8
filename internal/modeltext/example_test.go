package modeltext_test

import (
	"encoding/json"
	"fmt"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/modeltext"
)

func ExampleGraph() {
	g := &affordances.Graph{V: "0", Page: "/products/canvas-tote", Route: "/products/[slug]",
		Entities: map[string]any{
			"product": map[string]any{"name": "Canvas Tote", "price": 1800, "variants": []any{
				map[string]any{"sku": "TOTE-NAT", "stock": 4},
				map[string]any{"sku": "TOTE-BLK", "stock": 0},
			}},
		},
		Actions: []affordances.ActionDescriptor{
			{ActionSummary: affordances.ActionSummary{Name: "addToCart", Description: "Add a variant to the cart",
				Input:  json.RawMessage(`{"type":"object","properties":{"sku":{"type":"string","minLength":1,"maxLength":40},"quantity":{"type":"integer","minimum":1,"maximum":99,"default":1}},"required":["sku"],"additionalProperties":false}`),
				Expose: affordances.ExposeSession, Guard: "the product is in stock", Effects: []string{"cart"}},
				Available: true},
			{ActionSummary: affordances.ActionSummary{Name: "writeReview", Input: json.RawMessage(`{"type":"object","properties":{"body":{"type":"string"}},"required":["body"],"additionalProperties":false}`),
				Expose: affordances.ExposeSession}, Reason: "Sign in to review it."},
		},
		Nav: []affordances.NavLink{{To: "/cart", Label: "Cart"}},
	}
	fmt.Print(modeltext.Graph(g, func(string) aal.Verdict { return aal.Verdict{Decision: aal.Allow} }))
	// Output:
	// page /products/canvas-tote (route /products/[slug])
	// entities:
	//   product: {name: Canvas Tote, price: 1800}
	//   product.variants (2): sku | stock
	//     TOTE-NAT | 4
	//     TOTE-BLK | 0
	// actions:
	//   addToCart(sku: string 1-40 chars, quantity?: integer 1-99 =1)  [session]  effects: cart  guard: "the product is in stock"
	//     # Add a variant to the cart
	//   UNAVAILABLE "Sign in to review it.": writeReview
	// nav: /cart "Cart"
}
