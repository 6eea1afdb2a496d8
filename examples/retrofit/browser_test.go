package main

// In real Chromium (with WebMCP, behind its WebMCPTesting feature): a
// person signs in and saves a link through the app's own forms, under its
// nonce CSP and Referrer-Policy: no-referrer, and the page an agent in
// the browser reads has its tools. Without Chromium, or under -short, it
// skips.

import (
	"bytes"
	"encoding/json"
	"flag"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	chromium "github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/browsertest"
)

var screenshot = flag.String("screenshot", "", "TestBrowser writes a PNG of the links page to this `file`")

// watchCSP makes every document the page loads log each CSP violation as
// an error.
const watchCSP = `document.addEventListener("securitypolicyviolation",
	e => console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI));`

func TestBrowser(t *testing.T) {
	b := browsertest.Shared(t, "WebMCPTesting")
	app := testApp(t).Handler()
	var mu sync.Mutex
	var posts []string // the origin headers of each form post
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Content-Type") == "application/x-www-form-urlencoded" {
			mu.Lock()
			posts = append(posts, r.URL.Path+" Origin: "+r.Header.Get("Origin")+", Sec-Fetch-Site: "+r.Header.Get("Sec-Fetch-Site"))
			mu.Unlock()
		}
		app.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := t.Context()
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.AddScriptOnNewDocument(ctx, watchCSP); err != nil {
		t.Fatal(err)
	}
	if err := p.RecordTools(ctx); err != nil {
		t.Fatal(err)
	}
	must := func(res *chromium.Response, err error) {
		t.Helper()
		if err != nil || res == nil || res.Status != http.StatusOK {
			t.Fatalf("got %+v, %v; want a page that answers 200", res, err)
		}
	}
	see := func(want string) {
		t.Helper()
		if text, err := p.MainText(ctx); err != nil || !strings.Contains(text, want) {
			t.Fatalf("the page reads %q (%v), want %q", text, err, want)
		}
	}
	fill := func(label, value string) {
		t.Helper()
		if err := p.FillLabel(ctx, label, value); err != nil {
			t.Fatal(err)
		}
	}

	must(p.Navigate(ctx, srv.URL+"/app/links/")) // to the sign-in page
	fill("Email", demoEmail)
	fill("Password", demoPassword)
	must(p.Click(ctx, "main form button"))
	see("Welcome back, Ada Lovelace.")

	fill("Address", "https://go.dev/ref/spec")
	fill("Title (optional)", "The Go spec")
	fill("Tags (separated by spaces)", "go reference")
	must(p.Click(ctx, `[data-aal="add-link"]`))
	see("Saved “The Go spec”.")
	if u, _ := p.URL(ctx); u != srv.URL+"/app/links/" {
		t.Errorf("after saving, the page is %s, want /app/links/", u)
	}
	// Both forms posted as a person's do under no-referrer, with the
	// app's CSRF token: Origin null, and the browser's word that the post
	// is the site's own.
	for _, res := range p.Responses() {
		if got := res.Header.Get("Referrer-Policy"); res.Type == "Document" && got != "no-referrer" {
			t.Errorf("%s: Referrer-Policy %q, want no-referrer", res.URL, got)
		}
	}
	mu.Lock()
	want := []string{"/app/login Origin: null, Sec-Fetch-Site: same-origin", "/app/links/ Origin: null, Sec-Fetch-Site: same-origin"}
	if !slices.Equal(posts, want) {
		t.Errorf("the form posts: got %q, want %q", posts, want)
	}
	mu.Unlock()

	// An agent in the browser finds the page's actions as tools, and runs
	// one with the person's session.
	var names []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		tools, err := p.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if len(names) == 3 || time.Now().After(deadline) {
			break
		}
	}
	if want := []string{"addLink", "deleteLink", "markRead"}; !slices.Equal(names, want) {
		t.Errorf("the page's WebMCP tools: got %q, want %q", names, want)
	}
	out, err := p.ExecuteTool(ctx, "markRead", map[string]any{"id": 5, "read": true})
	if err != nil {
		t.Fatal(err)
	}
	var d affordances.Delta
	if err := json.Unmarshal([]byte(out), &d); err != nil || !d.OK || d.Changed["unread"] != float64(4) {
		t.Errorf("the markRead tool returned %s, want ok and 4 unread", out)
	}
	lines, err := p.ConsoleNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "error:") || strings.HasPrefix(l, "exception:") || strings.Contains(l, "Content Security Policy") {
			t.Errorf("the console says %q", l)
		}
	}
	// A confirm action's tool only asks (the browser logs its 428).
	out, err = p.ExecuteTool(ctx, "deleteLink", map[string]any{"id": 5})
	if err != nil || !strings.Contains(out, "confirm_required") || !strings.Contains(out, "Delete “Effective Go”") {
		t.Errorf("the deleteLink tool returned %s, %v; want it only to ask", out, err)
	}

	img, err := p.Screenshot(ctx, 1280, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if *screenshot != "" {
		if err := os.WriteFile(*screenshot, img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
