package conformance_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/conformance"
)

// taskInput picks one task of the page.
type taskInput struct {
	Task string `json:"task"`
}

// TestConfirmInputFromThePage: v0.call.confirm-required builds the input
// of a confirm action from the page's own entities, as a person's agent
// would, so a site whose summary rightly answers not_found for a task that
// does not exist passes (issue 14).
func TestConfirmInputFromThePage(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	tasks := []string{"t-17", "t-18"}
	site := affordances.NewSite(&affordances.SiteOptions{
		Name: "Tasks",
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			if r.Header.Get("Authorization") == "Bearer tok" {
				return affordances.Principal{ID: "u1"}, nil
			}
			return affordances.Principal{}, nil
		},
	})
	home := site.Route("/", &affordances.RouteOptions{
		Description: "Your tasks",
		State: func(context.Context, *affordances.Request) (*affordances.State, error) {
			mu.Lock()
			defer mu.Unlock()
			list := []any{}
			for _, id := range tasks {
				list = append(list, map[string]any{"id": id, "title": "Task " + id})
			}
			return &affordances.State{Entities: map[string]any{"tasks": list}}, nil
		},
	})
	affordances.AddAction(home, &affordances.Action{
		Name:        "deleteTask",
		Description: "Delete a task",
		Expose:      affordances.ExposeConfirm,
		Summary: affordances.Summarize(func(_ context.Context, _ *affordances.Request, in taskInput) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(tasks, in.Task) {
				return "", affordances.NewError(affordances.NotFound, "No such task.")
			}
			return "Delete the task " + in.Task + ".", nil
		}),
	}, func(_ context.Context, r *affordances.Request, in taskInput) (struct{}, error) {
		mu.Lock()
		defer mu.Unlock()
		tasks = slices.DeleteFunc(tasks, func(id string) bool { return id == in.Task })
		return struct{}{}, nil
	})
	srv := httptest.NewServer(site.Handler(http.NotFoundHandler()))
	t.Cleanup(srv.Close)

	rep := conformance.Run(t.Context(), srv.URL, &conformance.Options{Token: "tok"})
	res, ok := rep.Result("v0.call.confirm-required")
	if !ok || res.Outcome != conformance.Pass {
		t.Errorf("v0.call.confirm-required: got %s (%s), want pass%s", res.Outcome, res.Reason, res.Evidence.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tasks) != 2 {
		t.Errorf("tasks: got %q, want both: a call without confirm ran", tasks)
	}
}
