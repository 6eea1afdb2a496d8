package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
)

// TestConformDemo: `affordances conform URL --allow-writes --token T`
// against the running demo reports every must passing (issue 6, "Done
// when"), with a summary table on stdout and progress on stderr.
func TestConformDemo(t *testing.T) {
	url := startDemo(t, "conform-token")
	e, out, errOut := testEnv(nil)
	args := []string{"conform", url, "--allow-writes", "--token", "conform-token"}
	if code := run(context.Background(), e, args); code != exitOK {
		t.Fatalf("%v: exit %d, want 0\n%s\n%s", args, code, out, errOut)
	}
	for _, w := range []string{"ID", "v0.negotiation.wildcard", "aal.selector.unique", "passed, 0 failed"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(errOut.String(), "pass   must   v0.discovery.index") {
		t.Errorf("stderr lacks the progress:\n%s", errOut)
	}

	// As alice's agent (the token) and in her browser (the session the
	// sign-in wrote to a cookie file), every must passes too, the
	// approval page read in her session (issue 27).
	jar := filepath.Join(t.TempDir(), "jar.txt")
	if code, out, errOut := cli(t, nil, "call", "--cookie-jar", jar, url+"/login", "signIn", `{"email":"alice@example.com","password":"alice"}`); code != exitOK {
		t.Fatalf("signIn: exit %d\n%s%s", code, out, errOut)
	}
	code, out2, errOut2 := cli(t, nil, "conform", url, "--allow-writes", "--token", "conform-token", "--cookie-jar", jar)
	if code != exitOK || !strings.Contains(out2, "passed, 0 failed") || strings.Contains(out2, "without credentials") {
		t.Errorf("conform with --token and --cookie-jar: exit %d, want 0 and nothing that needs credentials\n%s%s", code, out2, errOut2)
	}
}

func TestConformUsage(t *testing.T) {
	for _, args := range [][]string{
		{"conform"},
		{"conform", "not-a-url"},
		{"conform", "http://127.0.0.1:1", "--allow-writes", "--token", ""},
	} {
		e, out, errOut := testEnv(nil)
		if code := run(context.Background(), e, args); code != exitUsage {
			t.Errorf("%v: exit %d, want 2\n%s\n%s", args, code, out, errOut)
		}
	}
	e, out, _ := testEnv(nil)
	if code := run(context.Background(), e, []string{"conform", "--help"}); code != exitOK || !strings.Contains(out.String(), "--allow-writes") {
		t.Errorf("conform --help: exit %d\n%s", code, out)
	}
}

// TestConformFails: a site whose musts fail (one that answers 404 to
// everything) exits 1.
func TestConformFails(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	e, out, errOut := testEnv(nil)
	if code := run(context.Background(), e, []string{"conform", srv.URL}); code != exitFail {
		t.Errorf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
}

// TestConformSaysWhatItDidNotWrite: --allow-writes on a site with no
// action the suite may run passes its musts, says plainly which writes it
// did not test and why, and exits 5, not 0 (issue 36).
func TestConformSaysWhatItDidNotWrite(t *testing.T) {
	site := affordances.NewSite(nil)
	site.Route("/", nil)
	srv := httptest.NewServer(site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Home</title><link rel="alternate" type="application/vnd.affordances+json" href="/"><main>Home</main>`)
	})))
	t.Cleanup(srv.Close)
	code, out, errOut := cli(t, nil, "conform", srv.URL, "--allow-writes")
	want := "\nwrites: not tested, though --allow-writes asked for them:\n" +
		"  v0.write.read-action: no public read-only action the suite can build an input for\n" +
		"  v0.write.session-action: needs --token or --cookie-jar\n" +
		"  v0.write.changed: no action ran\n"
	if code != exitPending || !strings.HasSuffix(out, want) || !strings.Contains(out, " 0 failed") {
		t.Errorf("exit %d, want 5 and the summary ending in\n%s\ngot:\n%s%s", code, want, out, errOut)
	}
	if code, out, errOut := cli(t, nil, "conform", srv.URL); code != exitOK || strings.Contains(out, "writes: not tested") {
		t.Errorf("without --allow-writes: exit %d, want 0 and no word on writes\n%s%s", code, out, errOut)
	}
}

// recordingSite answers every request with status and body (an
// Affordances document when status is not 200), and records the
// Authorization headers it was sent.
func recordingSite(t *testing.T, status int, body string) (string, func() []string) {
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/vnd.affordances+json")
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(auth)
	}
}

// TestTokenFromEnv: lint and conform send $AFFORDANCES_TOKEN like call and
// inspect do, and their help says so (issue 14).
func TestTokenFromEnv(t *testing.T) {
	for _, name := range []string{"lint", "conform"} {
		t.Run(name, func(t *testing.T) {
			url, sent := recordingSite(t, http.StatusNotFound, `{"ok":false,"error":{"code":"not_found","message":"Nothing here."}}`)
			e, out, errOut := testEnv(map[string]string{tokenEnv: "env-token"})
			run(context.Background(), e, []string{name, url})
			if !slices.Contains(sent(), "Bearer env-token") {
				t.Errorf("got Authorization %q, want Bearer env-token among them\n%s\n%s", sent(), out, errOut)
			}
			e, out, _ = testEnv(nil)
			if run(context.Background(), e, []string{name, "--help"}); !strings.Contains(out.String(), "$"+tokenEnv) {
				t.Errorf("got help\n%s\nwant it to name $%s", out, tokenEnv)
			}
		})
	}
	e, out, errOut := testEnv(map[string]string{tokenEnv: "env-token"})
	url, _ := recordingSite(t, http.StatusNotFound, `{}`)
	if code := run(context.Background(), e, []string{"conform", url, "--allow-writes"}); code == exitUsage || strings.Contains(errOut.String(), "without --token or --cookie-jar") {
		t.Errorf("conform --allow-writes with $%s: got exit %d, want a run with the token\n%s\n%s", tokenEnv, code, out, errOut)
	}
	// Without a token (a site that publishes AAL only has none), the
	// suite runs what needs none, and says what it skips.
	e, out, errOut = testEnv(nil)
	if code := run(context.Background(), e, []string{"conform", url, "--allow-writes"}); code == exitUsage || !strings.Contains(errOut.String(), "without --token or --cookie-jar") {
		t.Errorf("conform --allow-writes without a token: got exit %d, want a run that says what it skips\n%s\n%s", code, out, errOut)
	}
}

// TestConformPrintsAnExchangeOnce: when many musts fail on one exchange (a
// site that answers 429 to everything), the report shows it once, and no
// reason reads "<nil>" (issue 14).
func TestConformPrintsAnExchangeOnce(t *testing.T) {
	url, _ := recordingSite(t, http.StatusTooManyRequests, `{"ok":false,"error":{"code":"rate_limited","message":"Slow down."}}`)
	e, out, errOut := testEnv(nil)
	if code := run(context.Background(), e, []string{"conform", url}); code != exitFail {
		t.Fatalf("got exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	_, failures, _ := strings.Cut(out.String(), "\nFAIL ")
	seen := map[string]string{}
	for block := range strings.SplitSeq(failures, "\nFAIL ") {
		id, _, _ := strings.Cut(block, " ")
		_, exchange, _ := strings.Cut(block, "\n  request: ")
		if exchange == "" {
			continue
		}
		if first, ok := seen[exchange]; ok {
			t.Errorf("%s: got the exchange of %s printed again, want it once:\n%s", id, first, exchange)
		}
		seen[exchange] = id
	}
	if len(seen) == 0 {
		t.Errorf("got no exchange in the report, want each once:\n%s", out)
	}
	if strings.Contains(out.String()+errOut.String(), "<nil>") {
		t.Errorf("got <nil> in the report, want none:\n%s", out)
	}
}
