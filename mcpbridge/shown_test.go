package mcpbridge_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/mcpbridge"
)

// TestResultsSayWhatChanged: a call's result says what changed since the
// model read the page (issue 39): deleting one of 30 tasks is its key,
// not the page again; a change to a row the budget did not show the model
// (someone else's, meanwhile) is shown; a page over the budget shows its
// first rows and the way to the rest, and show reads the table whole.
func TestResultsSayWhatChanged(t *testing.T) {
	var mu sync.Mutex
	tasks := map[int]string{}
	for i := 1; i <= 30; i++ {
		tasks[i] = "todo"
	}
	list := func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		var out []map[string]any
		for i := 1; i <= 30; i++ {
			if s, ok := tasks[i]; ok {
				out = append(out, map[string]any{"id": i, "title": fmt.Sprintf("Write the copy of landing page number %d", i), "status": s})
			}
		}
		return out
	}
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Tasks"})
	rt := site.Route("/tasks", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"tasks": list(), "open": len(list())}}, nil
	}})
	type taskInput struct {
		Task int `json:"task"`
	}
	affordances.AddAction(rt, &affordances.Action{Name: "closeTask", Description: "Close a task", Expose: affordances.ExposePublic, Effects: []string{"tasks", "open"}},
		func(_ context.Context, _ *affordances.Request, in taskInput) (struct{}, error) {
			mu.Lock()
			defer mu.Unlock()
			delete(tasks, in.Task)
			return struct{}{}, nil
		})
	srv := httptest.NewServer(site.Handler(nil))
	t.Cleanup(srv.Close)
	cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{srv.URL}, Budget: 300}), nil)

	_, res := call(t, cs, "fetch_affordances", map[string]any{"url": srv.URL + "/tasks"})
	page := text(res)
	if !strings.Contains(page, "tasks (30, first ") || !strings.Contains(page, "more not shown: show tasks") || strings.Contains(page, "landing page number 30") {
		t.Fatalf("a page over the budget: got\n%s", page)
	}
	mu.Lock()
	tasks[30] = "doing" // someone else, on a row the model was not shown
	mu.Unlock()
	_, res = call(t, cs, "execute_affordance", map[string]any{"url": srv.URL + "/tasks", "action": "closeTask", "input": map[string]any{"task": 3}})
	got := text(res)
	for _, want := range []string{"open: 29\n", "tasks (29 rows, by id): removed 3\n", "tasks changed (1): id | status\n    30 | doing\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the result lacks %q:\n%s", want, got)
		}
	}
	_, res = call(t, cs, "fetch_affordances", map[string]any{"url": srv.URL + "/tasks", "show": "tasks"})
	whole := text(res)
	if !strings.Contains(whole, "tasks (29): id | status | title\n") || !strings.Contains(whole, "landing page number 30") {
		t.Errorf("show tasks: got\n%s", whole)
	}
	if site := func(s string) int { return len(s) - len(strings.Join(strings.SplitN(s, "\n", 3)[:2], "\n")) }; site(got)*10 >= site(whole) {
		t.Errorf("the site's part of the result is %d bytes, of the whole page %d: want under a tenth\n%s", site(got), site(whole), got)
	}
	// Another URL of the page (a query) is another page to the model: its
	// result is whole, not a change against /tasks.
	_, res = call(t, cs, "execute_affordance", map[string]any{"url": srv.URL + "/tasks?sort=id", "action": "closeTask", "input": map[string]any{"task": 4}})
	if got := text(res); !strings.Contains(got, "tasks (28): id | status | title\n") || strings.Contains(got, "by id") {
		t.Errorf("a call on another URL of the page: got\n%s\nwant the tasks whole", got)
	}
	_, res = call(t, cs, "fetch_affordances", map[string]any{"url": srv.URL + "/tasks", "show": "nope"})
	if !res.IsError || !strings.Contains(text(res), `has no table "nope" to show; its tables: tasks`) {
		t.Errorf("show of a table the page has not: got %s", text(res))
	}
}
