package affordances_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/affordances/affordances-go"
)

func noop(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil }

// TestBadDeclarationsPanic: a bad declaration panics at start-up with a
// message naming what is wrong (DESIGN.md, "The publisher").
func TestBadDeclarationsPanic(t *testing.T) {
	type badTag struct {
		N int `json:"n" affordances:"minimum=one"`
	}
	type badEnum struct {
		N int `json:"n" affordances:"enum=1|two|3"`
	}
	type unknownKey struct {
		S string `json:"s" affordances:"maxLength=3,minlength=1"`
	}
	type loneEscape struct {
		S string `json:"s" affordances:"pattern=a\\"`
	}
	type notKeyValue struct {
		S string `json:"s" affordances:"maxLength=3,pattern"`
	}
	type line struct {
		Qty int `json:"qty" affordances:"maximum=x"`
	}
	type nested struct {
		Lines []line `json:"lines"`
	}
	tagged := func(declare func(rt *affordances.Route)) func(s *affordances.Site) {
		return func(s *affordances.Site) { declare(s.Route("/", nil)) }
	}
	act := &affordances.Action{Name: "a", Description: "Does nothing.", Expose: affordances.ExposePublic}
	for _, tc := range []struct {
		name, want string
		declare    func(s *affordances.Site)
	}{
		{"pattern without a slash", `Route("products"): a route is a path starting with /`, func(s *affordances.Site) { s.Route("products", nil) }},
		{"mux pattern with a method", "without the method or host", func(s *affordances.Site) { s.Route("GET /boards/{board}", nil) }},
		{"mux pattern with a host", "without the method or host", func(s *affordances.Site) { s.Route("example.com/boards", nil) }},
		{"brace mixed with text", "mixes a parameter", func(s *affordances.Site) { s.Route("/boards/b{id}", nil) }},
		{"catch-all before the end", "must be the last segment", func(s *affordances.Site) { s.Route("/files/{path...}/raw", nil) }},
		{"bracket catch-all before the end", "must be the last segment", func(s *affordances.Site) { s.Route("/files/[...path]/raw", nil) }},
		{"parameter name not an identifier", "Go identifier", func(s *affordances.Site) { s.Route("/p/{my-id}", nil) }},
		{"bracket name not an identifier", "Go identifier", func(s *affordances.Site) { s.Route("/p/[]", nil) }},
		{"an empty segment", "only the last may be", func(s *affordances.Site) { s.Route("/boards//new", nil) }},
		{"{$} not at the end", "only ends a pattern", func(s *affordances.Site) { s.Route("/boards/{$}/new", nil) }},
		{"/a/ and /a/{$} are one page", "matches the same paths", func(s *affordances.Site) { s.Route("/a/", nil); s.Route("/a/{$}", nil) }},
		{"/a/index collides with /a/ in AAL", "fragment path would be the one of /a/", func(s *affordances.Site) { s.Route("/a/index", nil) }},
		{"the same route in both syntaxes", `matches the same paths as "/boards/[board]"`, func(s *affordances.Site) {
			s.Route("/boards/[board]", nil)
			s.Route("/boards/{id}", nil)
		}},
		{"empty segment", "empty segment", func(s *affordances.Site) { s.Route("/a//b", nil) }},
		{"/index collides with / in AAL", "fragment path would be the one of /", func(s *affordances.Site) { s.Route("/index", nil) }},
		{"parameter mixed with text", "mixes a parameter", func(s *affordances.Site) { s.Route("/p/x[id]", nil) }},
		{"parameter twice", `parameter "id" twice`, func(s *affordances.Site) { s.Route("/p/[id]/[id]", nil) }},
		{"duplicate route", `matches the same paths as "/p/[id]"`, func(s *affordances.Site) {
			s.Route("/p/[id]", nil)
			s.Route("/p/[slug]", nil)
		}},
		{"bad action name", "a name is a letter", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "add-to-cart", Description: "Does nothing.", Expose: affordances.ExposePublic}, noop)
		}},
		{"duplicate action", "already has an action", func(s *affordances.Site) {
			rt := s.Route("/", nil)
			affordances.AddAction(rt, &affordances.Action{Name: "a", Description: "Does nothing.", Expose: affordances.ExposePublic}, noop)
			affordances.AddAction(rt, &affordances.Action{Name: "a", Description: "Does nothing.", Expose: affordances.ExposePublic}, noop)
		}},
		{"confirm without summary", "needs a Summary", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "pay", Description: "Does nothing.", Expose: affordances.ExposeConfirm}, noop)
		}},
		{"summary of another input", "the Summary takes input of type int, the action's input is of type struct {}", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "pay", Description: "Does nothing.", Expose: affordances.ExposeConfirm,
				Summary: affordances.Summarize(func(context.Context, *affordances.Request, int) (string, error) { return "Pay.", nil })}, noop)
		}},
		{"unknown expose", `unknown Expose "private"`, func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Description: "Does nothing.", Expose: "private"}, noop)
		}},
		{"input schema not JSON", "input schema: not valid JSON", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Description: "Does nothing.", Expose: affordances.ExposePublic, Input: json.RawMessage(`{`)}, noop)
		}},
		{"input schema does not compile", "input schema", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Description: "Does nothing.", Expose: affordances.ExposePublic, Input: json.RawMessage(`{"type":"thing"}`)}, noop)
		}},
		{"bad bounds tag", `AddAction("/", "a"): input schema: Go field badTag.N: affordances tag "minimum=one"`, func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Description: "Does nothing.", Expose: affordances.ExposePublic},
				func(context.Context, *affordances.Request, badTag) (struct{}, error) { return struct{}{}, nil })
		}},
		{"empty description", `AddAction("/", "a"): an action needs a Description`, func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Expose: affordances.ExposePublic}, noop)
		}},
		{"blank description", "needs a Description", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Description: "  ", Expose: affordances.ExposePublic}, noop)
		}},
		{"enum value not of the field's type", `AddAction("/", "a"): input schema: Go field badEnum.N: affordances tag "enum=1|two|3"`, tagged(func(rt *affordances.Route) {
			affordances.AddAction(rt, act, func(context.Context, *affordances.Request, badEnum) (struct{}, error) { return struct{}{}, nil })
		})},
		{"unknown tag key", `AddAction("/", "a"): input schema: Go field unknownKey.S: affordances tag "minlength=1": unknown key "minlength"`, tagged(func(rt *affordances.Route) {
			affordances.AddAction(rt, act, func(context.Context, *affordances.Request, unknownKey) (struct{}, error) { return struct{}{}, nil })
		})},
		{"unbalanced escape", `Go field loneEscape.S: affordances tag "pattern=a\\": unbalanced escape`, tagged(func(rt *affordances.Route) {
			affordances.AddAction(rt, act, func(context.Context, *affordances.Request, loneEscape) (struct{}, error) { return struct{}{}, nil })
		})},
		{"tag part without =", `Go field notKeyValue.S: affordances tag "maxLength=3,pattern": "pattern": want key=value`, tagged(func(rt *affordances.Route) {
			affordances.AddAction(rt, act, func(context.Context, *affordances.Request, notKeyValue) (struct{}, error) { return struct{}{}, nil })
		})},
		{"bad tag in a nested field", `AddAction("/", "a"): input schema: Go field nested.Lines.Qty: affordances tag "maximum=x"`, tagged(func(rt *affordances.Route) {
			affordances.AddAction(rt, act, func(context.Context, *affordances.Request, nested) (struct{}, error) { return struct{}{}, nil })
		})},
		{"zero rate in a limit", "must all be positive", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Description: "Does nothing.", Expose: affordances.ExposePublic, Limit: &affordances.Limit{Calls: 0}}, noop)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, "affordances: ") || !strings.Contains(msg, tc.want) {
					t.Errorf("panic: got %q, want one prefixed affordances: containing %q", msg, tc.want)
				}
			}()
			tc.declare(affordances.NewSite(nil))
		})
	}
	t.Run("bad origin", func(t *testing.T) {
		defer func() {
			if msg, _ := recover().(string); !strings.Contains(msg, "SiteOptions.Origin") {
				t.Errorf("panic: got %q", msg)
			}
		}()
		affordances.NewSite(&affordances.SiteOptions{Origin: "shop.example"})
	})
	t.Run("negative body limit", func(t *testing.T) {
		defer func() {
			if msg, _ := recover().(string); !strings.Contains(msg, "SiteOptions.MaxBodyBytes -1") {
				t.Errorf("panic: got %q", msg)
			}
		}()
		affordances.NewSite(&affordances.SiteOptions{MaxBodyBytes: -1})
	})
}

// TestTagsTakeTheFieldsType: an enum tag lists values of the field's JSON
// type, so an int field's enum accepts the numbers (issue 14), and a
// backslash escapes a comma in a pattern.
func TestTagsTakeTheFieldsType(t *testing.T) {
	type in struct {
		N    int     `json:"n" affordances:"enum=1|2|3"`
		F    float64 `json:"f,omitempty" affordances:"enum=0.5|1.5"`
		B    *bool   `json:"b,omitempty" affordances:"enum=true"`
		Code string  `json:"code,omitempty" affordances:"pattern=^[a-z]{1\\,3}$,maxLength=3"`
		Pick string  `json:"pick,omitempty" affordances:"enum=a\\|b|c\\,d"`
	}
	site := affordances.NewSite(nil)
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "pick", Description: "Picks a size.", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, in) (struct{}, error) { return struct{}{}, nil })
	h := site.Handler(nil)
	graph := string(do(t, h, get("/")).body)
	for _, want := range []string{`"enum":[1,2,3]`, `"enum":[0.5,1.5]`, `"enum":[true]`, `"pattern":"^[a-z]{1,3}$"`, `"enum":["a|b","c,d"]`} {
		if !strings.Contains(graph, want) {
			t.Errorf("graph: got %s, want it to contain %s", graph, want)
		}
	}
	for _, tc := range []struct {
		input  string
		status int
	}{
		{`{"n":2}`, 200},
		{`{"n":4}`, 400},
		{`{"n":"2"}`, 400},
		{`{"n":1,"f":1.5,"b":true}`, 200},
		{`{"n":1,"f":2}`, 400},
		{`{"n":1,"b":false}`, 400},
		{`{"n":1,"code":"abc"}`, 200},
		{`{"n":1,"code":"ab1"}`, 400},
		{`{"n":1,"pick":"a|b"}`, 200},
		{`{"n":1,"pick":"c,d"}`, 200},
		{`{"n":1,"pick":"b"}`, 400},
	} {
		t.Run(tc.input, func(t *testing.T) {
			if res := do(t, h, post("/", `{"action":"pick","input":`+tc.input+`}`)); res.status != tc.status {
				t.Errorf("got %d %s, want %d", res.status, res.body, tc.status)
			}
		})
	}
}

// TestConcurrentCalls: graphs and calls from many goroutines at once, under
// -race; every increment lands exactly once.
func TestConcurrentCalls(t *testing.T) {
	site, b := testSite(t, &affordances.SiteOptions{Limit: affordances.Limit{Calls: 1000, Per: 1e9, Burst: 1000}})
	h := site.Handler(app)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if res := do(t, h, post("/", `{"action":"increment"}`, "Authorization: Bearer good")); !res.delta.OK {
				t.Errorf("call %d: %s", i, res.body)
			}
			do(t, h, get("/"))
		})
	}
	wg.Wait()
	if n, _ := b.snapshot(); n != 50 {
		t.Errorf("counter: got %d, want 50", n)
	}
}
