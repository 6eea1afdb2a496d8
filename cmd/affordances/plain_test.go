package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go/aal"
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
