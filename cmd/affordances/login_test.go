package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/tokens"
	"github.com/affordances/affordances-go/oauth"
)

// oauthShop is a site with its own sign-in (a cookie who=NAME), its own
// OAuth server, and two actions: look (safe) and note (user). seen
// records the Authorization headers another origin, other, received.
type oauthShop struct {
	srv, other *httptest.Server
	notes      atomic.Int32
	mu         sync.Mutex
	seen       []string // Authorization headers other received
}

func newOAuthShop(t *testing.T) *oauthShop {
	t.Helper()
	s := &oauthShop{}
	var h http.Handler
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(s.srv.Close)
	s.other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Header.Get("Authorization"))
		s.mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(s.other.Close)
	app := func(r *http.Request) (affordances.Principal, error) {
		if c, err := r.Cookie("who"); err == nil {
			return affordances.Principal{ID: c.Value}, nil
		}
		return affordances.Principal{}, nil
	}
	as, err := oauth.New(&oauth.Options{Issuer: s.srv.URL, Name: "Test Shop", Authenticate: app, SignIn: "/login",
		Principal: func(_ context.Context, id string) (affordances.Principal, error) {
			return affordances.Principal{ID: id}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	site := affordances.NewSite(&affordances.SiteOptions{Name: "Test Shop", Authenticate: as.Authenticate(app), OAuth: as.ResourceMetadata()})
	rt := site.Route("/", nil)
	affordances.AddAction(rt, &affordances.Action{Name: "look", Description: "Looks.", ReadOnly: true, Expose: affordances.ExposeSession,
		AAL: &aal.Meta{Action: aal.Navigate, Trust: aal.TrustSafe}},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	affordances.AddAction(rt, &affordances.Action{Name: "note", Description: "Notes.", Expose: affordances.ExposeSession,
		AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustUser, Reversible: true}},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			s.notes.Add(1)
			return struct{}{}, nil
		})
	mux := http.NewServeMux()
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.other.URL+"/landing", http.StatusFound)
	})
	mux.Handle("/", site.Handler(http.NotFoundHandler()))
	h = as.Handler(mux)
	return s
}

// otherSaw returns the Authorization headers the other origin received.
func (s *oauthShop) otherSaw() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// consentBrowser is the person's browser: it follows the authorization URL login
// prints, as alice (signed in by her cookie), allows safe and user on the
// consent page, and lets the redirect reach login's loopback listener,
// after tamper has its way with the redirect's query.
type consentBrowser struct {
	t      *testing.T
	tamper func(url.Values)
	once   sync.Once
	buf    syncBuffer
	done   chan struct{}
}

var authURLPattern = regexp.MustCompile(`http://\S+/oauth/authorize\?\S+`)

// Write is login's stderr: the browser starts once the URL is printed.
func (b *consentBrowser) Write(p []byte) (int, error) {
	n, err := b.buf.Write(p)
	if u := authURLPattern.FindString(b.buf.String()); u != "" {
		b.once.Do(func() { go b.visit(u) })
	}
	return n, err
}

func (b *consentBrowser) visit(u string) {
	defer close(b.done)
	form := url.Values{"decision": {"allow"}, "class": {"safe", "user"}}
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "who=alice")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := noFollow.Do(req)
	if err != nil {
		b.t.Error(err)
		return
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || err != nil || !strings.HasPrefix(loc.String(), "http://127.0.0.1:") {
		b.t.Errorf("the consent: got %d to %q, want a redirect to the loopback address", res.StatusCode, res.Header.Get("Location"))
		return
	}
	if b.tamper != nil {
		q := loc.Query()
		b.tamper(q)
		loc.RawQuery = q.Encode()
	}
	res, err = http.Get(loc.String())
	if err != nil {
		b.t.Error(err)
		return
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
}

var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// signIn runs affordances login against origin with the browser, and
// returns its exit code, stdout and stderr.
func signIn(t *testing.T, vars map[string]string, origin string, tamper func(url.Values)) (int, string, string) {
	t.Helper()
	b := &consentBrowser{t: t, tamper: tamper, done: make(chan struct{})}
	var out syncBuffer
	e := &env{stdout: &out, stderr: b, getenv: func(k string) string { return vars[k] }}
	code := run(context.Background(), e, []string{"login", "--no-browser", "--timeout", "20s", origin})
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		t.Error("the browser did not finish")
	}
	return code, out.String(), b.buf.String()
}

// keptFile reads the file of sign-ins.
func keptFile(t *testing.T, path string) map[string]*tokens.SignIn {
	t.Helper()
	var d struct {
		Sites map[string]*tokens.SignIn `json:"sites"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d.Sites
}

// TestLoginCallLogout: login keeps the tokens in a file of mode 0600 in a
// directory 0700 and prints none; call then works without --token; an
// expired access token is refreshed and the rotated refresh token kept;
// no other origin is sent the token; logout revokes the grant (the next
// call with the old token is 401) and forgets the tokens.
func TestLoginCallLogout(t *testing.T) {
	s := newOAuthShop(t)
	dir := filepath.Join(t.TempDir(), "config", "affordances")
	path := filepath.Join(dir, "tokens.json")
	vars := map[string]string{tokens.FileEnv: path}
	var outputs []string

	code, out, errOut := signIn(t, vars, s.srv.URL, nil)
	outputs = append(outputs, out, errOut)
	if code != exitOK {
		t.Fatalf("login: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "Granted: safe user") || !strings.Contains(out, "expires at") {
		t.Errorf("login's output:\n%s\nwant what was granted and when the token expires", out)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file of sign-ins: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("its directory: %v, mode %v; want 0700", err, fi.Mode().Perm())
	}
	kept := keptFile(t, path)[s.srv.URL]
	if kept == nil || kept.AccessToken == "" || kept.RefreshToken == "" || kept.Scope != "safe user" || kept.Resource != s.srv.URL {
		t.Fatalf("kept for %s: %+v, want both tokens, the scope and the resource", s.srv.URL, kept)
	}
	first := *kept

	code, out, errOut = cli(t, vars, "call", s.srv.URL+"/", "note")
	outputs = append(outputs, out, errOut)
	if code != exitOK || s.notes.Load() != 1 {
		t.Fatalf("call note with no --token: exit %d, %d notes\n%s%s", code, s.notes.Load(), out, errOut)
	}

	// The access token expired: the next call refreshes it, and the
	// rotated refresh token is kept.
	f := &tokens.File{Path: path}
	expired := first
	expired.Expiry = time.Now().Add(-time.Minute)
	if err := f.Put(s.srv.URL, &expired); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cli(t, vars, "call", s.srv.URL+"/", "note")
	outputs = append(outputs, out, errOut)
	if code != exitOK || s.notes.Load() != 2 {
		t.Fatalf("call note with an expired token: exit %d\n%s%s", code, out, errOut)
	}
	refreshed := keptFile(t, path)[s.srv.URL]
	if refreshed.AccessToken == first.AccessToken || refreshed.RefreshToken == first.RefreshToken || !refreshed.Expiry.After(time.Now()) {
		t.Errorf("after refreshing: got the same tokens or an expired one (expiry %v), want a new pair kept", refreshed.Expiry)
	}

	// An access token the site no longer takes (the one the refresh
	// replaced) is answered 401: the command refreshes once and goes on.
	stale := *refreshed
	stale.AccessToken = first.AccessToken
	if err := f.Put(s.srv.URL, &stale); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cli(t, vars, "inspect", s.srv.URL+"/")
	outputs = append(outputs, out, errOut)
	if code != exitOK || keptFile(t, path)[s.srv.URL].RefreshToken == refreshed.RefreshToken {
		t.Errorf("inspect with a token the site refuses: exit %d, want 0 and the refresh token rotated again\n%s", code, errOut)
	}
	current := keptFile(t, path)[s.srv.URL]

	// Another origin, named directly or reached by a redirect, gets no token.
	cli(t, vars, "inspect", s.other.URL+"/")
	cli(t, vars, "inspect", s.srv.URL+"/away")
	if len(s.otherSaw()) < 2 {
		t.Errorf("the other origin received %d requests, want the inspect's and the redirect's", len(s.otherSaw()))
	}
	for _, h := range s.otherSaw() {
		if h != "" {
			t.Errorf("another origin received Authorization %q", h)
		}
	}

	code, out, errOut = cli(t, vars, "logout", s.srv.URL)
	outputs = append(outputs, out, errOut)
	if code != exitOK || !strings.Contains(out, "revoked") {
		t.Errorf("logout: exit %d\n%s%s", code, out, errOut)
	}
	if _, ok := keptFile(t, path)[s.srv.URL]; ok {
		t.Error("after logout the site's entry is still kept")
	}
	if code, _, _ := cli(t, nil, "call", "--token", current.AccessToken, s.srv.URL+"/", "note"); code == exitOK {
		t.Error("the access token after logout: the call ran, want 401")
	}
	if code, _, errOut := cli(t, vars, "call", s.srv.URL+"/", "note"); code == exitOK || s.notes.Load() != 2 {
		t.Errorf("call after logout: exit %d, %d notes\n%s", code, s.notes.Load(), errOut)
	}

	// A sign-in whose grant ended (logout revoked it) cannot be
	// refreshed: the command says to sign in again.
	ended := *current
	ended.Expiry = time.Now().Add(-time.Minute)
	if err := f.Put(s.srv.URL, &ended); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cli(t, vars, "call", s.srv.URL+"/", "note")
	outputs = append(outputs, out, errOut)
	if code == exitOK || !strings.Contains(errOut, "run affordances login "+s.srv.URL+" again") {
		t.Errorf("call with a sign-in that ended: exit %d\n%s\nwant it to say to run login again", code, errOut)
	}

	for _, text := range outputs {
		for _, tok := range []string{first.AccessToken, first.RefreshToken, refreshed.AccessToken, refreshed.RefreshToken, current.AccessToken, current.RefreshToken} {
			if strings.Contains(text, tok) {
				t.Errorf("a token is in the output:\n%s", text)
			}
		}
	}
}

// TestLoginRefusesAForgedAnswer: an answer on the loopback address whose
// state is not this sign-in's, or whose iss names another server
// (RFC 9207), is refused and nothing is kept.
func TestLoginRefusesAForgedAnswer(t *testing.T) {
	s := newOAuthShop(t)
	for _, c := range []struct {
		name   string
		tamper func(url.Values)
	}{
		{"another state", func(q url.Values) { q.Set("state", "forged") }},
		{"another issuer", func(q url.Values) { q.Set("iss", "https://evil.example") }},
		{"no issuer", func(q url.Values) { q.Del("iss") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tokens.json")
			code, out, errOut := signIn(t, map[string]string{tokens.FileEnv: path}, s.srv.URL, c.tamper)
			if code != exitNetwork || !strings.Contains(errOut, "nothing was kept") {
				t.Errorf("got exit %d\n%s%s\nwant %d, refused", code, out, errOut, exitNetwork)
			}
			if _, err := os.Stat(path); err == nil && len(keptFile(t, path)) > 0 {
				t.Error("a sign-in was kept")
			}
		})
	}
}

// TestLogoutOfASiteThatIsGone: the entry is removed, with a warning that
// the grant may still be live and where to disconnect it; exit 4.
func TestLogoutOfASiteThatIsGone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	f := &tokens.File{Path: path}
	gone := "http://127.0.0.1:9"
	if err := f.Put(gone, &tokens.SignIn{ClientID: "c", RevocationEndpoint: gone + "/oauth/revoke", AccessToken: "at", RefreshToken: "rt"}); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli(t, map[string]string{tokens.FileEnv: path}, "logout", gone+"/")
	if code != exitNetwork || !strings.Contains(errOut, "may still be live") || !strings.Contains(errOut, gone+"/oauth/assistants") {
		t.Errorf("got exit %d\n%s\nwant %d and a warning naming %s/oauth/assistants", code, errOut, exitNetwork, gone)
	}
	if len(keptFile(t, path)) != 0 {
		t.Error("the entry is still kept")
	}
}
