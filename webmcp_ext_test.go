package affordances_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
)

// webmcpPage renders the page's WebMCP script, and its declarative form
// attributes for the actions a test names in ?form=.
var webmcpPage = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	pg := affordances.PageFrom(r.Context())
	as := pg.Actions()
	io.WriteString(w, "<!doctype html><head>"+string(pg.Head())+"</head>")
	for _, name := range r.URL.Query()["form"] {
		io.WriteString(w, "<form "+string(as.Tool(name))+"><input "+string(pg.Field(name, "by").Attrs)+"></form>")
	}
})

var webmcpData = regexp.MustCompile(`<script type="application/json" id="affordances-webmcp">(.*?)</script><script src="/.well-known/affordances/webmcp.js" defer></script>`)

// TestWebMCPToolsAreTheGraphsActions: the tools a page declares to the
// browser are its graph's actions, one for one and in order, with the same
// input schemas and availability, and the hints of CLARIFICATIONS 12 (one
// source of truth).
func TestWebMCPToolsAreTheGraphsActions(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(webmcpPage)
	for _, who := range [][]string{nil, {"Authorization: Bearer good"}, {"Authorization: Bearer admin"}} {
		graph := do(t, h, get("/", who...)).graph
		r := httptest.NewRequest("GET", "http://shop.test/", nil)
		with(r, who)
		m := webmcpData.FindSubmatch(do(t, h, r).body)
		if m == nil {
			t.Fatalf("%v: no WebMCP data block and script", who)
		}
		var data struct {
			Tools []struct {
				Name, Description string
				InputSchema       json.RawMessage
				Available         bool
				Annotations       struct{ ReadOnlyHint, ConsequentialHint, UntrustedContentHint bool }
			}
		}
		if err := json.Unmarshal(m[1], &data); err != nil {
			t.Fatal(err)
		}
		if len(data.Tools) != len(graph.Actions) {
			t.Fatalf("%v: got %d tools, want the graph's %d actions", who, len(data.Tools), len(graph.Actions))
		}
		for i, tool := range data.Tools {
			a := graph.Actions[i]
			if tool.Name != a.Name || string(tool.InputSchema) != string(a.Input) || tool.Available != a.Available || tool.Annotations.ReadOnlyHint != a.ReadOnly {
				t.Errorf("%v: tool %d: got %s %s available=%v readOnly=%v, want the graph's %s %s %v %v", who, i, tool.Name, tool.InputSchema, tool.Available, tool.Annotations.ReadOnlyHint, a.Name, a.Input, a.Available, a.ReadOnly)
			}
			wantConsequential := a.Expose == affordances.ExposeConfirm // the test site declares no risky AAL
			if tool.Annotations.ConsequentialHint != wantConsequential {
				t.Errorf("%v: %s: consequentialHint %v, want %v", who, tool.Name, tool.Annotations.ConsequentialHint, wantConsequential)
			}
			if confirm := strings.Contains(tool.Description, "A person confirms it on the page"); confirm != (a.Expose == affordances.ExposeConfirm) || !strings.HasPrefix(tool.Description, a.Description) {
				t.Errorf("%v: %s: description %q", who, tool.Name, tool.Description)
			}
		}
	}
}

// TestWebMCPScriptServed: the script is the library's, small, cacheable, and
// never runs a confirm action on its own.
func TestWebMCPScriptServed(t *testing.T) {
	site, _ := testSite(t, nil)
	res := do(t, site.Handler(nil), httptest.NewRequest("GET", "http://shop.test"+affordances.WebMCPScriptPath, nil))
	if res.status != 200 || res.header.Get("Content-Type") != "text/javascript; charset=utf-8" || res.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("got %d %v", res.status, res.header)
	}
	body := string(res.body)
	if len(body) > 5<<10 || !strings.Contains(body, "registerTool") || strings.Contains(body, "confirm") {
		t.Errorf("script: %d bytes, want a few KB that registers tools and never sends confirm: true", len(body))
	}
}

// TestDeclarativeTools: a form of an available action carries the same
// tool as the script registers; an unavailable one none.
func TestDeclarativeTools(t *testing.T) {
	site, _ := testSite(t, nil)
	body := string(do(t, site.Handler(webmcpPage), httptest.NewRequest("GET", "http://shop.test/?form=increment&form=reset", nil)).body)
	want := `<form toolname="increment" tooldescription="Add to the counter"><input name="by" toolparamdescription="how much to add"></form>`
	if !strings.Contains(body, want) {
		t.Errorf("got %s\nwant it to contain %s", body, want)
	}
	// reset is unavailable to nobody: no tool, no parameter of it.
	if !strings.Contains(body, `<form ><input name="by"></form>`) {
		t.Errorf("an unavailable action's form: got %s", body)
	}
	var as affordances.Actions
	if as.Tool("x") != "" || as.Reason("x") != "Not available here." {
		t.Error("a nil Actions answers something")
	}
}

// TestLLMsTxt: /llms.txt is the site index in Markdown, as the requester
// sees it, and every link in it answers 200.
func TestLLMsTxt(t *testing.T) {
	site, _ := testSite(t, nil)
	h := site.Handler(app)
	for _, tc := range []struct {
		who          []string
		want, absent []string
	}{
		{nil, []string{"# Test\n", "## /\n", "The board\n", "## /items/[id]\n", "## /items/new\n", "- `ping` (public, read-only): Answer pong\n",
			"- `reset` (confirm): Set the counter to zero\n", "[Graph of /](http://shop.test/?affordances=1)", "[Site index](http://shop.test/.well-known/affordances.json)"},
			[]string{"`audit`", "`hidden`"}},
		{[]string{"Authorization: Bearer admin"}, []string{"- `audit` (session): Admins only\n"}, []string{"`hidden`"}},
	} {
		r := httptest.NewRequest("GET", "http://shop.test/llms.txt", nil)
		with(r, tc.who)
		res := do(t, h, r)
		body := string(res.body)
		if res.status != 200 || res.header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Fatalf("%v: got %d %q", tc.who, res.status, res.header.Get("Content-Type"))
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%v: llms.txt lacks %q:\n%s", tc.who, w, body)
			}
		}
		if strings.Contains(body, "\n\n\n") {
			t.Errorf("%v: llms.txt has an empty paragraph:\n%s", tc.who, body)
		}
		for _, w := range tc.absent {
			if strings.Contains(body, w) {
				t.Errorf("%v: llms.txt shows %q:\n%s", tc.who, w, body)
			}
		}
		// Every route of the index has its section.
		var idx affordances.SiteIndex
		json.Unmarshal(do(t, h, with(httptest.NewRequest("GET", "http://shop.test"+affordances.IndexPath, nil), tc.who)).body, &idx)
		for _, rt := range idx.Routes {
			if !strings.Contains(body, "\n## "+rt.Route+"\n") {
				t.Errorf("%v: llms.txt has no section for %s", tc.who, rt.Route)
			}
			for _, a := range rt.Actions {
				if !strings.Contains(body, "- `"+a.Name+"`") {
					t.Errorf("%v: llms.txt does not list %s of %s", tc.who, a.Name, rt.Route)
				}
			}
		}
		for _, link := range regexp.MustCompile(`\]\((http://shop\.test[^)]*)\)`).FindAllStringSubmatch(body, -1) {
			lr := httptest.NewRequest("GET", link[1], nil)
			with(lr, tc.who)
			if got := do(t, h, lr).status; got != 200 {
				t.Errorf("%v: link %s answers %d, want 200", tc.who, link[1], got)
			}
		}
	}
}
