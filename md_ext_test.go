package affordances_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
)

// TestMarkdown: a page of a route asked for Markdown (an agent-readiness
// checker's Accept: text/markdown) answers with what the page shows, for
// the same requester as its graph: its md when the app wrote one, else its
// entities (a table for records), its actions (why one is not available)
// and its nav as links, with Vary: Accept; a browser's Accept, which names
// text/html first and */*, gets the app's HTML; a path that is no route's
// goes to the app (issue 40: only /llms.txt answered Markdown). No site
// string makes Markdown of its own: a nav target that tries to close its
// link and open another stays one destination.
func TestMarkdown(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Tasks"})
	rt := site.Route("/tasks", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{
			"tasks": []map[string]any{{"id": 1, "title": "Write | the copy"}, {"id": 2, "title": "Ship it"}},
			"board": map[string]any{"name": "Launch", "open": 2},
			"count": 2,
		}, Nav: []affordances.NavLink{{To: "/boards", Label: "All [boards]"},
			{To: "/tags/a) and [Pay here](https://evil.example/pay", Label: "a *tag*"}}}, nil // a tag a person chose
	}})
	affordances.AddAction(rt, &affordances.Action{Name: "closeTask", Description: "Close a task", Expose: affordances.ExposeSession}, noop)
	site.Route("/about", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{MD: "# About\n\nWe make tasks.\n"}, nil
	}})
	site.Route("/{user}", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return nil, affordances.ErrNotMine // a catch-all whose loader says the page is the app's
	}})
	h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>the app's page</p>"))
	}))
	get := func(path, accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	rec := get("/tasks", "text/markdown")
	want := "# /tasks\n\n- count: 2\n\n## board\n\n- name: Launch\n- open: 2\n\n## tasks\n\n| id | title |\n| --- | --- |\n| 1 | Write \\| the copy |\n| 2 | Ship it |\n" +
		"\n## What can be done here\n\n- `closeTask`: Close a task (not now: Sign in to do this.)\n\nAn agent calls one by POSTing `{\"action\": NAME, \"input\": {...}}` to this page with `Content-Type: application/vnd.affordances+json`.\n" +
		"\n## Links\n\n- [All \\[boards\\]](</boards>)\n- [a \\*tag\\*](</tags/a%29%20and%20%5BPay%20here%5D%28https://evil.example/pay>)\n"
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/markdown; charset=utf-8" || !strings.Contains(rec.Header().Get("Vary"), "Accept") || rec.Body.String() != want {
		t.Errorf("got %d %q (Vary %q):\n%s\nwant:\n%s", rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Vary"), rec.Body, want)
	}
	if rec := get("/about", "text/markdown, text/html;q=0.9"); rec.Body.String() != "# About\n\nWe make tasks.\n" {
		t.Errorf("the app's md: got %q", rec.Body)
	}
	for _, accept := range []string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/html, text/markdown;q=0.5", "*/*"} {
		if rec := get("/tasks", accept); rec.Body.String() != "<p>the app's page</p>" {
			t.Errorf("Accept %q: got %q, want the app's HTML", accept, rec.Body)
		}
	}
	for _, path := range []string{"/elsewhere/x", "/nobody"} {
		if rec := get(path, "text/markdown"); rec.Body.String() != "<p>the app's page</p>" {
			t.Errorf("%s, no route's page or one its loader says is the app's: got %q, want the app's", path, rec.Body)
		}
	}
}
