package aal_test

import (
	"fmt"

	"github.com/affordances/affordances-go/aal"
)

func ExampleValidateFragment() {
	doc := []byte(`{
  "aal": "0.1",
  "page": "/products/canvas-tote",
  "affordances": [
    { "id": "add-to-cart", "selector": "#add", "action": "update", "label": "Add to cart", "trust": "user" },
    { "id": "add-to-cart", "selector": "#buy", "action": "submit", "label": "Buy\u200b now", "trust": "finance" }
  ]
}`)
	for _, p := range aal.ValidateFragment(doc) {
		fmt.Println(p)
	}
	// Output:
	// /affordances/1/id: id "add-to-cart" is used twice (also at /affordances/0/id)
	// /affordances/1/label: the label has an invisible character U+200B (ZERO WIDTH SPACE) at position 4: "Buy\u200b now"
	// /affordances/1/trust: the trust "finance" is not an AAL 0.1 trust class (safe, user, personal, financial, admin)
}

func ExampleVisible() {
	fmt.Println(aal.Visible("Place order"))
	fmt.Println(aal.Visible("Pay\u200b now"))
	fmt.Println(aal.Visible("\u202eredro ecalP"))
	fmt.Println(aal.Visible(`Pay\u200b now`)) // typed, not hidden
	// Output:
	// Place order
	// Pay\u200b now
	// \u202eredro ecalP
	// Pay\\u200b now
}

func ExampleGate_Decide() {
	financial, err := aal.ParseGrant("financial:50USD@https://shop.example")
	if err != nil {
		panic(err)
	}
	gate := &aal.Gate{Grants: []aal.Grant{financial}}

	// The checkout's affordance; its Affordances action placeOrder has
	// expose "session".
	placeOrder := aal.Affordance{
		ID:          "place-order",
		Selector:    `[data-aal="place-order"]`,
		Action:      aal.Purchase,
		Label:       "Place order",
		Destructive: true,
		Trust:       aal.TrustFinancial,
		Cost:        &aal.Cost{Currency: "USD", Amount: 36},
	}
	v := gate.Decide("https://shop.example", placeOrder, "session")
	fmt.Println(v.Decision, v.Classes, v.Uncovered)
	for _, r := range v.Reasons {
		fmt.Println(r)
	}

	destructive, _ := aal.ParseGrant("destructive@https://shop.example")
	gate.Grants = append(gate.Grants, destructive)
	fmt.Println(gate.Decide("https://shop.example", placeOrder, "session").Decision)
	// Output:
	// ask [destructive financial] [destructive]
	// Places an order: destructive, cannot be undone, and costs USD 36.00.
	// Covered by your grant for financial actions on https://shop.example up to USD 50.00.
	// It needs a person's authority for destructive actions, and no grant covers it on https://shop.example: ask the person.
	// allow
}

func ExampleParseGrant() {
	for _, s := range []string{
		"financial:50EUR@https://shop.example",
		"admin@https://shop.example,until=2026-12-31T23:59:59Z",
		"finance:50EUR",
	} {
		g, err := aal.ParseGrant(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: class %s, origin %s, cap %v, expires %v\n", g, g.Class, g.Origin, g.Max, g.Expires.Format("2006-01-02"))
	}
	// Output:
	// financial:50EUR@https://shop.example: class financial, origin https://shop.example, cap EUR 50.00, expires 0001-01-01
	// admin@https://shop.example,until=2026-12-31T23:59:59Z: class admin, origin https://shop.example, cap <nil>, expires 2026-12-31
	// aal: grant "finance:50EUR": unknown class "finance"; want destructive, financial, admin or confirm
}
