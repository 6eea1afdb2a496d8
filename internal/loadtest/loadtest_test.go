package loadtest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	code := Main(m, serveTest)
	for _, dir := range tempDirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// tempDirs are the directories the benchmarks made, removed at the end.
var tempDirs []string

// tempDir makes a directory for the benchmarks.
func tempDir() (string, error) {
	dir, err := os.MkdirTemp("", "affordances-bench-")
	if err == nil {
		tempDirs = append(tempDirs, dir)
	}
	return dir, err
}

// serveTest is what the servers of these tests serve: "burn" spends the
// CPU time its query's ms asks for, then answers; "files:<dir>" serves the
// files of dir.
func serveTest(name string) (http.Handler, error) {
	if dir, ok := strings.CutPrefix(name, "files:"); ok {
		return http.FileServer(http.Dir(dir)), nil
	}
	if name != "burn" {
		return nil, fmt.Errorf("no server %q", name)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ms int
		fmt.Sscan(r.URL.Query().Get("ms"), &ms)
		burn(time.Duration(ms) * time.Millisecond)
		io.WriteString(w, "burnt")
	}), nil
}

// burn spins until the process has spent d more of CPU time, however
// long a busy machine takes to schedule it; where there is no CPU clock,
// for d of wall time.
func burn(d time.Duration) {
	self := os.Getpid()
	start, err := processCPU(self)
	if err != nil {
		for t := time.Now(); time.Since(t) < d; {
		}
		return
	}
	for now := start; now-start < d; now, _ = processCPU(self) {
	}
}

// TestStatic: the baseline answers what was captured, status, headers and
// body, whatever the request, and reads the request's body.
func TestStatic(t *testing.T) {
	subject := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.affordances+json")
		w.Header().Add("Vary", "Accept")
		w.Header().Add("Vary", "Origin")
		w.Header().Set("ETag", `"x"`)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"ok":true}`)
	})
	res := Capture(subject, httptest.NewRequest(http.MethodGet, "/", nil))
	body := strings.NewReader("a call's body")
	rec := httptest.NewRecorder()
	Static(res).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/other", body))
	if rec.Code != http.StatusCreated || rec.Body.String() != `{"ok":true}` {
		t.Errorf("got %d %q, want 201 {\"ok\":true}", rec.Code, rec.Body)
	}
	for name, want := range map[string][]string{"Content-Type": {"application/vnd.affordances+json"}, "Vary": {"Accept", "Origin"}, "Etag": {`"x"`}} {
		if got := rec.Header()[name]; !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	if len(rec.Header()) != 3 {
		t.Errorf("headers: got %v, want 3", rec.Header())
	}
	if body.Len() != 0 {
		t.Errorf("%d bytes of the request's body left unread", body.Len())
	}
}
