package affordances

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"
)

// TestEncodeGraphMatchesMarshal: the fast graph encoder writes exactly what
// encoding/json writes for the same Graph, and feeds the ETag's hash the
// graph's bytes with each action's summary replaced by its digest.
func TestEncodeGraphMatchesMarshal(t *testing.T) {
	site := NewSite(nil)
	rt := site.Route("/p/[id]", nil)
	type in struct {
		N int `json:"n,omitempty" affordances:"maximum=9"`
	}
	AddAction(rt, &Action{Name: "a", Description: "<b>&", Expose: ExposePublic, Effects: []string{"x"}, ReadOnly: true, GuardText: "g"},
		func(context.Context, *Request, in) (struct{}, error) { return struct{}{}, nil })
	AddAction(rt, &Action{Name: "b", Description: "d", Expose: ExposeSession, Output: json.RawMessage(`{ "type": "object" }`)},
		func(context.Context, *Request, in) (any, error) { return nil, nil })
	for _, st := range []*State{
		{},
		{Entities: map[string]any{"z": 1, "a": []string{"<x>"}}, Nav: []NavLink{{To: "/", Label: "Home", When: "always"}}, MD: "# Hi\n"},
	} {
		req := &Request{Page: "/p/1", route: rt, State: st}
		ls := rt.listing(context.Background(), req)
		tag := sha256.New()
		got, err := encodeGraph(nil, req, ls, tag)
		if err != nil {
			t.Fatal(err)
		}
		named := got
		for _, l := range ls {
			named = bytes.Replace(named, l.a.summaryJSON, l.a.summaryDigest[:], 1)
		}
		if sum := sha256.Sum256(named); !bytes.Equal(tag.Sum(nil), sum[:]) {
			t.Errorf("the ETag's hash was not fed the graph with its summaries' digests")
		}
		g := Graph{V: Version, Page: req.Page, Route: rt.pattern, Entities: st.Entities, Nav: st.Nav, MD: st.MD}
		if g.Entities == nil {
			g.Entities = map[string]any{}
		}
		for _, l := range ls {
			g.Actions = append(g.Actions, l.descriptor())
		}
		want, _ := json.Marshal(g)
		if string(got) != string(want) {
			t.Errorf("encodeGraph:\n got %s\nwant %s", got, want)
		}
	}
}
