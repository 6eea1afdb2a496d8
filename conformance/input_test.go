package conformance_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/conformance"
)

type postInput struct {
	Post string `json:"post"`
}

// TestInputFromWhatThePageOffers: the suite builds an action's input from
// what the page offers an agent, in this order: the input schema's
// examples, the data-aal-input of the action's elements on the page
// (docs/protocol.md decision 11), the schema's enum, const or default, then the
// values of the page's entities and nav whose key matches; the evidence
// says where the input came from. The blog's post is p-42, under an entity
// called entry, not post, so a guess from the entities' names finds nothing
// and a made-up post is rightly not_found (issue 27).
func TestInputFromWhatThePageOffers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		examples bool   // the input schema's post has the example p-42
		element  string // the data-aal-input of the page's delete button, if any
		nav      string // a nav link of the page, if any
		entity   string // the page's entity post, if any
		want     string // in the evidence
	}{
		{name: "schema examples", examples: true, want: "input from: post from the input schema's examples"},
		{name: "data-aal-input", element: `{"post":"p-42"}`, want: `input from: post from data-aal-input on / ([data-aal="delete-post"])`},
		{name: "nav", nav: "/posts/p-42", want: "input from: post from the nav link /posts/p-42"},
		{name: "examples before data-aal-input", examples: true, element: `{"post":"p-43"}`, want: "input from: post from the input schema's examples"},
		{name: "data-aal-input before an entity", element: `{"post":"p-42"}`, entity: "p-43", want: "input from: post from data-aal-input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, deleted := postSite(t, tc.examples, tc.element, tc.nav, tc.entity)
			rep := conformance.Run(t.Context(), url, &conformance.Options{Token: "tok"})
			res, ok := rep.Result("v0.call.confirm-required")
			if !ok || res.Outcome != conformance.Pass {
				t.Errorf("v0.call.confirm-required: got %s (%s), want pass%s", res.Outcome, res.Reason, res.Evidence.String())
			}
			if ev := res.Evidence.String(); !strings.Contains(ev, tc.want) {
				t.Errorf("the evidence lacks %q:%s", tc.want, ev)
			}
			if n := deleted(); n != 0 {
				t.Errorf("%d posts deleted by calls without confirm, want none", n)
			}
		})
	}
}

// postSite serves a blog whose page / shows the post p-42 under the entity
// entry, and whose confirm action deletePost takes {"post": id}: its
// summary is not_found for any other post. It returns the site's URL and
// how many posts were deleted.
func postSite(t *testing.T, examples bool, element, nav, entity string) (string, func() int) {
	t.Helper()
	var mu sync.Mutex
	deleted := 0
	site := affordances.NewSite(&affordances.SiteOptions{
		Name: "Blog",
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			if r.Header.Get("Authorization") == "Bearer tok" {
				return affordances.Principal{ID: "ann"}, nil
			}
			return affordances.Principal{}, nil
		},
	})
	home := site.Route("/", &affordances.RouteOptions{
		Description: "The latest post",
		State: func(context.Context, *affordances.Request) (*affordances.State, error) {
			st := &affordances.State{Entities: map[string]any{"entry": map[string]any{"id": "p-42", "title": "Hello"}}}
			if nav != "" {
				st.Nav = []affordances.NavLink{{To: nav, Label: "Hello"}}
			}
			if entity != "" {
				st.Entities["post"] = entity
			}
			return st, nil
		},
	})
	schema := map[string]any{"type": "object", "required": []string{"post"}, "additionalProperties": false,
		"properties": map[string]any{"post": map[string]any{"type": "string", "minLength": 1}}}
	if examples {
		schema["properties"].(map[string]any)["post"].(map[string]any)["examples"] = []string{"p-42"}
	}
	input, _ := json.Marshal(schema)
	exists := func(post string) bool { return slices.Contains([]string{"p-42"}, post) }
	affordances.AddAction(home, &affordances.Action{
		Name:        "deletePost",
		Description: "Delete a post",
		Expose:      affordances.ExposeConfirm,
		Input:       input,
		Summary: affordances.Summarize(func(_ context.Context, _ *affordances.Request, in postInput) (string, error) {
			if !exists(in.Post) {
				return "", affordances.NewError(affordances.NotFound, "No such post.")
			}
			return "Delete the post " + in.Post + ".", nil
		}),
	}, func(context.Context, *affordances.Request, postInput) (struct{}, error) {
		mu.Lock()
		defer mu.Unlock()
		deleted++
		return struct{}{}, nil
	})
	pages := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		button := ""
		if element != "" {
			button = `<button data-aal="delete-post" data-aal-input='` + element + `'>Delete</button>`
		}
		io.WriteString(w, `<!doctype html><html lang="en"><head><title>Blog</title></head><body><h1>Hello</h1>`+button+`</body></html>`)
	})
	srv := httptest.NewServer(site.Handler(pages))
	t.Cleanup(srv.Close)
	return srv.URL, func() int {
		mu.Lock()
		defer mu.Unlock()
		return deleted
	}
}
