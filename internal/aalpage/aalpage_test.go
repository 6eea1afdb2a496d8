package aalpage_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/examples/plain"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/demotest"
)

func startPlain(t *testing.T) (*plain.Site, string) {
	t.Helper()
	s := plain.New(nil)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// TestLoad: a page of the plain site is read through AAL alone: the
// fragment it links, inlines, or the manifest names (docs/protocol.md
// decision 7), and for each affordance the elements and form fields the
// HTML has for it, as the input schema a call gives
// (docs/protocol.md decision 11's data-aal-input picking a note).
func TestLoad(t *testing.T) {
	_, base := startPlain(t)
	ctx := t.Context()
	for _, tc := range []struct {
		path, from, route string
		ids               []string
	}{
		{"/", aalpage.FromLink, "/", []string{"search", "newsletter-signup", "open-notes", "open-contact"}},
		{"/notes", aalpage.FromLink, "/notes", []string{"add-note", "delete-note"}},
		{"/contact", aalpage.FromInline, "/contact", []string{"send-message"}},
		{"/search?q=garden", aalpage.FromLink, "/search", []string{"search"}},
	} {
		p, err := aalpage.Load(ctx, nil, base+tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if p.From != tc.from || p.Route != tc.route || !reflect.DeepEqual(p.IDs(), tc.ids) || p.Manifest == nil || p.Manifest.Site.Name != "Corner Notes" {
			t.Errorf("%s: from %q, route %q, ids %q, manifest %v; want %q, %q, %q and the site's", tc.path, p.From, p.Route, p.IDs(), p.Manifest, tc.from, tc.route, tc.ids)
		}
	}

	p, err := aalpage.Load(ctx, nil, base+"/notes")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Notes - Corner Notes" || !strings.HasPrefix(p.Summary, "Notes Welcome This notebook is a plain website") {
		t.Errorf("title %q, summary %q", p.Title, p.Summary)
	}
	add, del := p.Elements["add-note"], p.Elements["delete-note"]
	if add.Matches != 1 || add.Method != "POST" || add.Action != base+"/notes" || len(add.Fields) != 2 {
		t.Errorf("add-note: %+v", add)
	}
	if got, want := string(add.Input), `{"type":"object","properties":{"title":{"maxLength":80,"minLength":1,"title":"Title","type":"string"},"body":{"maxLength":2000,"minLength":1,"title":"Note","type":"string"}},"required":["title","body"]}`; got != want {
		t.Errorf("add-note's input:\n got %s\nwant %s", got, want)
	}
	if del.Matches != 2 || del.Problems != nil || !reflect.DeepEqual(del.Items, []map[string]any{{"id": "n-1"}, {"id": "n-2"}}) {
		t.Errorf("delete-note: %+v", del)
	}
	if got, want := string(del.Input), `{"type":"object","properties":{"id":{"description":"picks one of the elements the selector finds (their data-aal-input)","enum":["n-1","n-2"]}},"required":["id"]}`; got != want {
		t.Errorf("delete-note's input:\n got %s\nwant %s", got, want)
	}
	c, err := aalpage.Load(ctx, nil, base+"/contact")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]map[string]any
		Required   []string
	}
	json.Unmarshal(c.Elements["send-message"].Input, &schema)
	if !reflect.DeepEqual(schema.Required, []string{"name", "email", "message"}) || schema.Properties["copy"]["type"] != "boolean" ||
		!reflect.DeepEqual(schema.Properties["topic"]["enum"], []any{"question", "feedback", "other"}) || schema.Properties["topic"]["title"] != "Topic" {
		t.Errorf("send-message's input: %s", c.Elements["send-message"].Input)
	}
	if nav := p.Elements["open-notes"]; nav != nil {
		t.Errorf("/notes has open-notes: %+v", nav)
	}
	home, _ := aalpage.Load(ctx, nil, base+"/")
	if nav := home.Elements["open-notes"]; nav.Href != base+"/notes" || string(nav.Input) != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Errorf("open-notes: %+v", nav)
	}

	// Pages without AAL, and pages with a graph.
	if p, err := aalpage.Load(ctx, nil, base+"/contact/sent"); !errors.Is(err, aalpage.ErrNoAAL) || p == nil || p.Title != "Message sent - Corner Notes" {
		t.Errorf("/contact/sent: %v, %+v; want ErrNoAAL with the page", err, p)
	}
	if _, err := aalpage.Load(ctx, nil, base+"/nowhere"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("/nowhere: %v, want its 404", err)
	}
	_, srv := demotest.Shop(t, nil, nil)
	if _, err := aalpage.Load(ctx, nil, srv.URL+"/"); !errors.Is(err, aalpage.ErrGraph) {
		t.Errorf("the shop's /: %v, want ErrGraph", err)
	}
}

// TestLoadInvalid: a fragment that breaks AAL's rules is not read, and
// says why; a fragment of another origin is not read either.
func TestLoadInvalid(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"aal":"0.1","page":"/","affordances":[]}`))
	}))
	defer other.Close()
	mux := http.NewServeMux()
	page := func(head string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<!doctype html><title>T</title>` + head + `<main><button data-aal="go">Go</button></main>`))
		}
	}
	mux.HandleFunc("/bad", page(`<script type="application/aal+json">{"aal":"0.1","page":"/bad","affordances":[{"id":"Go","selector":"[data-aal=go]","action":"submit","label":"Go\u200b","trust":"safe"}]}</script>`))
	mux.HandleFunc("/elsewhere", page(`<link rel="agent-affordances" href="`+other.URL+`/f.json">`))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for path, want := range map[string]string{
		"/bad":       "is not valid AAL 0.1, so nothing acts on it: /affordances/0/id",
		"/elsewhere": "only a fragment of the site's own origin is read",
	} {
		if _, err := aalpage.Load(t.Context(), nil, srv.URL+path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}

// TestMatchRoute: the manifest's route patterns (docs/protocol.md decision 7).
func TestMatchRoute(t *testing.T) {
	for _, tc := range []struct {
		route, path string
		want        bool
	}{
		{"/", "/", true},
		{"/", "/notes", false},
		{"/notes", "/notes?x=1", true},
		{"/notes", "/notes/", false},
		{"/products/[slug]", "/products/tote", true},
		{"/products/[slug]", "/products/", false},
		{"/products/[slug]", "/products/a/b", false},
		{"/files/[...path]", "/files/a/b", true},
		{"/files/[...path]", "/files/", false},
		{"/files/[...path]", "/files", false},
	} {
		if got := aalpage.MatchRoute(tc.route, tc.path); got != tc.want {
			t.Errorf("MatchRoute(%q, %q) = %v, want %v", tc.route, tc.path, got, tc.want)
		}
	}
}
