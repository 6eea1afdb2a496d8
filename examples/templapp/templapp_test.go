package templapp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/examples/templapp"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/htmlcheck"
	"github.com/affordances/affordances-go/internal/node"
)

// get answers GET path from h, with an Accept header when accept is set.
func get(t *testing.T, h http.Handler, path, accept string) *http.Response {
	t.Helper()
	r := httptest.NewRequest("GET", "http://notes.test"+path, nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTemplPages: the templ components carry what the html/template
// helpers give: the page's head for agents, the form binding's field, the
// data-aal and data-aal-input every affordance of the page's fragment
// selects (docs/protocol.md decision 11), the declarative tool and the inputs'
// names and descriptions; and a person's form runs the action.
func TestTemplPages(t *testing.T) {
	h := templapp.New("")
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/", []string{
			`<input type="hidden" name="_action" value="addNote">`,
			`<button data-aal="add-note">Add note</button>`,
			`<button data-aal="delete-note" data-aal-input="{&#34;note&#34;:1}">Delete</button>`,
			`<form method="post" tooldescription="Add a note" toolname="addNote">`,
			`<input name="title" toolparamdescription="the note&#39;s title" value="">`,
		}},
		{"/notes/2", []string{
			`<input type="hidden" name="_action" value="renameNote">`,
			`<button data-aal="rename-note">Rename</button>`,
		}},
	} {
		page := body(t, get(t, h, tc.path, ""))
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %s:\n%s", tc.path, w, page)
			}
		}
		// The head is the page's own, as Page.Head writes it.
		m := regexp.MustCompile(`<script type="application/aal\+json">(.*?)</script>`).FindStringSubmatch(page)
		if m == nil || !strings.Contains(page, `<link rel="affordances" href="?affordances=1">`) || !strings.Contains(page, `id="affordances-webmcp"`) {
			t.Fatalf("%s: no head for agents:\n%s", tc.path, page)
		}
		var f aal.Fragment
		if err := json.Unmarshal([]byte(m[1]), &f); err != nil {
			t.Fatal(err)
		}
		var g affordances.Graph
		if err := json.Unmarshal([]byte(body(t, get(t, h, tc.path, affordances.MediaType))), &g); err != nil {
			t.Fatal(err)
		}
		doc, err := htmlcheck.Parse([]byte(page))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Affordances) != len(g.Actions) {
			t.Errorf("%s: %d affordances, want the graph's %d actions", tc.path, len(f.Affordances), len(g.Actions))
		}
		for _, p := range doc.CheckSelectors(g.Actions, &f) {
			t.Errorf("%s: %s (%s): %v", tc.path, p.ID, p.Selector, p.Problems)
		}
	}

	post := func(form url.Values) *http.Response {
		r := httptest.NewRequest("POST", "http://notes.test/", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Origin", "http://notes.test")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result()
	}
	if res := post(url.Values{"_action": {"addNote"}, "title": {"Water the plants"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("adding a note: got %d, want 303", res.StatusCode)
	}
	if page := body(t, get(t, h, "/", "")); !strings.Contains(page, `<a href="/notes/3">Water the plants</a>`) {
		t.Errorf("the added note is not listed:\n%s", page)
	}
	res := post(url.Values{"_action": {"addNote"}, "title": {""}})
	if page := body(t, res); res.StatusCode != http.StatusBadRequest || !strings.Contains(page, `<input aria-invalid="true" name="title"`) {
		t.Errorf("an empty title: got %d, want 400 and the input marked invalid:\n%s", res.StatusCode, page)
	}
}

// TestAALMisuse: pairs that do not make an input are written in place of
// data-aal-input, where an agent refuses them, and the render goes on.
func TestAALMisuse(t *testing.T) {
	for _, tc := range []struct {
		pairs []any
		want  string
	}{
		{nil, ""},
		{[]any{"note", 1}, `{"note":1}`},
		{[]any{"note"}, `!BADINPUT: affordances: aal "deleteNote": want name/value pairs after the action, got 1 values`},
		{[]any{1, 1}, `!BADINPUT: affordances: aal "deleteNote": field name 1 is not a string`},
		{[]any{"note", func() {}}, `!BADINPUT: affordances: aal "deleteNote": json: unsupported type: func()`},
	} {
		got := affordances.AAL("deleteNote", tc.pairs...)
		input, _ := got["data-aal-input"].(string)
		if got["data-aal"] != "delete-note" || input != tc.want {
			t.Errorf("AAL(deleteNote, %v): got %v, want data-aal-input %q", tc.pairs, got, tc.want)
		}
		if _, err := aal.ParseInput(input); input != "" && (err == nil) != !strings.HasPrefix(tc.want, "!") {
			t.Errorf("%q: ParseInput: %v", input, err)
		}
	}
}

// TestBoostedNavigation: in Chromium with WebMCP and htmx, a person on the
// notes list follows a boosted link to a note: htmx swaps the body and
// pushes the note's URL, the document stays. The browser then offers the
// note's tools and no longer the list's, the head inlines and links the
// note's fragment, and the note's tool acts on the note. Back on the list
// (htmx restores it), the list's tools and fragment are back; and after a
// pushState of a script that is not htmx's, the tools are that page's.
func TestBoostedNavigation(t *testing.T) {
	browsertest.Need(t)
	dir, err := node.Repo()
	if err != nil {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatal(err) // make check installs them (make deps)
		}
		t.Skip(err)
	}
	htmx, err := os.ReadFile(filepath.Join(dir, "node_modules", "htmx.org", "dist", "htmx.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	app := templapp.New("/htmx.min.js")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /htmx.min.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(htmx)
	})
	mux.Handle("/", app)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	ctx := t.Context()
	p, err := browsertest.StartWith(t, &browser.Options{Features: []string{"WebMCPTesting"}}).NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	var done bool
	if err := p.Eval(ctx, `window.stayed = true`, &done); err != nil {
		t.Fatal(err)
	}
	// at waits until the browser offers want, and returns the head's
	// fragment and its link then.
	at := func(path string, want ...string) {
		t.Helper()
		var got []string
		deadline := time.Now().Add(10 * time.Second)
		for {
			tools, err := p.Tools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got = got[:0]
			for _, tool := range tools {
				got = append(got, tool.Name)
			}
			slices.Sort(got)
			if slices.Equal(got, want) || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		var where struct {
			Path, Link string
			Stayed     bool
		}
		if err := p.Eval(ctx, `({path: location.pathname, link: document.querySelector('link[rel="agent-affordances"]').getAttribute("href"), stayed: !!window.stayed})`, &where); err != nil {
			t.Fatal(err)
		}
		if where.Path != path || !where.Stayed {
			t.Fatalf("at %s (the same document: %v), want %s by htmx", where.Path, where.Stayed, path)
		}
		f, err := p.Fragment(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var direct aal.Fragment
		if err := json.Unmarshal([]byte(body(t, get(t, app, aal.FragmentPath(path), ""))), &direct); err != nil {
			t.Fatal(err)
		}
		if got, want := ids(f), ids(&direct); !slices.Equal(got, want) || f.Page != direct.Page {
			t.Errorf("at %s the head's fragment is %s's %q, want %s's %q", path, f.Page, got, direct.Page, want)
		}
		if want := aal.FragmentPath(path); where.Link != want {
			t.Errorf("at %s the head links the fragment %s, want %s", path, where.Link, want)
		}
		if !slices.Equal(got, want) { // fatal: running a tool of another page could wait for ever
			t.Fatalf("at %s the browser offers the tools %q, want %q", path, got, want)
		}
	}
	at("/", "addNote", "deleteNote")

	if err := p.Eval(ctx, `document.querySelector('a[href="/notes/1"]').click(), true`, &done); err != nil {
		t.Fatal(err)
	}
	at("/notes/1", "renameNote")
	out, err := p.ExecuteTool(ctx, "renameNote", map[string]any{"title": "Buy oat milk"})
	if err != nil {
		t.Fatal(err)
	}
	var d affordances.Delta
	if err := json.Unmarshal([]byte(out), &d); err != nil || !d.OK {
		t.Errorf("renameNote: got %s (%v), want ok", out, err)
	}
	if page := body(t, get(t, app, "/", "")); !strings.Contains(page, `<a href="/notes/1">Buy oat milk</a>`) {
		t.Errorf("the tool did not rename note 1:\n%s", page)
	}

	if err := p.Eval(ctx, `history.back(), true`, &done); err != nil {
		t.Fatal(err)
	}
	at("/", "addNote", "deleteNote")

	// Any change of the URL in the same document, htmx's or not.
	if err := p.Eval(ctx, `history.pushState(null, "", "/notes/2"), true`, &done); err != nil {
		t.Fatal(err)
	}
	at("/notes/2", "renameNote")
}

// ids returns the ids of a fragment's affordances.
func ids(f *aal.Fragment) []string {
	var out []string
	for _, a := range f.Affordances {
		out = append(out, a.ID)
	}
	return out
}
