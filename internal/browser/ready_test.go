package browser_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
)

// formSite serves one form whose fields a person fills in, and echoes
// what it receives.
func formSite(t *testing.T) (*httptest.Server, *[]string) {
	var got []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /form", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Form</title><main>
<form method="post" action="/got" novalidate>
<label>Title: <input name="t" required maxlength="5"></label>
<input name="q" aria-label="Query">
<input type="hidden" name="csrf" value="k1">
<button data-aal="go">Go</button>
</form>
<a data-aal="away" href="/elsewhere">Away</a>
</main></html>`)
	})
	mux.HandleFunc("POST /got", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		got = append(got, r.PostForm.Encode())
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>Got it</title><main><p>Got %s</p></main>`, r.PostForm.Get("t"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &got
}

// TestReady: Ready fills the form by name and by label, checks it as the
// browser does before sending, even under novalidate, and as maxlength
// binds a person's typing, and says where the click sends the page;
// nothing is sent until Click.
func TestReady(t *testing.T) {
	b := browsertest.Start(t)
	srv, got := formSite(t)
	ctx := t.Context()
	p := newPage(t, b)
	goAff := aal.Affordance{ID: "go", Selector: `[data-aal="go"]`}
	for _, tc := range []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"required left empty", map[string]any{"q": "x"}, `t ("title") is required and left empty; nothing was clicked`},
		{"past maxlength", map[string]any{"t": "abcdef"}, `t ("title"): takes at most 5 characters, not 6`},
		{"no such field", map[string]any{"t": "a", "colour": "red"}, "the form has no field colour (its fields: t, q, csrf)"},
	} {
		if _, err := p.Navigate(ctx, srv.URL+"/form"); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Ready(ctx, goAff, tc.input, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := p.Navigate(ctx, srv.URL+"/form"); err != nil {
		t.Fatal(err)
	}
	var did []string
	r, err := p.Ready(ctx, goAff, map[string]any{"Title": "Tea", "query": "green"}, func(what string) error { did = append(did, what); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !r.Submits || r.Method != "POST" || r.URL != srv.URL+"/got" || strings.Join(did, ", ") != "fill Title, fill query" {
		t.Errorf("ready: %+v, did %q", r, did)
	}
	if len(*got) != 0 {
		t.Fatalf("before the click the site received %q", *got)
	}
	resp, err := r.Click(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp == nil || resp.Status != 200 || len(*got) != 1 || (*got)[0] != "csrf=k1&q=green&t=Tea" {
		t.Errorf("clicked: %+v, the site received %q", resp, *got)
	}
	if title, _ := p.Title(ctx); title != "Got it" {
		t.Errorf("title %q, want Got it", title)
	}
	if text, _ := p.MainText(ctx); text != "Got Tea" {
		t.Errorf("main text %q, want Got Tea", text)
	}

	p.Navigate(ctx, srv.URL+"/form")
	link, err := p.Ready(ctx, aal.Affordance{ID: "away", Selector: `[data-aal="away"]`}, nil, nil)
	if err != nil || link.Submits || link.Method != "GET" || link.URL != srv.URL+"/elsewhere" {
		t.Errorf("the link: %+v, %v", link, err)
	}
	if _, err := p.Ready(ctx, aal.Affordance{ID: "none", Selector: `[data-aal="none"]`}, nil, nil); !errors.Is(err, browser.ErrUnavailable) {
		t.Errorf("no element: %v, want ErrUnavailable", err)
	}
}

// TestProfile: a browser on the person's profile directory keeps its
// cookies from one start to the next, and Close leaves the directory.
func TestProfile(t *testing.T) {
	dir := t.TempDir()
	srv, _ := formSite(t)
	ctx := t.Context()
	first := browsertest.StartWith(t, &browser.Options{Profile: dir})
	p := newPage(t, first)
	if err := p.SetCookie(ctx, srv.URL+"/", &http.Cookie{Name: "sid", Value: "s1", Path: "/", Expires: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the profile is gone after Close: %v", err)
	}
	second := browsertest.StartWith(t, &browser.Options{Profile: dir})
	cookies, err := newPage(t, second).Cookies(ctx, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if len(cookies) != 1 || cookies[0].Name != "sid" || cookies[0].Value != "s1" {
		t.Errorf("the second start has cookies %v, want sid=s1", cookies)
	}
	if _, err := browser.Start(ctx, &browser.Options{Profile: dir + "/none"}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("a missing profile: %v", err)
	}
}
