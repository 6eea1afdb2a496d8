package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
)

// The blog's credentials: the person's session cookie and the agent's
// bearer token, of one account.
const (
	blogSession = "session=s1"
	blogToken   = "agent-token"
)

// A blog is a site written as cookie-session apps are (gorilla/mux and
// sessions, miniflux): its HTML pages need the session cookie and send a
// person without one to /login with a 303; its graphs and calls take the
// session or an agent's bearer token. /drafts is for a signed-in person
// only: its graph answers an anonymous request unauthorized (401), and its
// one action, publishDraft, is a session action whose guard is false.
// Every request it gets is recorded.
type blog struct {
	URL string
	mu  sync.Mutex
	got []sent
}

// sent is what one request to the blog carried.
type sent struct {
	Method, Path, Accept, Authorization, Cookie, Origin, UserAgent string
}

// browser reports whether the request asked for a page's HTML, as a
// browser does.
func (r sent) browser() bool {
	return strings.HasPrefix(r.Accept, "text/html") && !strings.HasPrefix(r.Path, "/.well-known/") && !strings.Contains(r.Path, "affordances=1")
}

// agent reports whether the request asked for a document for agents: a
// graph, the site index, the AAL manifest or a fragment.
func (r sent) agent() bool {
	return r.Accept == affordances.MediaType || strings.HasPrefix(r.Path, "/.well-known/") || strings.Contains(r.Path, "affordances=1")
}

func (r sent) String() string {
	return fmt.Sprintf("%s %s (Accept %q, Authorization %q, Cookie %q, Origin %q)", r.Method, r.Path, r.Accept, r.Authorization, r.Cookie, r.Origin)
}

func startBlog(t *testing.T) *blog {
	t.Helper()
	b := &blog{}
	site := affordances.NewSite(&affordances.SiteOptions{
		Name: "Blog",
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			if a := r.Header.Get("Authorization"); a != "" {
				if a == "Bearer "+blogToken {
					return affordances.Principal{ID: "ann"}, nil
				}
				return affordances.Principal{}, affordances.ErrInvalidToken
			}
			if c, err := r.Cookie("session"); err == nil && "session="+c.Value == blogSession {
				return affordances.Principal{ID: "ann"}, nil
			}
			return affordances.Principal{}, nil
		},
	})
	site.Route("/", &affordances.RouteOptions{
		Description: "The posts",
		State: func(context.Context, *affordances.Request) (*affordances.State, error) {
			return &affordances.State{
				Entities: map[string]any{"posts": []any{map[string]any{"slug": "hello", "title": "Hello"}}},
				Nav:      []affordances.NavLink{{To: "/drafts", Label: "Your drafts"}},
			}, nil
		},
	})
	drafts := site.Route("/drafts", &affordances.RouteOptions{
		Description: "Your drafts",
		State: func(_ context.Context, r *affordances.Request) (*affordances.State, error) {
			if r.Principal.Anonymous() {
				return nil, affordances.NewError(affordances.Unauthorized, "Sign in to see your drafts.")
			}
			return &affordances.State{Entities: map[string]any{"drafts": []any{map[string]any{"id": "d-1", "title": "Spring"}}}}, nil
		},
	})
	type draftInput struct {
		Draft string `json:"draft"`
	}
	affordances.AddAction(drafts, &affordances.Action{
		Name: "publishDraft", Description: "Publish a draft", Expose: affordances.ExposeSession,
		Guard: func(context.Context, *affordances.Request) (bool, string) {
			return false, "Publishing is closed today."
		},
	}, func(context.Context, *affordances.Request, draftInput) (struct{}, error) { return struct{}{}, nil })

	pages := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page := func(body string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<!doctype html><html lang="en"><head><title>Blog</title></head><body>`+body+`</body></html>`)
		}
		if r.URL.Path == "/login" {
			page(`<form method="post"><input name="email"><button>Sign in</button></form>`)
			return
		}
		if c, err := r.Cookie("session"); err != nil || "session="+c.Value != blogSession {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		switch r.URL.Path {
		case "/":
			page(`<h1>Posts</h1><p><a href="/posts/hello">Hello</a></p><p><a href="/drafts">Your drafts</a></p>`)
		case "/drafts":
			page(`<h1>Drafts</h1><p>Spring <button data-aal="publish-draft" disabled>Publish</button></p>`)
		default:
			http.NotFound(w, r)
		}
	})
	h := site.Handler(pages)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.got = append(b.got, sent{r.Method, r.URL.RequestURI(), r.Header.Get("Accept"), r.Header.Get("Authorization"),
			r.Header.Get("Cookie"), r.Header.Get("Origin"), r.Header.Get("User-Agent")})
		b.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	b.URL = srv.URL
	return b
}

// requests returns the requests the blog got, and forgets them.
func (b *blog) requests() []sent {
	b.mu.Lock()
	defer b.mu.Unlock()
	got := b.got
	b.got = nil
	return got
}

// jar writes a cookie file, as curl -c writes it, holding the blog's
// session.
func (b *blog) jar(t *testing.T) string {
	t.Helper()
	host := strings.TrimPrefix(b.URL, "http://")
	host, _, _ = strings.Cut(host, ":")
	name, value, _ := strings.Cut(blogSession, "=")
	path := filepath.Join(t.TempDir(), "jar.txt")
	line := strings.Join([]string{"#HttpOnly_" + host, "FALSE", "/", "FALSE", "0", name, value}, "\t")
	if err := os.WriteFile(path, []byte("# Netscape HTTP Cookie File\n\n"+line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// conformJSON runs conform with args against the blog, --json, and returns
// its checks by id.
func conformJSON(t *testing.T, b *blog, args ...string) map[string]conformResult {
	t.Helper()
	code, out, errOut := cli(t, nil, append([]string{"conform", "--json", b.URL}, args...)...)
	if code != exitOK && code != exitFail {
		t.Fatalf("conform %v: exit %d\n%s", args, code, errOut)
	}
	var rep struct {
		Checks []conformResult `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("conform --json: %v\n%s", err, out)
	}
	byID := map[string]conformResult{}
	for _, c := range rep.Checks {
		byID[c.ID] = c
	}
	return byID
}

type conformResult struct {
	ID, Outcome, Reason, Needs string
}

// TestCheckersSplitCredentials: with --token and --cookie-jar together,
// lint and conform read the HTML pages as the person (the session cookie,
// no bearer token) and the graphs, the index and the AAL documents as the
// agent (the bearer token, not the cookie), and send their calls as the
// agent; with --cookie-jar alone, every request is the person's, and a
// call that carries the session carries the site's Origin too
// (docs/protocol.md decision 4), and the checks of calls by an authenticated
// requester run (issue 27).
func TestCheckersSplitCredentials(t *testing.T) {
	b := startBlog(t)
	jar := b.jar(t)
	for _, name := range []string{"lint", "conform"} {
		t.Run(name+" token and jar", func(t *testing.T) {
			code, out, errOut := cli(t, nil, name, "--token", blogToken, "--cookie-jar", jar, b.URL)
			if name == "lint" && code != exitOK {
				t.Errorf("lint: exit %d, want 0\n%s%s", code, out, errOut)
			}
			got := b.requests()
			html, agent := 0, 0
			for _, r := range got {
				switch {
				case r.Method == http.MethodPost && strings.Contains(r.Cookie, blogSession):
					t.Errorf("a call carried the person's session, want the agent's token: %s", r)
				case r.Method == http.MethodPost:
				case r.browser():
					html++
					if r.Cookie != blogSession || r.Authorization != "" {
						t.Errorf("an HTML page was read without the session alone: %s", r)
					}
				case r.agent():
					agent++
					if r.Authorization != "Bearer "+blogToken || strings.Contains(r.Cookie, blogSession) {
						t.Errorf("an agent's document was read without the token alone: %s", r)
					}
				}
			}
			if html == 0 || agent == 0 {
				t.Errorf("got %d HTML requests and %d agent requests, want some of each:\n%v", html, agent, got)
			}
			if strings.Contains(out, "needs --token") || strings.Contains(out, "needs --cookie-jar") {
				t.Errorf("with both credentials, got a check that needs some:\n%s", out)
			}
		})
	}
	t.Run("conform jar alone", func(t *testing.T) {
		checks := conformJSON(t, b, "--cookie-jar", jar)
		for _, id := range []string{"v0.order.input-before-guard", "v0.call.unavailable"} {
			if c := checks[id]; c.Outcome != "pass" {
				t.Errorf("%s with --cookie-jar: got %s (%s), want pass", id, c.Outcome, c.Reason)
			}
		}
		calls := 0
		for _, r := range b.requests() {
			if r.Method == http.MethodPost && strings.Contains(r.Cookie, blogSession) {
				calls++
				if r.Origin != b.URL {
					t.Errorf("a cookie call without the site's Origin %s: %s", b.URL, r)
				}
			}
		}
		if calls == 0 {
			t.Error("no call carried the session")
		}
	})
}

// TestCheckersNameRedirects: lint and conform follow no redirect: a page
// that answers 303 to the sign-in form is named, not read as the form it
// leads to, and, to a checker without the credentials it needs, says which
// (issue 27).
func TestCheckersNameRedirects(t *testing.T) {
	b := startBlog(t)
	t.Run("lint", func(t *testing.T) {
		code, out, errOut := cli(t, nil, "lint", "--token", blogToken, b.URL)
		if code != exitOK {
			t.Errorf("exit %d, want 0: a page the token cannot open is no problem of the site's\n%s%s", code, out, errOut)
		}
		want := "GET / answered 303 to /login: needs --cookie-jar"
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
		for _, r := range b.requests() {
			if r.Path == "/login" {
				t.Errorf("lint followed the redirect: %s", r)
			}
		}
	})
	t.Run("conform", func(t *testing.T) {
		checks := conformJSON(t, b, "--token", blogToken)
		for _, id := range []string{"v0.headers.html-vary", "aal.selector.unique"} {
			c := checks[id]
			if c.Outcome != "skip" || c.Needs != "--cookie-jar" || !strings.Contains(c.Reason, "GET / answered 303 to /login") {
				t.Errorf("%s: got %s, needs %q (%s), want skip: GET / answered 303 to /login, needs --cookie-jar", id, c.Outcome, c.Needs, c.Reason)
			}
		}
		for _, r := range b.requests() {
			if r.Path == "/login" {
				t.Errorf("conform followed the redirect: %s", r)
			}
		}
	})
}

// TestCheckersSayWhatNeedsCredentials: run anonymously, lint and conform
// say of each page and check they could not read for want of credentials
// which they need, and end with one line on how to give them; /drafts,
// which answers an anonymous reader unauthorized (401, docs/protocol.md decision 2),
// is no failure of v0.consistency.index-routes (issue 27).
func TestCheckersSayWhatNeedsCredentials(t *testing.T) {
	b := startBlog(t)
	t.Run("lint", func(t *testing.T) {
		code, out, errOut := cli(t, nil, "lint", b.URL)
		if code != exitOK {
			t.Errorf("exit %d, want 0\n%s%s", code, out, errOut)
		}
		for _, want := range []string{
			"GET /drafts answered 401 Unauthorized: needs --token or --cookie-jar",
			"GET / answered 303 to /login: needs --cookie-jar",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("stdout lacks %q:\n%s", want, out)
			}
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, "--token") || !strings.Contains(last, "--cookie-jar") {
			t.Errorf("got last line %q, want a hint naming --token and --cookie-jar", last)
		}
	})
	t.Run("conform", func(t *testing.T) {
		checks := conformJSON(t, b)
		if c := checks["v0.consistency.index-routes"]; c.Outcome == "fail" || !strings.Contains(c.Reason, "/drafts") || !strings.Contains(c.Reason, "needs --token or --cookie-jar") {
			t.Errorf("v0.consistency.index-routes: got %s (%s), want no failure, and /drafts needs --token or --cookie-jar", c.Outcome, c.Reason)
		}
		for _, id := range []string{"v0.call.unavailable", "v0.order.input-before-guard"} {
			if c := checks[id]; c.Outcome != "skip" || c.Needs != "--token or --cookie-jar" || !strings.Contains(c.Reason, "needs --token or --cookie-jar") {
				t.Errorf("%s: got %s, needs %q (%s), want skip, needs --token or --cookie-jar", id, c.Outcome, c.Needs, c.Reason)
			}
		}
		code, out, errOut := cli(t, nil, "conform", b.URL)
		if code != exitOK {
			t.Errorf("conform: exit %d, want 0: what needs credentials is no failure\n%s%s", code, out, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, "--token") || !strings.Contains(last, "--cookie-jar") {
			t.Errorf("got last line %q, want a hint naming --token and --cookie-jar", last)
		}
	})
}

// TestCheckersUserAgent: every request of lint and conform says who sends
// it, with the version and where to read about it, so a site can leave
// them out of its statistics; their help says so (issue 27).
func TestCheckersUserAgent(t *testing.T) {
	b := startBlog(t)
	jar := b.jar(t)
	for _, name := range []string{"lint", "conform"} {
		t.Run(name, func(t *testing.T) {
			cli(t, nil, name, "--token", blogToken, "--cookie-jar", jar, b.URL)
			want := "affordances-" + name + "/"
			got := b.requests()
			if len(got) == 0 {
				t.Fatal("no request")
			}
			for _, r := range got {
				if !strings.HasPrefix(r.UserAgent, want) || !strings.HasSuffix(r.UserAgent, " (+https://github.com/affordances/affordances-go)") || strings.Count(r.UserAgent, " ") != 1 {
					t.Errorf("User-Agent %q of %s, want %s<version> (+https://github.com/affordances/affordances-go)", r.UserAgent, r, want)
				}
			}
			_, help, _ := cli(t, nil, name, "--help")
			if !strings.Contains(help, "User-Agent: "+want) {
				t.Errorf("%s --help does not name its User-Agent:\n%s", name, help)
			}
		})
	}
}

// TestCheckersWarnOfGETs: the help of lint and conform, and the README,
// warn that crawling GETs pages as a browser does, and that --max-pages
// bounds it; lint says when it stopped at the bound (issue 27).
func TestCheckersWarnOfGETs(t *testing.T) {
	b := startBlog(t)
	_, out, _ := cli(t, nil, "lint", "--max-pages", "1", "--token", blogToken, "--cookie-jar", b.jar(t), b.URL)
	if want := "visited 1 page, the --max-pages bound"; !strings.Contains(out, want) {
		t.Errorf("lint --max-pages 1: stdout lacks %q:\n%s", want, out)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, name := range []string{"lint", "conform"} {
		_, help, _ := cli(t, nil, name, "--help")
		help = flat(help)
		for _, want := range []string{"GETs pages as a browser does", "side effects on GET", "--max-pages", "--cookie-jar"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s --help lacks %q:\n%s", name, want, help)
			}
		}
	}
	for _, want := range []string{"GETs pages as a browser does", "User-Agent: affordances-lint/", "User-Agent: affordances-conform/"} {
		if !strings.Contains(flat(string(readme)), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}
