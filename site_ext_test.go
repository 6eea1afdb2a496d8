package affordances_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
)

// board is the state behind the test site: a counter and notes.
type board struct {
	mu      sync.Mutex
	counter int
	notes   []string
	ran     map[string]int // how often each action's function ran
	tally   map[string]int // shared with the loader on purpose
}

func (b *board) snapshot() (int, []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counter, append([]string(nil), b.notes...)
}

func (b *board) runs(action string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ran[action]
}

func (b *board) count(action string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ran[action]++
}

type (
	none struct{}
	pong struct {
		Pong bool `json:"pong"`
	}
	byInput struct {
		By int `json:"by,omitempty" jsonschema:"how much to add" affordances:"minimum=1,maximum=10"`
	}
	noteInput struct {
		Text string `json:"text" affordances:"minLength=1,maxLength=200"`
	}
)

// testSite is a small site exercising every part of the publisher:
//
//	/             counter and notes, many actions
//	/items/[id]   only item "1" exists; "new" is a literal route
//	/plain        a route without a state loader
//
// Bearer "good" is u1, bearer "admin" is the admin; cookie sid=s1 is u1.
func testSite(t testing.TB, opts *affordances.SiteOptions) (*affordances.Site, *board) {
	b := &board{ran: map[string]int{}, tally: map[string]int{}}
	if opts == nil {
		opts = &affordances.SiteOptions{}
	}
	opts.Name = "Test"
	opts.Authenticate = func(r *http.Request) (affordances.Principal, error) {
		switch r.Header.Get("Authorization") {
		case "Bearer good":
			return affordances.Principal{ID: "u1"}, nil
		case "Bearer admin":
			return affordances.Principal{ID: "admin"}, nil
		case "":
		default:
			return affordances.Principal{}, affordances.ErrInvalidToken
		}
		if c, err := r.Cookie("sid"); err == nil && c.Value == "s1" {
			return affordances.Principal{ID: "u1"}, nil
		}
		return affordances.Principal{}, nil
	}
	site := affordances.NewSite(opts)
	home := site.Route("/", &affordances.RouteOptions{
		Description: "The board",
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			n, notes := b.snapshot()
			ents := map[string]any{"counter": n, "notes": notes, "viewer": r.Principal.ID, "tally": b.tally}
			if n >= 5 {
				ents["milestone"] = "five"
			}
			if r.HTTP.URL.Query().Has("affordances") {
				ents["sawAlias"] = true
			}
			if q := r.HTTP.URL.Query().Get("q"); q != "" {
				ents["q"] = q
			}
			return &affordances.State{Entities: ents, Nav: []affordances.NavLink{{To: "/items/1", Label: "Item 1"}}}, nil
		},
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "ping", Description: "Answer pong", Expose: affordances.ExposePublic, ReadOnly: true,
	}, func(ctx context.Context, r *affordances.Request, _ none) (pong, error) {
		b.count("ping")
		return pong{Pong: true}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "increment", Description: "Add to the counter", Expose: affordances.ExposePublic, Effects: []string{"counter", "milestone"},
	}, func(ctx context.Context, r *affordances.Request, in byInput) (none, error) {
		b.count("increment")
		b.mu.Lock()
		defer b.mu.Unlock()
		b.counter += max(in.By, 1)
		r.SetMessage(fmt.Sprintf("The counter is %d.", b.counter))
		return none{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "addNote", Description: "Add a note", Expose: affordances.ExposeSession,
	}, func(ctx context.Context, r *affordances.Request, in noteInput) (none, error) {
		b.count("addNote")
		b.mu.Lock()
		defer b.mu.Unlock()
		b.notes = append(b.notes, in.Text)
		r.SetRedirect("/")
		return none{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "tally", Description: "Count a vote in a map the loader shares", Expose: affordances.ExposeSession,
	}, func(ctx context.Context, r *affordances.Request, _ none) (none, error) {
		b.tally["votes"]++ // under the test's own sequencing; no concurrent use
		return none{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "reset", Description: "Set the counter to zero", Expose: affordances.ExposeConfirm, Effects: []string{"counter"},
		GuardText: "the counter is above zero",
		Guard: func(ctx context.Context, r *affordances.Request) (bool, string) {
			return r.State.Entities["counter"].(int) > 0, "The counter is already zero."
		},
		Summary: affordances.Summarize(func(ctx context.Context, r *affordances.Request, _ none) (string, error) {
			return fmt.Sprintf("Reset the counter from %d to 0.", r.State.Entities["counter"]), nil
		}),
	}, func(ctx context.Context, r *affordances.Request, _ none) (none, error) {
		b.count("reset")
		b.mu.Lock()
		defer b.mu.Unlock()
		b.counter = 0
		return none{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "audit", Description: "Admins only", Expose: affordances.ExposeSession,
		Visible: func(r *affordances.Request) bool { return r.Principal.ID == "admin" },
	}, func(ctx context.Context, r *affordances.Request, _ none) (none, error) {
		b.count("audit")
		return none{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "signOut", Description: "Forget who I am", Expose: affordances.ExposeSession,
	}, func(ctx context.Context, r *affordances.Request, _ none) (none, error) {
		r.SetPrincipal(affordances.Principal{})
		r.Header().Add("Set-Cookie", "sid=; Max-Age=0")
		return none{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "boom", Description: "Panics", Expose: affordances.ExposePublic,
	}, func(ctx context.Context, r *affordances.Request, _ none) (none, error) {
		panic("boom")
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "broken", Description: "Fails unexpectedly", Expose: affordances.ExposePublic,
	}, func(ctx context.Context, r *affordances.Request, _ none) (none, error) {
		return none{}, errors.New("database password is hunter2")
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "soldOut", Description: "Fails in the domain", Expose: affordances.ExposePublic,
	}, func(ctx context.Context, r *affordances.Request, _ none) (none, error) {
		return none{}, affordances.NewError(affordances.Unavailable, "Only 2 left in stock.")
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "hidden", Description: "Not exposed",
	}, func(ctx context.Context, r *affordances.Request, _ none) (none, error) {
		b.count("hidden")
		return none{}, nil
	})
	affordances.AddAction(home, &affordances.Action{
		Name: "raw", Description: "Schema given as JSON", Expose: affordances.ExposePublic,
		Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","multipleOf":2}},"required":["n"]}`),
	}, func(ctx context.Context, r *affordances.Request, in map[string]any) (map[string]any, error) {
		return in, nil
	})

	item := site.Route("/items/[id]", &affordances.RouteOptions{
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			if r.Param("id") != "1" {
				return nil, affordances.NewError(affordances.NotFound, "No such item.")
			}
			return &affordances.State{Entities: map[string]any{"id": r.Param("id")}}, nil
		},
	})
	affordances.AddAction(item, &affordances.Action{
		Name: "ping", Description: "Answer pong", Expose: affordances.ExposePublic,
	}, func(ctx context.Context, r *affordances.Request, _ none) (pong, error) { return pong{true}, nil })
	site.Route("/items/new", &affordances.RouteOptions{
		State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
			return &affordances.State{Entities: map[string]any{"form": "new"}}, nil
		},
	})
	site.Route("/plain", nil)
	return site, b
}

// app is the HTML application the site wraps: it renders from the loaded
// state, and echoes form posts.
var app = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "form post handled by the app")
		return
	}
	pg := affordances.PageFrom(r.Context())
	st, err := pg.State()
	if err != nil {
		http.Error(w, err.(*affordances.Error).Message, err.(*affordances.Error).HTTPStatus())
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if st.Entities == nil {
		io.WriteString(w, "ok")
		return
	}
	fmt.Fprintf(w, "<!doctype html><head>%s</head><p>viewer=%v counter=%v", pg.Head(), st.Entities["viewer"], st.Entities["counter"])
})

// response is what a test saw.
type response struct {
	status int
	header http.Header
	body   []byte
	delta  affordances.Delta
	graph  affordances.Graph
}

// do sends a request to h and decodes what came back; every Affordances
// document is checked against schemas/ first.
func do(t testing.TB, h http.Handler, r *http.Request) response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	res := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	if rec.Header().Get("Content-Type") != affordances.MediaType || r.Method == http.MethodHead {
		return res
	}
	switch {
	case r.URL.Path == affordances.IndexPath:
		checkIndex(t, res.body)
	case r.Method == http.MethodPost || rec.Code != http.StatusOK:
		checkDelta(t, res.body)
		if err := json.Unmarshal(res.body, &res.delta); err != nil {
			t.Fatalf("delta: %v: %s", err, res.body)
		}
	default:
		checkGraph(t, res.body)
		if err := json.Unmarshal(res.body, &res.graph); err != nil {
			t.Fatalf("graph: %v: %s", err, res.body)
		}
	}
	return res
}

// get asks for path's graph, with extra headers as "Name: value" strings.
func get(path string, headers ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "http://shop.test"+path, nil)
	r.Header.Set("Accept", affordances.MediaType)
	return with(r, headers)
}

// post calls path with body, with extra headers.
func post(path, body string, headers ...string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://shop.test"+path, strings.NewReader(body))
	r.Header.Set("Content-Type", affordances.MediaType)
	return with(r, headers)
}

func with(r *http.Request, headers []string) *http.Request {
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	return r
}

func (res response) code() affordances.Code {
	if res.delta.Error == nil {
		return ""
	}
	return res.delta.Error.Code
}

func (res response) action(name string) (affordances.ActionDescriptor, bool) {
	for _, a := range res.graph.Actions {
		if a.Name == name {
			return a, true
		}
	}
	return affordances.ActionDescriptor{}, false
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var _ = bytes.Equal
var _ = time.Second
