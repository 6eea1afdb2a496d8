package mcpbridge_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/examples/plain"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/mcpbridge"
)

// openPlain serves the plain demo, a site that publishes AAL only.
func openPlain(t *testing.T) (*plain.Site, string) {
	t.Helper()
	s := plain.New(nil)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// action returns the action named name of a fetch_affordances output.
func action(page map[string]any, name string) map[string]any {
	actions, _ := page["actions"].([]any)
	for _, a := range actions {
		if a, ok := a.(map[string]any); ok && a["name"] == name {
			return a
		}
	}
	return nil
}

// TestAALOnlyIndexAndFetch: on a site that publishes AAL and no graph,
// site_index lists its manifest's routes and their affordances, and
// fetch_affordances the page's affordances by id with their labels, the
// gate's decision and the fields of their forms as input (AAL 0.1.1,
// docs/protocol.md §29 to §31 and §39, decisions 7, 8 and 11). No browser
// is needed to read.
func TestAALOnlyIndexAndFetch(t *testing.T) {
	_, base := openPlain(t)
	cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{base}}), nil)
	idx, res := call(t, cs, "site_index", map[string]any{"origin": base})
	if res.IsError {
		t.Fatal(text(res))
	}
	routes, _ := idx["routes"].([]any)
	if idx["kind"] != "aal" || idx["name"] != "Corner Notes" || len(routes) != 5 {
		t.Fatalf("site_index: %v", idx)
	}
	notes := routes[2].(map[string]any)
	if notes["route"] != "/notes" || notes["fragment"] != "/.well-known/agent-affordances/notes.json" ||
		!reflect.DeepEqual(notes["actions"], []any{map[string]any{"name": "add-note", "description": "Add note"}, map[string]any{"name": "delete-note", "description": "Delete note"}}) {
		t.Errorf("the route /notes: %v", notes)
	}
	// The model reads text, not the JSON: the routes and their affordances.
	if got := text(res); !strings.Contains(got, "kind aal") || !strings.Contains(got, "route /notes  fragment /.well-known/agent-affordances/notes.json\n  add-note \"Add note\"\n  delete-note \"Delete note\"\n") {
		t.Errorf("site_index text: %s", got)
	}

	page, res := call(t, cs, "fetch_affordances", map[string]any{"url": base + "/notes"})
	if res.IsError {
		t.Fatal(text(res))
	}
	if page["kind"] != "aal" || page["page"] != "/notes" || page["route"] != "/notes" || page["title"] != "Notes - Corner Notes" || !strings.HasPrefix(page["summary"].(string), "Notes Welcome") {
		t.Errorf("fetch_affordances: %v", page)
	}
	add, del := action(page, "add-note"), action(page, "delete-note")
	if add == nil || add["label"] != "Add note" || add["sends"] != "POST "+base+"/notes" || add["risk"].(map[string]any)["decision"] != "allow" ||
		!reflect.DeepEqual(add["input"].(map[string]any)["required"], []any{"title", "body"}) {
		t.Errorf("add-note: %v", add)
	}
	if del == nil || del["risk"].(map[string]any)["decision"] != "ask" || !reflect.DeepEqual(del["risk"].(map[string]any)["classes"], []any{"destructive"}) ||
		!reflect.DeepEqual(del["input"].(map[string]any)["properties"].(map[string]any)["id"].(map[string]any)["enum"], []any{"n-1", "n-2"}) {
		t.Errorf("delete-note: %v", del)
	}
	// Its text: one line an affordance, its fields as a signature, the
	// gate's verdict when it asks.
	if got := text(res); !strings.Contains(got, "page /notes (kind aal") || !strings.Contains(got, "title: Notes - Corner Notes\n") ||
		!strings.Contains(got, `add-note(title: string`) || !strings.Contains(got, `"Add note"  sends POST `+base+"/notes\n") ||
		!strings.Contains(got, "delete-note(id: n-1|n-2") || !strings.Contains(got, "gate: ask: destructive") || strings.Contains(got, `"risk"`) {
		t.Errorf("fetch_affordances text: %s", got)
	}
	if _, res := call(t, cs, "fetch_affordances", map[string]any{"url": base + "/contact/sent"}); !res.IsError || !strings.Contains(text(res), "publishes no AAL") {
		t.Errorf("a page without AAL: %s, want an error saying so", text(res))
	}
}

// TestAALOnlyExecute: in real Chromium, execute_affordance performs a
// form affordance of the plain site, which receives exactly the filled
// form, and returns the next page's affordances; a destructive,
// irreversible delete is asked of the person first and, declined or with
// a client that cannot ask, nothing is posted; accepted, the note the
// input picks is deleted. Input the form cannot take fails before
// anything is clicked. The person's session cookie goes to the site they
// configured, and to no other.
func TestAALOnlyExecute(t *testing.T) {
	browsertest.Start(t) // fails, not skips, under make check when Chromium is missing
	s, base := openPlain(t)
	jar, _ := cookiejar.New(nil)
	signIn := &http.Client{Jar: jar}
	res, err := signIn.PostForm(base+"/login", url.Values{"email": {plain.DemoEmail}, "password": {plain.DemoPassword}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	p := &person{answer: "decline"}
	cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{base}, HTTPClient: &http.Client{Jar: jar}}), p)
	received := func() int { return len(s.Received()) }
	before := received()

	out, r := call(t, cs, "execute_affordance", map[string]any{"url": base + "/notes", "action": "add-note", "input": map[string]any{"title": "Tea", "body": "Green, at four."}})
	if r.IsError {
		t.Fatal(text(r))
	}
	got := s.Received()
	if len(got) != before+1 || !reflect.DeepEqual(got[before], plain.Submission{Method: "POST", Path: "/notes", Form: url.Values{"title": {"Tea"}, "body": {"Green, at four."}}, User: plain.DemoEmail}) {
		t.Errorf("the site received %+v, want the note from ada's session", got[before:])
	}
	next, _ := out["next"].(map[string]any)
	if out["ok"] != true || out["sent"] != "POST "+base+"/notes" || !reflect.DeepEqual(out["did"], []any{"fill body", "fill title", "click add-note"}) ||
		next["url"] != base+"/notes" || !strings.Contains(next["summary"].(string), "Tea Green, at four. by "+plain.DemoEmail) ||
		!reflect.DeepEqual(action(next, "delete-note")["input"].(map[string]any)["properties"].(map[string]any)["id"].(map[string]any)["enum"], []any{"n-1", "n-2", "n-3"}) {
		t.Errorf("execute add-note: %v", out)
	}
	if got := text(r); !strings.Contains(got, "/notes add-note  credentials: cookies") || !strings.Contains(got, "did: fill body, fill title, click add-note\nsent: POST "+base+"/notes\nnext page /notes (kind aal") {
		t.Errorf("execute add-note text: %s", got)
	}

	// Nothing posted: the person declines, a client cannot ask, the form
	// cannot take the input.
	for _, tc := range []struct {
		name  string
		input map[string]any
		id    string
		want  string
	}{
		{"declined", map[string]any{"id": "n-1"}, "delete-note", "did not approve delete-note"},
		{"a required field empty", map[string]any{"title": "X"}, "add-note", `body ("note") is required and left empty; nothing was clicked`},
		{"no such affordance", nil, "delete-all", `has no affordance "delete-all"`},
	} {
		_, r := call(t, cs, "execute_affordance", map[string]any{"url": base + "/notes", "action": tc.id, "input": tc.input})
		if !r.IsError || !strings.Contains(text(r), tc.want) {
			t.Errorf("%s: %s, want an error with %q", tc.name, text(r), tc.want)
		}
	}
	if len(p.read) != 1 || !strings.Contains(p.read[0], "Approve delete-note on "+base+"/notes?") || !strings.Contains(p.read[0], "Action: Delete note") || !strings.Contains(p.read[0], `Input: {"id":"n-1"}`) {
		t.Errorf("the person read %q", p.read)
	}
	mute := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{base}}), nil)
	if _, r := call(t, mute, "execute_affordance", map[string]any{"url": base + "/notes", "action": "delete-note", "input": map[string]any{"id": "n-1"}}); !r.IsError || !strings.Contains(text(r), "cannot ask them") {
		t.Errorf("a client without elicitation: %s", text(r))
	}
	if n := received(); n != before+1 || len(s.Notes()) != 3 {
		t.Errorf("after the refusals the site received %d forms and has %d notes, want %d and 3", n, len(s.Notes()), before+1)
	}

	// The person says yes: the note the input picks, and only it.
	p.answer = "accept"
	out, r = call(t, cs, "execute_affordance", map[string]any{"url": base + "/notes", "action": "delete-note", "input": map[string]any{"id": "n-1"}})
	if r.IsError || out["approved"] != true {
		t.Fatalf("delete-note approved: %v %s", out, text(r))
	}
	if got := s.Received(); len(got) != before+2 || !reflect.DeepEqual(got[before+1].Form, url.Values{"id": {"n-1"}}) || len(s.Notes()) != 2 {
		t.Errorf("after the approved delete: %+v, %d notes", got[before:], len(s.Notes()))
	}

	// Not a configured site: no cookie of the person's.
	anon := connect(t, mcpbridge.NewServer(&mcpbridge.Options{HTTPClient: &http.Client{Jar: jar}}), nil)
	out, r = call(t, anon, "execute_affordance", map[string]any{"url": base + "/notes", "action": "add-note", "input": map[string]any{"title": "Anon", "body": "Who?"}})
	if got := s.Received(); r.IsError || len(got) != before+3 || got[before+2].User != "" || !strings.HasPrefix(out["credentials"].(string), "none: ") {
		t.Errorf("an unconfigured site: %v %s; received %+v", out, text(r), got[before+2:])
	}
}
