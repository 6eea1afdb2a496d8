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
		{"trailing slash", "never ends in /", func(s *affordances.Site) { s.Route("/boards/{$}", nil) }},
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
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "add-to-cart", Expose: affordances.ExposePublic}, noop)
		}},
		{"duplicate action", "already has an action", func(s *affordances.Site) {
			rt := s.Route("/", nil)
			affordances.AddAction(rt, &affordances.Action{Name: "a", Expose: affordances.ExposePublic}, noop)
			affordances.AddAction(rt, &affordances.Action{Name: "a", Expose: affordances.ExposePublic}, noop)
		}},
		{"confirm without summary", "needs a Summary", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "pay", Expose: affordances.ExposeConfirm}, noop)
		}},
		{"unknown expose", `unknown Expose "private"`, func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Expose: "private"}, noop)
		}},
		{"input schema not JSON", "input schema: not valid JSON", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Expose: affordances.ExposePublic, Input: json.RawMessage(`{`)}, noop)
		}},
		{"input schema does not compile", "input schema", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Expose: affordances.ExposePublic, Input: json.RawMessage(`{"type":"thing"}`)}, noop)
		}},
		{"bad bounds tag", `affordances tag "minimum=one"`, func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Expose: affordances.ExposePublic},
				func(context.Context, *affordances.Request, badTag) (struct{}, error) { return struct{}{}, nil })
		}},
		{"zero rate in a limit", "must all be positive", func(s *affordances.Site) {
			affordances.AddAction(s.Route("/", nil), &affordances.Action{Name: "a", Expose: affordances.ExposePublic, Limit: &affordances.Limit{Calls: 0}}, noop)
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
