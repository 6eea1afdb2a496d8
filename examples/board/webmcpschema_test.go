package main

import (
	"encoding/json"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/webmcp"
)

// TestWebMCPSchemaSubset: every action of the board, as the site index
// lists it to a signed-in agent, has a tool schema within the subset of
// JSON Schema a browser may validate with (docs/webmcp.md), the same as
// the action's where that is within it.
func TestWebMCPSchemaSubset(t *testing.T) {
	_, srv := testBoard(t)
	_, body := newClient(t, srv, demoToken).get(affordances.IndexPath, affordances.MediaType)
	var idx affordances.SiteIndex
	if err := json.Unmarshal([]byte(body), &idx); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rt := range idx.Routes {
		for _, a := range rt.Actions {
			n++
			s := webmcp.Schema(a.Input)
			if o := webmcp.Outside(s); o != nil {
				t.Errorf("%s %s: outside the subset at %v", rt.Route, a.Name, o)
			}
			if wider := webmcp.Outside(a.Input); wider != nil {
				t.Logf("%s %s: the tool leaves %v to the site", rt.Route, a.Name, wider)
			} else if string(s) != string(a.Input) {
				t.Errorf("%s %s: the tool's schema says less than the action's:\n%s\n%s", rt.Route, a.Name, s, a.Input)
			}
		}
	}
	if n < 5 {
		t.Errorf("%d actions in the index, want the board's", n)
	}
}
