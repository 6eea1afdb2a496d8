package affordances_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/webmcp"
)

// longSite has one page whose actions say more than Chrome's guidance
// lets a tool say: a description of 600 characters (one of them a
// confirm action's), a parameter's of 200; and one with an AAL label.
func longSite(t *testing.T) *affordances.Site {
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Long"})
	rt := site.Route("/", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{}}, nil
	}})
	type in struct {
		By string `json:"by" jsonschema:"a note of the kind a person leaves, which this description goes on about at such length that no agent reads it whole, far past the hundred and fifty characters"`
	}
	long := strings.Repeat("Says much. ", 60)
	run := func(context.Context, *affordances.Request, in) (struct{}, error) { return struct{}{}, nil }
	affordances.AddAction(rt, &affordances.Action{Name: "leaveNote", Description: long, Expose: affordances.ExposePublic}, run)
	affordances.AddAction(rt, &affordances.Action{Name: "wipeNotes", Description: long, Expose: affordances.ExposeConfirm,
		Summary: affordances.Summarize(func(context.Context, *affordances.Request, in) (string, error) { return "Wipe.", nil })}, run)
	affordances.AddAction(rt, &affordances.Action{Name: "pin", Description: "Pin a note", Expose: affordances.ExposePublic,
		AAL: &aal.Meta{Label: "Épingler"}}, run)
	affordances.AddAction(rt, &affordances.Action{Name: "dump", Description: "Say a lot", Expose: affordances.ExposePublic, ReadOnly: true},
		func(context.Context, *affordances.Request, struct{}) (map[string]string, error) {
			return map[string]string{"text": strings.Repeat("All work and no play. ", 100)}, nil
		})
	return site
}

// TestWebMCPToolLimits: a tool says at most 500 characters of its
// action's description and 150 of a parameter's, and says it cut them; a
// confirm action's tool keeps its note whole; the declarative form's
// attributes are cut alike; the graph keeps every word. A tool's title is
// the action's AAL label, as the app wrote it.
func TestWebMCPToolLimits(t *testing.T) {
	h := longSite(t).Handler(webmcpPage)
	body := do(t, h, httptest.NewRequest("GET", "http://shop.test/?form=leaveNote", nil)).body
	m := webmcpData.FindSubmatch(body)
	if m == nil {
		t.Fatalf("no WebMCP data block in %s", body)
	}
	var data struct {
		Tools []struct {
			Name, Title, Description string
			InputSchema              json.RawMessage
		}
	}
	if err := json.Unmarshal(m[1], &data); err != nil {
		t.Fatal(err)
	}
	graph := do(t, h, get("/")).graph
	for i, tool := range data.Tools {
		if n := len([]rune(tool.Description)); n > webmcp.MaxDescription {
			t.Errorf("%s: description of %d characters, want at most %d", tool.Name, n, webmcp.MaxDescription)
		}
		if a := graph.Actions[i]; len(a.Description) > webmcp.MaxDescription && !strings.Contains(tool.Description, "(cut short: the page's graph has the whole description)") {
			t.Errorf("%s: description %q does not say it was cut", tool.Name, tool.Description)
		}
		if o := webmcp.Outside(tool.InputSchema); o != nil {
			t.Errorf("%s: input schema outside the subset: %v", tool.Name, o)
		}
	}
	if d := data.Tools[1].Description; !strings.HasSuffix(d, "A person confirms it on the page: the tool returns the site's summary of what will happen, and nothing runs.") {
		t.Errorf("wipeNotes: the confirm note is not whole at the end of %q", d)
	}
	if got := [3]string{data.Tools[0].Title, data.Tools[1].Title, data.Tools[2].Title}; got != [3]string{"Leave note", "Wipe notes", "Épingler"} {
		t.Errorf("titles %q, want the names in words and pin's AAL label", got)
	}
	if a := graph.Actions[0]; a.Description != strings.Repeat("Says much. ", 60) || !strings.Contains(string(a.Input), "far past the hundred and fifty characters") {
		t.Errorf("the graph's leaveNote was cut: %q %s", a.Description, a.Input)
	}
	form := string(body)
	if d := attr(form, "tooldescription"); d != data.Tools[0].Description {
		t.Errorf("the form's tooldescription %q, want the tool's %q", d, data.Tools[0].Description)
	}
	if d := attr(form, "toolparamdescription"); len([]rune(d)) > webmcp.MaxParamDescription || !strings.HasSuffix(d, "…") {
		t.Errorf("the field's toolparamdescription %q: want at most %d characters, ending with …", d, webmcp.MaxParamDescription)
	}
}

// attr returns the value of the first attribute name in html, unescaped
// of its &#39; only.
func attr(html, name string) string {
	_, v, _ := strings.Cut(html, name+`="`)
	v, _, _ = strings.Cut(v, `"`)
	return strings.ReplaceAll(v, "&#39;", "'")
}
