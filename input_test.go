package affordances

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// TestInputReadOnce: an input that its schema's fast path accepts is
// validated and decoded in one pass (issue 29), into the value the action
// gets; one it refuses is left to the library's validation, whose issue
// the call reports at the input's place (docs/protocol.md decision 5).
func TestInputReadOnce(t *testing.T) {
	type input struct {
		SKU      string `json:"sku" affordances:"minLength=1"`
		Quantity int    `json:"quantity" affordances:"minimum=1,maximum=99"`
	}
	site := NewSite(nil)
	rt := site.Route("/", nil)
	AddAction(rt, &Action{Name: "add", Description: "Add"}, func(context.Context, *Request, input) (struct{}, error) {
		return struct{}{}, nil
	})
	a := rt.byName["add"]
	v, ok := a.decodeValid(json.RawMessage(`{"sku":"mug","quantity":2}`))
	if got, _ := v.(*input); !ok || got == nil || *got != (input{"mug", 2}) {
		t.Fatalf("a valid input: decodeValid = %v, %v; want the input, true", v, ok)
	}
	req := &Request{}
	if _, err := site.validate(&call{action: a, input: json.RawMessage(`{"quantity":3,"sku":"cup"}`)}, req); err != nil || *req.input.(*input) != (input{"cup", 3}) {
		t.Fatalf("validate = %v, %v; want cup, 3", req.input, err)
	}
	for in, place := range map[string]string{`{"sku":"","quantity":2}`: "/sku", `{"sku":"mug","quantity":100}`: "/quantity"} {
		if _, ok := a.decodeValid(json.RawMessage(in)); ok {
			t.Errorf("decodeValid took %s", in)
		}
		_, err := site.validate(&call{action: a, input: json.RawMessage(in)}, &Request{})
		var e *Error
		if !errors.As(err, &e) || e.Code != InvalidInput || len(e.Issues) != 1 || e.Issues[0].Path != place {
			t.Errorf("validate(%s) = %v, want one issue at %s", in, err, place)
		}
	}
}
