package main

// Tests in real Chromium: a person's afternoon on the board, a forged form
// from another site, and the README's screenshots. Without Chromium they
// skip; under make check (AFFORDANCES_CHECK) they fail instead.

import (
	"bytes"
	"flag"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/demotest"
)

var screenshotsDir = flag.String("screenshots", "", "TestScreenshots writes its PNGs to this `directory` (make screenshots: docs/screenshots)")

// A person uses the board in a browser tab of their own; each method does
// what they would do, and fails the test when they cannot.
type person struct {
	t    *testing.T
	p    *browser.Page
	base string
}

func newPerson(t *testing.T, b *browser.Browser, srv *httptest.Server) *person {
	t.Helper()
	p, err := b.NewPage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return &person{t: t, p: p, base: srv.URL}
}

// visit loads a page of the board, which must answer 200 and read well to
// a screen reader.
func (x *person) visit(path string) {
	x.t.Helper()
	resp, err := x.p.Navigate(x.t.Context(), x.base+path)
	if err != nil || resp.Status != http.StatusOK {
		x.t.Fatalf("visit %s: got %+v, %v, want 200", path, resp, err)
	}
	x.accessible()
}

// perform uses the element of the affordance id of the page's AAL
// fragment, the one input picks among several (a card's button,
// docs/protocol.md decision 11), and returns the affordance.
func (x *person) perform(id string, input map[string]any) aal.Affordance {
	x.t.Helper()
	f, err := x.p.Fragment(x.t.Context())
	if err != nil {
		x.t.Fatalf("on %s: %v", x.path(), err)
	}
	i := slices.IndexFunc(f.Affordances, func(a aal.Affordance) bool { return a.ID == id })
	if i < 0 {
		x.t.Fatalf("on %s: the AAL fragment has no %q", x.path(), id)
	}
	x.performAgain(f.Affordances[i], input)
	return f.Affordances[i]
}

// performAgain uses a of an earlier page: a confirmation page answers a
// form post and inlines no fragment of its own.
func (x *person) performAgain(a aal.Affordance, input map[string]any) {
	x.t.Helper()
	resp, err := x.p.PerformInput(x.t.Context(), a, input)
	if err != nil || resp == nil || resp.Status != http.StatusOK {
		x.t.Fatalf("perform %s %v on %s: got %+v, %v, want a page that answers 200", a.ID, input, x.path(), resp, err)
	}
	x.accessible()
}

// click clicks the one element selector finds, and the page it loads must
// answer 200.
func (x *person) click(selector string) {
	x.t.Helper()
	resp, err := x.p.Click(x.t.Context(), selector)
	if err != nil || resp == nil || resp.Status != http.StatusOK {
		x.t.Fatalf("click %s on %s: got %+v, %v, want a page that answers 200", selector, x.path(), resp, err)
	}
	x.accessible()
}

func (x *person) fill(label, value string) {
	x.t.Helper()
	if err := x.p.FillLabel(x.t.Context(), label, value); err != nil {
		x.t.Fatalf("on %s: %v", x.path(), err)
	}
}

// see checks that what the person reads in the one element selector finds
// says each of want (or, with a leading "!", does not).
func (x *person) see(selector string, want ...string) {
	x.t.Helper()
	s, err := x.p.Text(x.t.Context(), selector)
	if err != nil {
		x.t.Fatalf("on %s: %v", x.path(), err)
	}
	got := strings.Join(strings.Fields(s), " ")
	for _, w := range want {
		if not, ok := strings.CutPrefix(w, "!"); ok && strings.Contains(got, not) {
			x.t.Errorf("on %s: %s reads %q, want no %q", x.path(), selector, got, not)
		} else if !ok && !strings.Contains(got, w) {
			x.t.Errorf("on %s: %s reads %q, want %q", x.path(), selector, got, w)
		}
	}
}

func (x *person) path() string {
	u, _ := x.p.URL(x.t.Context())
	return strings.TrimPrefix(u, x.base)
}

// at checks the person is on the path pattern (a regexp).
func (x *person) at(pattern string) {
	x.t.Helper()
	if p := x.path(); !regexp.MustCompile(`^` + pattern + `$`).MatchString(p) {
		x.t.Fatalf("on %s, want %s", p, pattern)
	}
}

// accessible checks the page as assistive technology reads it: one main
// landmark, headings from h1 down without skipping a level, and a name on
// every control and link.
func (x *person) accessible() {
	x.t.Helper()
	nodes, err := x.p.Accessibility(x.t.Context())
	if err != nil {
		x.t.Fatal(err)
	}
	mains, last := 0, 0
	for _, n := range nodes {
		switch n.Role {
		case "main":
			mains++
		case "heading":
			if (last == 0 && n.Level != 1) || n.Level > last+1 {
				x.t.Errorf("%s: heading %q is h%d after an h%d", x.path(), n.Name, n.Level, last)
			}
			last = n.Level
		case "button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio", "spinbutton", "listbox":
			if strings.TrimSpace(n.Name) == "" {
				x.t.Errorf("%s: a %s has no accessible name", x.path(), n.Role)
			}
		}
	}
	if mains != 1 {
		x.t.Errorf("%s: %d main landmarks, want 1", x.path(), mains)
	}
}

// signIn signs the person in through the form.
func (x *person) signIn(email, password string) {
	x.t.Helper()
	x.visit("/login")
	x.fill("Email", email)
	x.fill("Password", password)
	x.perform("sign-in", nil)
	x.at("/boards")
}

// TestBrowserJourney: alice reads a public board before she signs in
// through the form; then she adds a task, moves
// it to Done, deletes another, and deletes a board through its
// confirmation page; every page she sees reads well to a screen reader.
func TestBrowserJourney(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	_, srv := testBoard(t)
	agent := newClient(t, srv, demoToken)
	const page = "/boards/website-relaunch"
	alice := newPerson(t, b, srv)
	alice.visit(page)
	alice.see("main", "Redirect the old blog URLs", "Sign in to change this board.", "!Delete")
	alice.signIn(demoEmail, demoPassword)
	alice.see("main", "Signed in as alice@example.com.", "Your boards", "Website relaunch", "Team offsite")

	alice.click(`a[href="` + page + `"]`)
	alice.fill("Title", "Order the banners")
	alice.fill("Assignee", "bob@example.com")
	alice.fill("Due date", "2026-05-04")
	alice.perform("create-task", nil)
	alice.at(page)
	alice.see("main", `Added "Order the banners" to To do.`)
	alice.see("#col-todo + .cards", "Order the banners", "Bob", "Due 4 May")

	_, g := agent.graph(page)
	id := taskID(t, g, "Order the banners")
	alice.perform("move-task", map[string]any{"task": id, "status": "done"})
	alice.see("main", `Moved "Order the banners" to Done.`)
	alice.see("#col-done + .cards", "Order the banners")
	alice.see("#col-todo + .cards", "!Order the banners")

	old := taskID(t, g, "Redirect the old blog URLs")
	alice.perform("delete-task", map[string]any{"task": old})
	alice.see("main", `Deleted "Redirect the old blog URLs".`)
	alice.see(".columns", "!Redirect the old blog URLs")

	alice.visit("/boards/team-offsite")
	del := alice.perform("delete-board", nil)
	alice.see("h1", "Are you sure?")
	alice.see("main", `Delete the board "Team offsite" and its 5 tasks.`)
	if status, _ := agent.graph("/boards/team-offsite"); status != http.StatusOK {
		t.Fatalf("before alice confirms, the board answers %d, want 200", status)
	}
	if n, err := alice.p.Count(t.Context(), `[data-aal="`+del.ID+`"]`); err != nil || n != 0 {
		t.Errorf("the confirmation page carries %d elements of %s (%v): an agent running it again would confirm", n, del.ID, err)
	}
	alice.click("form:has(input[name=_confirm]) button") // the person confirms
	alice.at("/boards")
	alice.see("main", `Deleted the board "Team offsite".`)
	alice.see("section[aria-labelledby=yours]", "Website relaunch", "!Team offsite")
	if status, _ := agent.graph("/boards/team-offsite"); status != http.StatusNotFound {
		t.Errorf("after alice confirmed, the board answers %d, want 404", status)
	}
}

// TestBrowserForgery: a page on another loopback port posts forms to the
// board from alice's browser, where she is signed in (her cookie goes with
// them: the port is another origin of the same site); the board refuses
// each with 403 and nothing changes.
func TestBrowserForgery(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	_, srv := testBoard(t)
	target := srv.URL + "/boards/team-offsite"
	evil := http.NewServeMux()
	form := func(fields string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html lang=en><title>Win a prize</title><form method="post" action="%s">%s</form>
<script>document.forms[0].submit()</script>`, target, fields)
		}
	}
	evil.HandleFunc("GET /create", form(`<input type="hidden" name="_action" value="createTask"><input type="hidden" name="title" value="Forged">`))
	evil.HandleFunc("GET /delete", form(`<input type="hidden" name="_action" value="deleteBoard"><input type="hidden" name="_confirm" value="yes">`))
	attacker := httptest.NewServer(evil)
	t.Cleanup(attacker.Close)

	alice := newPerson(t, b, srv)
	alice.signIn(demoEmail, demoPassword)
	for _, path := range []string{"/create", "/delete"} {
		if _, err := alice.p.Navigate(t.Context(), attacker.URL+path); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !strings.HasPrefix(alice.path(), "/boards/team-offsite") {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the forged form did not reach the board; alice is on %s", path, alice.path())
			}
			time.Sleep(50 * time.Millisecond)
		}
		i := slices.IndexFunc(alice.p.Responses(), func(r browser.Response) bool { return r.URL == target && r.Type == "Document" })
		if i < 0 || alice.p.Responses()[i].Status != http.StatusForbidden {
			t.Errorf("%s: the forged post: got %+v, want 403", path, alice.p.Responses())
		}
		alice.see("main", "posted from another site", "Nothing changed")
	}
	status, g := newClient(t, srv, demoToken).graph("/boards/team-offsite")
	if status != http.StatusOK || slices.Contains(tasks(g)["todo"], "Forged") {
		t.Errorf("after the forgeries the board answers %d with %v, want it there without a forged task", status, tasks(g))
	}
}

// TestScreenshots takes the README's screenshots of a fresh board as alice
// sees it, at a desktop and a phone width: `make screenshots` writes them
// to docs/screenshots (the -screenshots flag). Without the flag it writes
// nothing. Either way no page is wider than the phone.
func TestScreenshots(t *testing.T) {
	demotest.Parallel(t)
	b := browsertest.Shared(t)
	_, srv := testBoard(t)
	alice := newPerson(t, b, srv)
	alice.signIn(demoEmail, demoPassword)
	ctx := t.Context()
	for _, size := range []struct {
		name          string
		width, height int
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		if err := alice.p.SetViewport(ctx, size.width, size.height); err != nil {
			t.Fatal(err)
		}
		for _, shot := range []struct{ name, path, perform string }{
			{"boards", "/boards", ""},
			{"board", "/boards/website-relaunch", ""},
			{"confirm", "/boards/team-offsite", "delete-board"},
		} {
			alice.visit(shot.path)
			if shot.perform != "" {
				alice.perform(shot.perform, nil)
			}
			if w, _, err := alice.p.ContentSize(ctx); err != nil {
				t.Fatal(err)
			} else if w > size.width {
				t.Errorf("%s at %dpx: the page is %dpx wide, a person must scroll sideways", shot.path, size.width, w)
			}
			img, err := alice.p.Screenshot(ctx, size.width, size.height)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(bytes.NewReader(img)); err != nil {
				t.Fatalf("%s: not a PNG: %v", shot.path, err)
			}
			if *screenshotsDir != "" {
				file := filepath.Join(*screenshotsDir, "board-"+shot.name+"-"+size.name+".png")
				if err := os.WriteFile(file, img, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d KB)", file, len(img)/1024)
			}
		}
	}
}
