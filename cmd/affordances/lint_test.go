package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/demotest"
)

// TestLintFiles: lint reads AAL documents and Affordances documents from
// files, names each problem with its JSON Pointer, and exits 1 on any
// (issue 3, CLI).
func TestLintFiles(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		want     []string // substrings of stdout
	}{
		{"clean fragment", []string{"lint", "testdata/lint/fragment-ok.json"}, exitOK, []string{"ok    testdata/lint/fragment-ok.json (fragment)", "1 document checked, 0 problems"}},
		{"clean manifest", []string{"lint", "testdata/lint/manifest-ok.json"}, exitOK, []string{"(manifest)", "0 problems"}},
		{"broken fragment", []string{"lint", "testdata/lint/fragment-bad.json"}, exitFail, []string{
			"(fragment) /affordances/0/label:", `\u200b`, // the invisible character is shown, not hidden
			"(fragment) /affordances/1/action:", "(fragment) /affordances/1/id:", "(fragment) /flow", "(fragment) /affordances/1/cost/currency:"}},
		{"broken graph", []string{"lint", "testdata/lint/graph-bad.json"}, exitFail, []string{"(graph) /actions/0/available: is required", "(graph) /actions/0/expose:"}},
		{"not a known document", []string{"lint", "testdata/lint/unknown.json"}, exitFail, []string{"(unknown)"}},
		// Not JSON: the parse error and where it is (issue 36).
		{"not JSON", []string{"lint", "testdata/lint/not-json.json"}, exitFail, []string{
			`FAIL  testdata/lint/not-json.json (unknown) "": not JSON: invalid character '}' looking for beginning of object key string, at line 4, column 1 (byte 34)`}},
		{"cut short", []string{"lint", "testdata/lint/truncated.json"}, exitFail, []string{
			`(unknown) "": not JSON: unexpected end of JSON input, at the end, line 4, column 1 (byte 32)`}},
		{"JSON, not an object", []string{"lint", "testdata/lint/array.json"}, exitFail, []string{
			`(unknown) "": JSON, but a JSON array, not an object`}},
		{"several files", []string{"lint", "testdata/lint/fragment-ok.json", "testdata/lint/graph-bad.json"}, exitFail, []string{"2 documents checked"}},
		{"missing file is a usage error", []string{"lint", "testdata/lint/nope.json"}, exitUsage, nil},
		{"no argument is a usage error", []string{"lint"}, exitUsage, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, out, errOut := testEnv(nil)
			if code := run(context.Background(), e, tc.args); code != tc.wantCode {
				t.Errorf("exit: got %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestLintDemo: `affordances lint URL` against the running demo walks the
// index, the manifest and every page reachable through nav, and finds no
// problem, anonymous and signed in, as an agent, a person, or both (issue
// 3, "Done when"; issue 27).
func TestLintDemo(t *testing.T) {
	url := startDemo(t, "lint-token")
	jar := filepath.Join(t.TempDir(), "jar.txt")
	if code, out, errOut := cli(t, nil, "call", "--cookie-jar", jar, url+"/login", "signIn", `{"email":"alice@example.com","password":"alice"}`); code != exitOK {
		t.Fatalf("signIn: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"lint", url},
		{"lint", "--token", "lint-token", url},
		{"lint", "--cookie-jar", jar, url},
		{"lint", "--token", "lint-token", "--cookie-jar", jar, url}, // issue 27
	} {
		e, out, errOut := testEnv(nil)
		if code := run(context.Background(), e, args); code != exitOK {
			t.Errorf("%v: exit %d, want 0\n%s\n%s", args, code, out, errOut)
		}
		for _, w := range []string{"(site index)", "(manifest)", "/products/", "(fragment)", " 0 problems"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: stdout lacks %q:\n%s", args, w, out)
			}
		}
	}
}

// itemsSite serves one page, /tasks, whose action deleteTask is available
// or not and whose HTML body is body; its affordance delete-task has the
// selector [data-aal="delete-task"].
func itemsSite(t *testing.T, available bool, body string) string {
	t.Helper()
	input := `{"type":"object","properties":{"task":{"type":"string"}},"required":["task"]}`
	reason := ""
	if !available {
		reason = `,"reason":"Sign in to delete tasks."`
	}
	docs := map[string]string{
		affordances.IndexPath:                       `{"v":"0","auth":["bearer"],"routes":[{"route":"/tasks","actions":[{"name":"deleteTask","description":"Delete a task.","input":` + input + `,"expose":"session"}]}]}`,
		aal.ManifestPath:                            `{"aal":"0.1","site":{"name":"Tasks","origin":"http://127.0.0.1"},"routes":[{"route":"/tasks","fragment":"/.well-known/agent-affordances/tasks.json"}]}`,
		"/.well-known/agent-affordances/tasks.json": `{"aal":"0.1","page":"/tasks","affordances":[{"id":"delete-task","selector":"[data-aal=\"delete-task\"]","action":"delete","label":"Delete","destructive":true,"reversible":false,"trust":"user"}]}`,
	}
	graph := `{"v":"0","page":"/tasks","route":"/tasks","entities":{},"actions":[{"name":"deleteTask","description":"Delete a task.","input":` + input + `,"expose":"session","available":` + strconv.FormatBool(available) + reason + `}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		switch {
		case ok && r.URL.Path == affordances.IndexPath:
			w.Header().Set("Content-Type", affordances.MediaType)
		case ok:
			w.Header().Set("Content-Type", "application/json")
		case r.URL.Path == "/tasks" && r.Header.Get("Accept") == affordances.MediaType:
			w.Header().Set("Content-Type", affordances.MediaType)
			doc = graph
		case r.URL.Path == "/tasks":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			doc = `<!doctype html><html lang="en"><head><title>Tasks</title></head><body>` + body + `</body></html>`
		default:
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, doc)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestLintItems: a selector matches an element while its action is
// available, and several elements each carry a distinct data-aal-input
// JSON object; each problem names the page, the affordance, the selector
// and what is wrong (docs/protocol.md decision 11).
func TestLintItems(t *testing.T) {
	const sel = `selector [data-aal="delete-task"]: `
	for _, tc := range []struct {
		name      string
		available bool
		body      string
		wantCode  int
		want      []string // substrings of stdout
	}{
		{"one element", true, `<button data-aal="delete-task">Delete</button>`, exitOK, []string{", 0 problems\n"}},
		{"several with distinct inputs", true, `<ul>
			<li>Milk <button data-aal="delete-task" data-aal-input='{"task":"t-1"}'>Delete</button>
			<li>Eggs <button data-aal="delete-task" data-aal-input='{"task":"t-2"}'>Delete</button>
			<li>Bread <button data-aal="delete-task" data-aal-input='{"task":"t-1","list":"b"}'>Delete</button>
			</ul>`, exitOK, []string{", 0 problems\n"}},
		{"unavailable, no element", false, `<p>Sign in to delete tasks.</p>`, exitOK, []string{", 0 problems\n"}},
		{"unavailable, disabled elements", false, `<button data-aal="delete-task" data-aal-input='{"task":"t-1"}' disabled>Delete</button>
			<button data-aal="delete-task" data-aal-input='{"task":"t-2"}' disabled>Delete</button>`, exitOK, []string{", 0 problems\n"}},
		{"available, no element", true, `<p>No button.</p>`, exitFail, []string{
			`FAIL  URL/.well-known/agent-affordances/tasks.json (fragment) /affordances/0/selector: page URL/tasks, affordance "delete-task", ` + sel + "no element matches while the action is available (docs/protocol.md decision 11)",
			", 1 problem\n"}},
		{"several, one without input", true, `<button data-aal="delete-task" data-aal-input='{"task":"t-1"}'>Delete</button>
			<button data-aal="delete-task">Delete</button>`, exitFail, []string{
			`page URL/tasks, affordance "delete-task", ` + sel + "element 2 of 2 lacks data-aal-input", ", 1 problem\n"}},
		{"several without inputs, unavailable", false, `<button data-aal="delete-task" disabled>A</button><button data-aal="delete-task" disabled>B</button>`, exitFail, []string{
			sel + "element 1 of 2 lacks data-aal-input", sel + "element 2 of 2 lacks data-aal-input", ", 2 problems\n"}},
		{"malformed input", true, `<button data-aal="delete-task" data-aal-input='{task:"t-1"}'>Delete</button>
			<button data-aal="delete-task" data-aal-input='"t-2"'>Delete</button>`, exitFail, []string{
			sel + "element 1 of 2: data-aal-input is not a JSON object: invalid character 't' looking for beginning of object key string",
			sel + `element 2 of 2: data-aal-input is not a JSON object: it is "t-2"`, ", 2 problems\n"}},
		{"duplicated input", true, `<button data-aal="delete-task" data-aal-input='{"task":"t-1","list":"a"}'>Delete</button>
			<button data-aal="delete-task" data-aal-input='{"task":"t-2"}'>Delete</button>
			<button data-aal="delete-task" data-aal-input='{ "list": "a", "task": "t-1" }'>Delete</button>`, exitFail, []string{
			sel + `elements 1 and 3 carry the same input {"list":"a","task":"t-1"}`, ", 1 problem\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := itemsSite(t, tc.available, tc.body)
			e, out, errOut := testEnv(nil)
			if code := run(t.Context(), e, []string{"lint", url + "/tasks"}); code != tc.wantCode {
				t.Errorf("exit: got %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, out, errOut)
			}
			got := strings.ReplaceAll(out.String(), url, "URL")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("stdout lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestLintSize: a graph over about 2,000 o200k tokens, of a site or a
// file, is a warning naming the entity that weighs most, and leaves the
// exit status at 0; a small one says nothing (issue 28).
func TestLintSize(t *testing.T) {
	big, small := demotest.Entries(t, 300), demotest.Entries(t, 5)
	file := filepath.Join(t.TempDir(), "graph.json")
	res, err := http.Get(big + "/?affordances=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	const warn = "/entities/entries: the graph passes about 2,000 o200k tokens, a should of docs/protocol.md (§7, Graph): entity 'entries' is "
	for _, tc := range []struct {
		name string
		arg  string
		want []string // substrings of stdout; nil: no warning
	}{
		{"big site", big, []string{"WARN  " + big + "/ (graph) " + warn, ", 0 problems, 1 warning\n"}},
		{"big file", file, []string{"WARN  " + file + " (graph) " + warn, "1 document checked, 0 problems, 1 warning\n"}},
		{"small site", small, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := cli(t, nil, "lint", tc.arg)
			if code != exitOK {
				t.Errorf("exit %d, want 0\n%s%s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if tc.want == nil && strings.Contains(out, "WARN") {
				t.Errorf("a small graph warned:\n%s", out)
			}
		})
	}
}

// TestLintBehindAProxyOfThePrefix: lint given a page of a site under /app
// behind a proxy that forwards only /app/ reads the site index and the
// manifest the page names in its Link headers, and each page's graph and
// fragment under the prefix, with no problem (docs/protocol.md decision 13, issue
// 38). Before, it read the origin's /.well-known/ alone: no index.
func TestLintBehindAProxyOfThePrefix(t *testing.T) {
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Links", Prefix: "/app"})
	rt := site.Route("/links/", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"links": 2}, Nav: []affordances.NavLink{{To: "/about", Label: "About"}}}, nil
	}})
	affordances.AddAction(rt, &affordances.Action{Name: "refresh", Description: "Refresh the links", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	site.Route("/about", nil)
	app := http.StripPrefix("/app", site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pg := affordances.PageFrom(r.Context())
		io.WriteString(w, `<!doctype html><html><head><title>Links</title>`+string(pg.Head())+`</head><body><button data-aal="refresh">Refresh</button></body></html>`)
	})))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/app/") {
			http.NotFound(w, r)
			return
		}
		app.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e, out, errOut := testEnv(nil)
	if code := run(t.Context(), e, []string{"lint", srv.URL + "/app/links/"}); code != exitOK {
		t.Errorf("exit: got %d, want 0\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	got := strings.ReplaceAll(out.String(), srv.URL, "URL")
	for _, want := range []string{"URL/app/.well-known/affordances.json", "URL/app/.well-known/agent-affordances.json", "URL/app/about (graph)", "8 documents checked, 0 problems"} {
		if !strings.Contains(got, want) {
			t.Errorf("stdout lacks %q:\n%s", want, got)
		}
	}
}
