package agent_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/agent"
)

// An agent loads a page, reads an action there and calls it; the delta
// updates the page, and a refusal is the site's own error.
func Example() {
	stock := 3
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Tiny Shop"})
	tote := site.Route("/products/{slug}", &affordances.RouteOptions{
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return &affordances.State{Entities: map[string]any{"stock": stock}}, nil
		},
	})
	type reserve struct {
		Quantity int `json:"quantity" affordances:"minimum=1"`
	}
	affordances.AddAction(tote, &affordances.Action{
		Name: "reserve", Description: "Put some aside", Expose: affordances.ExposePublic, Effects: []string{"stock"},
	}, func(ctx context.Context, r *affordances.Request, in reserve) (struct{}, error) {
		if in.Quantity > stock {
			return struct{}{}, affordances.NewError(affordances.Unavailable, fmt.Sprintf("Only %d left.", stock))
		}
		stock -= in.Quantity
		r.SetMessage(fmt.Sprintf("Reserved %d.", in.Quantity))
		return struct{}{}, nil
	})
	srv := httptest.NewServer(site.Handler(nil))
	defer srv.Close()

	ctx := context.Background()
	c, err := agent.New(srv.Client(), srv.URL, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	page, err := c.Page(ctx, "/products/canvas-tote")
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := page.Action("reserve")
	fmt.Println(a.Description, "- stock", page.Graph.Entities["stock"])
	for range 2 {
		delta, err := page.Call(ctx, "reserve", map[string]int{"quantity": 2})
		if err != nil {
			fmt.Println(affordances.CodeOf(err), "-", delta.Error.Message)
			continue
		}
		fmt.Println(delta.Message, "- stock", page.Graph.Entities["stock"])
	}
	// Output:
	// Put some aside - stock 3
	// Reserved 2. - stock 1
	// unavailable - Only 1 left.
}

// A client calls a confirm action: the person reads the site's summary and
// says no, so confirm: true is never sent.
func ExamplePage_Call() {
	site := affordances.NewSite(&affordances.SiteOptions{
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			return affordances.Principal{ID: "alice"}, nil
		},
	})
	affordances.AddAction(site.Route("/checkout", nil), &affordances.Action{
		Name: "placeOrder", Description: "Place the order", Expose: affordances.ExposeConfirm,
		Summary: affordances.Summarize(func(ctx context.Context, r *affordances.Request, _ struct{}) (string, error) {
			return "Place order: 2 items, total $36.00.", nil
		}),
	}, func(ctx context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
		fmt.Println("ordered!")
		return struct{}{}, nil
	})
	srv := httptest.NewServer(site.Handler(nil))
	defer srv.Close()

	person := agent.ApproverFunc(func(ctx context.Context, req *agent.ApprovalRequest) (bool, error) {
		fmt.Printf("asked: %s (%s)\n", req.Message, req.Classes)
		return false, nil
	})
	c, _ := agent.New(srv.Client(), srv.URL, &agent.Options{Token: "t", Approver: person})
	page, _ := c.Page(context.Background(), "/checkout")
	_, err := page.Call(context.Background(), "placeOrder", nil)
	fmt.Println(errors.Is(err, agent.ErrNotApproved))
	// Output:
	// asked: Place order: 2 items, total $36.00. ([financial confirm])
	// true
}
