package affordances

import (
	"context"
	"testing"
)

// TestEffectsSeen: a route records its states' entity keys until every
// key its actions' Effects name has been seen, then stops.
func TestEffectsSeen(t *testing.T) {
	site := NewSite(nil)
	keys := []string{"cart"}
	rt := site.Route("/", &RouteOptions{State: func(context.Context, *Request) (*State, error) {
		entities := map[string]any{}
		for _, k := range keys {
			entities[k] = 1
		}
		return &State{Entities: entities}, nil
	}})
	none := func(context.Context, *Request, struct{}) (struct{}, error) { return struct{}{}, nil }
	AddAction(rt, &Action{Name: "add", Description: "Add", Effects: []string{"cart"}}, none)
	AddAction(rt, &Action{Name: "pay", Description: "Pay", Effects: []string{"cart", "order"}}, none)
	load := func() {
		t.Helper()
		if err := site.loadState(context.Background(), &Request{route: rt}); err != nil {
			t.Fatal(err)
		}
	}
	load()
	if rt.effectsSeen.Load() {
		t.Fatal("all effects seen before order was")
	}
	keys = append(keys, "order", "user")
	load()
	if !rt.effectsSeen.Load() {
		t.Fatal("cart and order seen, but the route still records")
	}
	keys = append(keys, "later")
	load()
	if _, recorded := rt.entities.Load("later"); recorded {
		t.Error("a key was recorded after every effect had been seen")
	}
}
