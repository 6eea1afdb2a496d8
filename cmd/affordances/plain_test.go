package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/examples/plain"
	"github.com/affordances/affordances-go/internal/browsertest"
)

// TestDemoPlain: `affordances demo plain` serves the plain site on --addr:
// its manifest is valid AAL naming the origin it listens on, it publishes
// no Affordances graph, and it prints each form it receives, the site's
// text quoted.
func TestDemoPlain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	e := &env{stdout: pw, stderr: io.Discard, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, e, []string{"demo", "plain", "--addr", "127.0.0.1:0"})
		pw.Close()
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the demo stopped printing")
			}
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("the demo printed nothing for 10 s")
		}
		return ""
	}
	first := next()
	if !strings.HasPrefix(first, "Demo plain site") {
		t.Fatalf("the first line is %q, want the banner", first)
	}
	base := first[strings.LastIndex(first, " ")+1:]
	for l := next(); !strings.HasPrefix(l, "Press Ctrl-C"); l = next() {
	}

	res, err := http.Get(base + aal.ManifestPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if kind, problems := aal.Validate(body); kind != aal.KindManifest || problems != nil || !strings.Contains(string(body), `"origin": "`+base+`"`) {
		t.Errorf("the manifest: %s %v\n%s\nwant a valid manifest for %s", kind, problems, body, base)
	}
	req, _ := http.NewRequest("GET", base+"/notes", nil)
	req.Header.Set("Accept", "application/vnd.affordances+json")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("/notes asked for a graph: %s, want the HTML page (the site has no graph)", ct)
	}
	res, err = http.PostForm(base+"/notes", url.Values{"title": {"Tea"}, "body": {"Green\x1b[31m, at four."}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got, want := next(), `received POST /notes: "body"="Green\x1b[31m, at four." "title"="Tea"`; got != want {
		t.Errorf("the demo printed %q, want %q", got, want)
	}

	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("demo plain: exit %d, want 0", code)
	}
}

// startPlain serves the plain site (examples/plain) for one test.
func startPlain(t *testing.T) (*plain.Site, string) {
	t.Helper()
	s := plain.New(nil)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// TestInspectPlain: inspect reads a page that publishes AAL only: its
// affordances with their labels verbatim, classes, the gate's decision,
// the elements their selectors find and the fields of their forms
// (docs/protocol.md decisions 7, 8 and 11); --json says it has no graph. A
// page with neither a graph nor AAL is a protocol failure, exit 4.
func TestInspectPlain(t *testing.T) {
	_, base := startPlain(t)
	e, out, errOut := testEnv(nil)
	if code := run(t.Context(), e, []string{"inspect", base + "/notes"}); code != exitOK {
		t.Fatalf("inspect: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		base + "/notes  (AAL only: no Affordances graph)",
		"AAL:      the fragment the page links, /.well-known/agent-affordances/notes.json",
		"site:     Corner Notes (manifest /.well-known/agent-affordances.json, 5 routes, this page's /notes)",
		`  add-note  create "Add note", trust user, reversible`,
		"    form:    POST /notes",
		"    input:   title: string (required, 1-80 chars), body: string (required, 1-2000 chars)",
		"    gate:    Allow",
		`  delete-note  delete "Delete note", trust user, destructive, irreversible`,
		`    element: [data-aal="delete-note"], 2 elements, data-aal-input {"id":"n-1"}, {"id":"n-2"}`,
		`    input:   id: "n-1"|"n-2" (required)`,
		"    gate:    Ask (destructive)",
		"             Deletes something: destructive and cannot be undone.",
		"Content:\n  Notes Welcome This notebook is a plain website",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}

	e, out, _ = testEnv(nil)
	if code := run(t.Context(), e, []string{"inspect", "--json", "--unattended", base + "/contact"}); code != exitOK {
		t.Fatalf("inspect --json: exit %d", code)
	}
	var got struct {
		Graph    *struct{}
		From     string
		Fragment struct{ Affordances []struct{ ID, Label string } }
		Verdicts map[string]struct{ Decision string }
		Elements map[string]struct {
			Method, Action string
			Input          struct{ Required []string }
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Graph != nil || got.From != "inline" || len(got.Fragment.Affordances) != 1 || got.Fragment.Affordances[0].Label != "Send message" ||
		got.Verdicts["send-message"].Decision != "allow" || got.Elements["send-message"].Action != base+"/contact" ||
		strings.Join(got.Elements["send-message"].Input.Required, ",") != "name,email,message" {
		t.Errorf("inspect --json: %+v\n%s", got, out)
	}

	e, _, errOut = testEnv(nil)
	if code := run(t.Context(), e, []string{"inspect", base + "/contact/sent"}); code != exitNetwork || !strings.Contains(errOut.String(), "publishes no AAL") {
		t.Errorf("a page without AAL: exit %d %q, want 4 and why", code, errOut)
	}
}

// TestCallPlain: in real Chromium, call performs a form affordance of the
// plain site, which receives exactly the filled form, and prints the
// next page's affordances; without the person's yes a destructive delete
// posts nothing (no terminal: exit 3; --unattended: refused, exit 3); a
// required field left empty fails before anything is clicked (exit 1);
// with --approve the note the input picks is deleted. A sign-in through
// the page writes its session cookie back to --cookie-jar, and the next
// call carries it.
func TestCallPlain(t *testing.T) {
	browsertest.Start(t) // fails, not skips, under make check when Chromium is missing
	s, base := startPlain(t)
	callCLI := func(args ...string) (int, string, string) {
		t.Helper()
		e, out, errOut := testEnv(nil)
		code := run(t.Context(), e, append([]string{"call"}, args...))
		return code, out.String(), errOut.String()
	}
	code, out, errOut := callCLI(base+"/notes", "add-note", `{"title":"Tea","body":"Green, at four."}`)
	if code != exitOK {
		t.Fatalf("add-note: exit %d\n%s", code, errOut)
	}
	if got := s.Received(); len(got) != 1 || !reflect.DeepEqual(got[0], plain.Submission{Method: "POST", Path: "/notes", Form: url.Values{"title": {"Tea"}, "body": {"Green, at four."}}}) {
		t.Errorf("the site received %+v", got)
	}
	for _, want := range []string{"ok\n", "did:      fill body, fill title, click add-note", "sent:     POST " + base + "/notes", "status:   200 OK",
		"Now on:\n" + base + "/notes  (AAL only", `{"id":"n-1"}, {"id":"n-2"}, {"id":"n-3"}`, "Tea Green, at four. by anonymous"} {
		if !strings.Contains(out, want) {
			t.Errorf("add-note's output lacks %q:\n%s", want, out)
		}
	}

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"delete, no terminal", []string{base + "/notes", "delete-note", `{"id":"n-1"}`}, exitNotApproved, "delete-note on " + base + "/notes needs a person's approval:\n  action:    delete-note\n  label:     Delete note\n  classes:   destructive"},
		{"delete, unattended", []string{"--unattended", base + "/notes", "delete-note", `{"id":"n-1"}`}, exitNotApproved, "The gate refused delete-note on " + base + "/notes; nothing was clicked."},
		{"a required field left empty", []string{base + "/notes", "add-note", `{"title":"X"}`}, exitFail, `body ("note") is required and left empty; nothing was clicked`},
		{"an input that is no object", []string{base + "/notes", "add-note", `["Tea"]`}, exitUsage, "the input of an AAL affordance is a JSON object"},
		{"no such affordance", []string{base + "/notes", "delete-all"}, exitFail, `has no affordance "delete-all"; its affordances: add-note, delete-note`},
	} {
		code, _, errOut := callCLI(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.inStderr) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, errOut, tc.code, tc.inStderr)
		}
	}
	if n := len(s.Received()); n != 1 || len(s.Notes()) != 3 {
		t.Errorf("after the refusals: %d forms, %d notes; want 1 and 3", n, len(s.Notes()))
	}
	if code, _, errOut := callCLI("--approve", base+"/notes", "delete-note", `{"id":"n-2"}`); code != exitOK {
		t.Errorf("delete-note --approve: exit %d\n%s", code, errOut)
	}
	if got := s.Received(); len(got) != 2 || !reflect.DeepEqual(got[1].Form, url.Values{"id": {"n-2"}}) || len(s.Notes()) != 2 {
		t.Errorf("after the approved delete: %+v", got)
	}

	jar := filepath.Join(t.TempDir(), "jar.txt")
	if code, _, errOut := callCLI("--cookie-jar", jar, base+"/login", "sign-in", `{"email":"`+plain.DemoEmail+`","password":"`+plain.DemoPassword+`"}`); code != exitOK {
		t.Fatalf("sign-in: exit %d\n%s", code, errOut)
	}
	if b, _ := os.ReadFile(jar); !strings.Contains(string(b), "\tsession\t") {
		t.Errorf("the cookie file after the sign-in:\n%s", b)
	}
	code, out, errOut = callCLI("--cookie-jar", jar, "--json", base+"/notes", "add-note", `{"title":"Signed","body":"By Ada."}`)
	if code != exitOK {
		t.Fatalf("add-note signed in: exit %d\n%s", code, errOut)
	}
	if got := s.Received(); len(got) != 4 || got[3].User != plain.DemoEmail {
		t.Errorf("the note from the session: %+v", got[2:])
	}
	var res struct {
		OK   bool
		Did  []string
		Next struct {
			URL      string
			Verdicts map[string]struct{ Decision string }
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.OK || res.Next.URL != base+"/notes" || res.Next.Verdicts["delete-note"].Decision != "ask" {
		t.Errorf("call --json: %v %+v\n%s", err, res, out)
	}
}

// TestIndexPlain: a site that publishes AAL only has no site index; index
// lists its manifest's routes and their affordances instead
// (docs/protocol.md §29 and decision 7).
func TestIndexPlain(t *testing.T) {
	_, base := startPlain(t)
	e, out, errOut := testEnv(nil)
	if code := run(t.Context(), e, []string{"index", base}); code != exitOK {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"Corner Notes: 5 routes, AAL only (manifest /.well-known/agent-affordances.json, no Affordances site index)",
		"/notes  /.well-known/agent-affordances/notes.json\n  add-note     create \"Add note\"\n  delete-note  delete \"Delete note\"\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("index lacks %q:\n%s", want, out)
		}
	}
}

// TestLintPlain: lint checks a site that publishes AAL only as AAL: its
// manifest, each page's fragment (linked, inlined, or named by the
// manifest), and each selector against the page's HTML; that it has no
// site index or graph is a note, not a problem. The plain demo passes
// with 0 problems; a broken one fails on each thing it breaks.
func TestLintPlain(t *testing.T) {
	_, base := startPlain(t)
	e, out, _ := testEnv(nil)
	if code := run(t.Context(), e, []string{"lint", base}); code != exitOK {
		t.Errorf("lint the plain demo: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"note  " + base + "/.well-known/affordances.json (site index): none: the site publishes AAL only",
		"ok    " + base + "/.well-known/agent-affordances.json (manifest)",
		"ok    " + base + "/.well-known/agent-affordances/notes.json (fragment)",
		"ok    " + base + "/contact (inline fragment)",
		"ok    " + base + "/notes (HTML)",
		"12 documents checked, 0 problems",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lint lacks %q:\n%s", want, out)
		}
	}

	mux := http.NewServeMux()
	page := func(head, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(`<!doctype html><html lang="en"><head><title>Broken</title>` + head + `</head><body><main>` + body + `</main></body></html>`))
		}
	}
	file := func(doc string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(doc))
		}
	}
	aff := func(id, label string) string {
		return `{"id":"` + id + `","selector":"[data-aal=\"` + id + `\"]","action":"submit","label":"` + label + `","destructive":false,"reversible":true,"trust":"safe"}`
	}
	mux.HandleFunc("GET /.well-known/agent-affordances.json", file(`{"aal":"0.1","site":{"name":"Broken","origin":"http://x.example"},"routes":[
		{"route":"/","fragment":"/.well-known/agent-affordances/index.json"},
		{"route":"/b","fragment":"/.well-known/agent-affordances/b.json"}]}`))
	mux.HandleFunc("GET /.well-known/agent-affordances/index.json", file(`{"aal":"0.1","page":"/","affordances":[`+aff("go", "Go")+`,`+aff("gone", "Gone")+`]}`))
	mux.HandleFunc("GET /.well-known/agent-affordances/b.json", file(`{"aal":"0.1","page":"/elsewhere","affordances":[`+aff("pick", "Pick")+`]}`))
	mux.HandleFunc("GET /{$}", page(`<link rel="agent-affordances" href="/.well-known/agent-affordances/index.json">`,
		`<button data-aal="go">Go</button><a href="/b">B</a> <a href="/c">C</a>`))
	mux.HandleFunc("GET /b", page("", `<button data-aal="pick">One</button><button data-aal="pick">Two</button>`))
	mux.HandleFunc("GET /c", page(`<script type="application/aal+json">{"aal":"0.1","page":"/c","affordances":[`+aff("hide", "Hi\u200bde")+`]}</script>`, `<button data-aal="hide">Hide</button>`))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	e, out, _ = testEnv(nil)
	if code := run(t.Context(), e, []string{"lint", srv.URL}); code != exitFail {
		t.Errorf("lint a broken AAL site: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		`(fragment) /affordances/1/selector: page ` + srv.URL + `/, affordance "gone", selector [data-aal="gone"]: no element matches`,
		`(fragment) /page: the fragment's page is /elsewhere, and it is the fragment of /b`,
		`(fragment) /affordances/0/selector: page ` + srv.URL + `/b, affordance "pick", selector [data-aal="pick"]: element 1 of 2 lacks data-aal-input`,
		`FAIL  ` + srv.URL + `/c (manifest) "": the manifest has no route for /c, which publishes a fragment (inline)`,
		`FAIL  ` + srv.URL + `/c (inline fragment) /affordances/0/label:`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lint of the broken site lacks %q:\n%s", want, out)
		}
	}
}

// TestConformPlain: conform runs its AAL checks against the plain demo,
// which publishes AAL only, and exits 0; the checks of Affordances v0
// skip, saying that the site has no graph.
func TestConformPlain(t *testing.T) {
	_, base := startPlain(t)
	e, out, errOut := testEnv(nil)
	if code := run(t.Context(), e, []string{"conform", base}); code != exitOK {
		t.Fatalf("conform: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"aal.manifest.valid", "aal.fragment.valid", "aal.fragment.page", "aal.selector.unique"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + ` +must +pass `).MatchString(out.String()) {
			t.Errorf("conform: %s did not pass:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^v0\.discovery\.index +must +skip +AAL only: the site has no Affordances site index or graph`).MatchString(out.String()) ||
		!regexp.MustCompile(`5 pages, \d+ checks: must 5 passed, 0 failed`).MatchString(out.String()) {
		t.Errorf("conform:\n%s", out)
	}
}

// TestREADMEPlain: the README's "Using any AAL site" shows what the
// commands print: its inspect transcript is inspect's output on a fresh
// plain demo, and its lint and conform lines are theirs.
func TestREADMEPlain(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Using any AAL site")
	if !ok {
		t.Fatal("README.md has no section Using any AAL site")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, base := startPlain(t)
	const readmeURL = "http://127.0.0.1:8082"
	output := func(args ...string) string {
		e, out, _ := testEnv(nil)
		run(t.Context(), e, args)
		return strings.ReplaceAll(out.String(), base, readmeURL)
	}
	inspect := "$ affordances inspect " + readmeURL + "/notes\n"
	_, block, ok := strings.Cut(section, inspect)
	block, _, _ = strings.Cut(block, "```")
	if got := output("inspect", base+"/notes"); !ok || got != block {
		t.Errorf("the README's inspect transcript:\n%s\ninspect prints:\n%s", block, got)
	}
	lint, conform := output("lint", base), output("conform", base)
	for _, want := range []string{
		"note  " + readmeURL + "/.well-known/affordances.json (site index): none: the site publishes AAL only, no Affordances site index or graph; it is checked as AAL (manifest, fragments, selectors against the HTML)",
		"12 documents checked, 0 problems",
	} {
		if !strings.Contains(section, want) || !strings.Contains(lint, want) {
			t.Errorf("the README and lint should both say %q; lint says:\n%s", want, lint)
		}
	}
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "aal.") || strings.HasPrefix(line, "5 pages, ") {
			if !strings.Contains(conform, line+"\n") {
				t.Errorf("the README's conform line %q is not in conform's output:\n%s", line, conform)
			}
		}
	}
}
