package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/browsertest"
	"golang.org/x/crypto/bcrypt"
)

// TestMain makes the seed users' password hashes cheap: every test seeds
// a database of its own.
func TestMain(m *testing.M) {
	passwordCost = bcrypt.MinCost
	os.Exit(browsertest.CloseShared(m.Run()))
}

// testToken is ada's bearer token in the tests.
const testToken = "links-test-token"

// serve serves a fresh, seeded app until the test ends.
func serve(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(testApp(t).Handler())
	t.Cleanup(srv.Close)
	return srv
}

// testApp returns a fresh, seeded app, its database closed when the test
// ends.
func testApp(t *testing.T) *App {
	t.Helper()
	db, err := openDB(t.Context(), filepath.Join(t.TempDir(), "links.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	app, err := newApp(t.Context(), db, testToken)
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// A browser keeps cookies, follows no redirect, and remembers the CSRF
// token of the last page it got.
type browser struct {
	t    *testing.T
	base string
	hc   *http.Client
	csrf string
}

func newBrowser(t *testing.T, srv *httptest.Server) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: srv.URL, hc: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// A reply is a response with its body read.
type reply struct {
	*http.Response
	body string
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) do(req *http.Request) reply {
	b.t.Helper()
	res, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if m := csrfField.FindSubmatch(body); m != nil {
		b.csrf = string(m[1])
	}
	return reply{res, string(body)}
}

func (b *browser) get(path string) reply {
	req, _ := http.NewRequest("GET", b.base+path, nil)
	return b.do(req)
}

// post posts a form with the browser's CSRF token, unless form has one.
func (b *browser) post(path string, form url.Values) reply {
	if !form.Has("csrf") {
		form.Set("csrf", b.csrf)
	}
	req, _ := http.NewRequest("POST", b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// postJSON posts body as the links page's script does, with token in the
// X-CSRF-Token header.
func (b *browser) postJSON(path, token, body string) reply {
	req, _ := http.NewRequest("POST", b.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", token)
	return b.do(req)
}

// signIn returns a browser signed in as the seed user with email.
func signIn(t *testing.T, srv *httptest.Server, email, password string) *browser {
	t.Helper()
	b := newBrowser(t, srv)
	b.get("/app/login")
	if r := b.post("/app/login", url.Values{"email": {email}, "password": {password}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("signing in as %s: got %d, want 303\n%s", email, r.StatusCode, r.body)
	}
	b.get("/app/links/")
	return b
}

func wantStatus(t *testing.T, r reply, want int) {
	t.Helper()
	if r.StatusCode != want {
		t.Fatalf("%s %s: got %d, want %d\n%s", r.Request.Method, r.Request.URL.Path, r.StatusCode, want, r.body)
	}
}

func TestSignInAndOut(t *testing.T) {
	srv := serve(t)
	b := newBrowser(t, srv)
	wantStatus(t, b.get("/app/links/"), http.StatusSeeOther) // to the sign-in page
	b.get("/app/login")
	before := b.cookie()

	r := b.post("/app/login", url.Values{"email": {demoEmail}, "password": {"wrong"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if !strings.Contains(r.body, "Wrong email or password.") || !strings.Contains(r.body, `value="`+demoEmail+`"`) {
		t.Errorf("a wrong password's page lacks the message or the email typed:\n%s", r.body)
	}

	wantStatus(t, b.post("/app/login", url.Values{"email": {demoEmail}, "password": {demoPassword}}), http.StatusSeeOther)
	if after := b.cookie(); after == "" || after == before {
		t.Errorf("signing in kept the session id %q: got %q, want a new one", before, after)
	}
	r = b.get("/app/links/")
	wantStatus(t, r, http.StatusOK)
	for _, want := range []string{"Welcome back, Ada Lovelace.", "Effective Go", "Birthday ideas for Grace"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("ada's links lack %q", want)
		}
	}

	wantStatus(t, b.post("/app/logout", url.Values{}), http.StatusSeeOther)
	wantStatus(t, b.get("/app/links/"), http.StatusSeeOther)
}

// cookie returns the value of the session cookie the browser holds.
func (b *browser) cookie() string {
	u, _ := url.Parse(b.base + "/app/")
	for _, c := range b.hc.Jar.Cookies(u) {
		if c.Name == sessionCookie {
			return c.Value
		}
	}
	return ""
}

func TestCSRFRefused(t *testing.T) {
	srv := serve(t)
	ada := signIn(t, srv, demoEmail, demoPassword)
	token := ada.csrf
	grace := signIn(t, srv, "grace@example.com", "grace")

	for _, tc := range []struct {
		name string
		send func() reply
	}{
		{"form without token", func() reply { return ada.post("/app/links/", url.Values{"csrf": {""}, "url": {"https://a.example/"}}) }},
		{"form with another's token", func() reply {
			return ada.post("/app/links/", url.Values{"csrf": {grace.csrf}, "url": {"https://a.example/"}})
		}},
		{"delete without token", func() reply { return ada.post("/app/links/1/delete", url.Values{"csrf": {""}}) }},
		{"sign out without token", func() reply { return ada.post("/app/logout", url.Values{"csrf": {""}}) }},
		{"JSON without header", func() reply { return ada.postJSON("/app/api/links/1/read", "", `{"read": true}`) }},
		{"JSON with another's token", func() reply { return ada.postJSON("/app/api/links/1/read", grace.csrf, `{"read": true}`) }},
		{"sign-in without token", func() reply {
			return newBrowser(t, srv).post("/app/login", url.Values{"csrf": {""}, "email": {demoEmail}, "password": {demoPassword}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := tc.send(); r.StatusCode != http.StatusForbidden {
				t.Errorf("got %d, want 403", r.StatusCode)
			}
		})
	}
	// Nothing changed: ada is still signed in, her four unread links unread.
	r := ada.get("/app/links/?show=unread")
	wantStatus(t, r, http.StatusOK)
	if n := strings.Count(r.body, `<li class="link`); n != 4 {
		t.Errorf("ada has %d unread links after refused posts, want 4", n)
	}
	if ada.csrf != token {
		t.Errorf("the CSRF token changed without a sign-in")
	}
}

func TestAddMarkDelete(t *testing.T) {
	srv := serve(t)
	b := signIn(t, srv, demoEmail, demoPassword)

	r := b.post("/app/links/", url.Values{"url": {"ftp://nope"}, "title": {"Kept"}, "tags": {"fine Bad_Tag"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	for _, want := range []string{"starts with http:// or https://", "“bad_tag” is not a tag", `value="Kept"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the refused form lacks %q", want)
		}
	}

	wantStatus(t, b.post("/app/links/", url.Values{"url": {"https://go.dev/ref/spec"}, "title": {"The Go spec"}, "tags": {"Go, reference"}}), http.StatusSeeOther)
	links := b.links()
	if len(links) != 7 || links[0].Title != "The Go spec" || strings.Join(links[0].Tags, " ") != "go reference" || links[0].Read {
		t.Fatalf("after adding, the newest link is %+v of %d, want The Go spec, tags go reference, unread", links[0], len(links))
	}
	id := links[0].ID
	path := "/app/links/" + strconv.FormatInt(id, 10)
	if r := b.get("/app/tags/reference/"); !strings.Contains(r.body, "The Go spec") || strings.Contains(r.body, "Effective Go") {
		t.Errorf("/app/tags/reference/ does not show exactly the new link:\n%s", r.body)
	}

	wantStatus(t, b.post(path+"/read", url.Values{"read": {"1"}, "back": {"/app/tags/reference/"}}), http.StatusSeeOther)
	if !b.links()[0].Read {
		t.Errorf("the form did not mark the link read")
	}
	r = b.postJSON("/app/api/links/"+strconv.FormatInt(id, 10)+"/read", b.csrf, `{"read": false}`)
	wantStatus(t, r, http.StatusOK)
	if r.body != `{"id":`+strconv.FormatInt(id, 10)+`,"read":false,"unread":5}`+"\n" {
		t.Errorf("the JSON answer: got %s", r.body)
	}

	r = b.get(path + "/delete")
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.body, "Delete this link?") || len(b.links()) != 7 {
		t.Errorf("asking whether to delete deleted, or did not ask")
	}
	grace := signIn(t, srv, "grace@example.com", "grace")
	wantStatus(t, grace.post(path+"/delete", url.Values{}), http.StatusNotFound) // not hers
	wantStatus(t, b.post(path+"/delete", url.Values{}), http.StatusSeeOther)
	if r := b.get("/app/links/"); !strings.Contains(r.body, "Deleted “The Go spec”.") || len(b.links()) != 6 {
		t.Errorf("the link is not deleted, or the page does not say so")
	}
}

// links returns the browser's user's links, newest first, from the API.
func (b *browser) links() []Link {
	b.t.Helper()
	r := b.get("/app/api/links")
	wantStatus(b.t, r, http.StatusOK)
	var links []Link
	if err := json.Unmarshal([]byte(r.body), &links); err != nil {
		b.t.Fatal(err)
	}
	return links
}

var (
	cspNonce    = regexp.MustCompile(`script-src 'nonce-([^']+)'`)
	scriptNonce = regexp.MustCompile(`<script nonce="([^"]+)">`)
)

// TestSecurityHeaders: every page says no-referrer, Vary: Cookie, and a
// CSP whose nonce, new to each response, is the one its script carries.
func TestSecurityHeaders(t *testing.T) {
	srv := serve(t)
	b := signIn(t, srv, demoEmail, demoPassword)
	seen := map[string]bool{}
	for _, path := range []string{"/app/links/", "/app/links/", "/app/tags/go/", "/app/ada", "/app/about", "/app/nobody"} {
		r := b.get(path)
		h := r.Header
		if got := h.Get("Referrer-Policy"); got != "no-referrer" {
			t.Errorf("%s: Referrer-Policy: got %q, want no-referrer", path, got)
		}
		if got := h.Get("Vary"); got != "Cookie" {
			t.Errorf("%s: Vary: got %q, want Cookie", path, got)
		}
		csp := h.Get("Content-Security-Policy")
		m := cspNonce.FindStringSubmatch(csp)
		if m == nil || !strings.Contains(csp, "default-src 'none'") {
			t.Fatalf("%s: CSP %q lacks default-src 'none' or a script nonce", path, csp)
		}
		if seen[m[1]] {
			t.Errorf("%s: the nonce %s was used before", path, m[1])
		}
		seen[m[1]] = true
		if s := scriptNonce.FindStringSubmatch(r.body); s != nil && s[1] != m[1] {
			t.Errorf("%s: the script's nonce is %s, the CSP's %s", path, s[1], m[1])
		}
		if strings.HasPrefix(path, "/app/links/") && !scriptNonce.MatchString(r.body) {
			t.Errorf("%s: no script with a nonce", path)
		}
	}
}

// TestRoutes: trailing-slash lists beside the one-segment public pages,
// whose pattern catches none of the app's own pages.
func TestRoutes(t *testing.T) {
	srv := serve(t)
	signedIn := signIn(t, srv, demoEmail, demoPassword)
	anon := newBrowser(t, srv)
	for _, tc := range []struct {
		name    string
		who     *browser
		path    string
		status  int
		want    string // in the body, or in the Location of a redirect
		notWant string
	}{
		{"root", anon, "/", http.StatusFound, "/app/", ""},
		{"login is no user", anon, "/app/login", http.StatusOK, "<h1>Sign in</h1>", ""},
		{"about is no user", anon, "/app/about", http.StatusOK, "About Links", ""},
		{"a public page hides private links", anon, "/app/ada", http.StatusOK, "Ada Lovelace", "Birthday ideas"},
		{"even from its owner", signedIn, "/app/ada", http.StatusOK, "This is your public page", "Birthday ideas"},
		{"no such user", anon, "/app/nobody", http.StatusNotFound, "There is no page here.", ""},
		{"links need a sign-in", anon, "/app/links/", http.StatusSeeOther, "/app/login", ""},
		{"home", signedIn, "/app/", http.StatusSeeOther, "/app/links/", ""},
		{"links without slash", signedIn, "/app/links", http.StatusMovedPermanently, "/app/links/", ""},
		{"tag without slash", signedIn, "/app/tags/go", http.StatusMovedPermanently, "/app/tags/go/", ""},
		{"a tag", signedIn, "/app/tags/go/", http.StatusOK, "Routing Enhancements", "Write-Ahead Logging"},
		{"below a tag", signedIn, "/app/tags/go/extra", http.StatusNotFound, "", ""},
		{"login when signed in", signedIn, "/app/login", http.StatusSeeOther, "/app/links/", ""},
		{"a public page with a slash", anon, "/app/ada/", http.StatusNotFound, "", ""},
		{"stylesheet", anon, "/app/static/app.css", http.StatusOK, "font-family", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.who.get(tc.path)
			if r.StatusCode != tc.status {
				t.Fatalf("GET %s: got %d, want %d", tc.path, r.StatusCode, tc.status)
			}
			got := r.body
			if r.StatusCode/100 == 3 {
				got = r.Header.Get("Location")
			}
			if !strings.Contains(got, tc.want) || (tc.notWant != "" && strings.Contains(got, tc.notWant)) {
				t.Errorf("GET %s: got %q, want %q and not %q", tc.path, got, tc.want, tc.notWant)
			}
		})
	}
}
