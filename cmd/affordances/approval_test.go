package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
)

// approvalLink is an approval page's URL as call prints it.
var approvalLink = regexp.MustCompile(`http://\S+/\.well-known/affordances/approvals/[a-z2-7]+`)

// A browser is alice's browser on a demo: a cookie session from the shop's
// signIn action, and forms posted with the site's Origin, as a browser
// posts them.
type browser struct {
	demo string
	hc   *http.Client
}

func signInBrowser(demo string) (*browser, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	// Timeout guards against a hang: under -race on a busy machine a sign-in took over 10 s.
	b := &browser{demo: demo, hc: &http.Client{Jar: jar, Timeout: time.Minute}}
	body := fmt.Sprintf(`{"action":"signIn","input":{"email":%q,"password":%q}}`, shop.DemoEmail, shop.DemoPassword)
	req, _ := http.NewRequest(http.MethodPost, demo+"/login", strings.NewReader(body))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Origin", demo)
	res, err := b.hc.Do(req)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	if u, _ := url.Parse(demo); res.StatusCode != http.StatusOK || len(jar.Cookies(u)) == 0 {
		return nil, fmt.Errorf("signIn: %d, %d cookies", res.StatusCode, len(jar.Cookies(u)))
	}
	return b, nil
}

// signInLater signs alice's browser in on demo in the background, so that
// the password check (bcrypt) overlaps what the test does meanwhile; the
// function returned waits for it.
func signInLater(demo string) func() (*browser, error) {
	type signedIn struct {
		b   *browser
		err error
	}
	ch := make(chan signedIn, 1)
	go func() {
		b, err := signInBrowser(demo)
		ch <- signedIn{b, err}
	}()
	return sync.OnceValues(func() (*browser, error) {
		r := <-ch
		return r.b, r.err
	})
}

// decide presses Approve or Deny ("approve", "deny") on the approval page
// at page.
func (b *browser) decide(page, decision string) error {
	req, _ := http.NewRequest(http.MethodPost, page, strings.NewReader(url.Values{"decision": {decision}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.demo)
	res, err := b.hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	html, _ := io.ReadAll(res.Body)
	if want := map[string]string{"approve": "Approved.", "deny": "Denied."}[decision]; res.StatusCode != http.StatusOK || !strings.Contains(string(html), want) {
		return fmt.Errorf("POST %s decision=%s: got %d, want 200 and %q\n%s", page, decision, res.StatusCode, want, html)
	}
	return nil
}

// personDecides plays alice at her browser (from [signInLater]) while a
// call waits on its approval page: once the call's stderr shows the page's
// URL and the wait, she finds her cart still holding cart items (nothing
// was ordered before she decided) and presses decision there.
func personDecides(alice func() (*browser, error), token string, stderr *syncBuffer, cart int, decision string) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- func() error {
			var page string
			for deadline := time.Now().Add(20 * time.Second); page == ""; time.Sleep(10 * time.Millisecond) {
				out := stderr.String()
				if strings.Contains(out, "waiting for your decision on the approval page") {
					page = approvalLink.FindString(out)
				}
				if page == "" && time.Now().After(deadline) {
					return fmt.Errorf("the call showed no approval page and no wait:\n%s", out)
				}
			}
			b, err := alice()
			if err != nil {
				return err
			}
			if n, _, err := shopCounts(b.demo, token); err != nil || n != cart {
				return fmt.Errorf("while the call waited for the person: cart count %d, %v, want %d: something was ordered", n, err, cart)
			}
			return b.decide(page, decision)
		}()
	}()
	return done
}

// callWhileDeciding runs the command line args in e while alice decides on
// the approval page the call shows ([personDecides]). When she cannot, the
// call is ended, not left waiting for the page to expire. It returns the
// exit code and her error.
func callWhileDeciding(e *env, args []string, alice func() (*browser, error), token string, stderr *syncBuffer, cart int, decision string) (int, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	person := personDecides(alice, token, stderr, cart, decision)
	decided := make(chan error, 1)
	go func() {
		err := <-person
		if err != nil {
			cancel()
		}
		decided <- err
	}()
	code := run(ctx, e, args)
	return code, <-decided
}

// shopCounts reads, as the holder of token, how many items the cart holds
// and how many orders there are, from the graphs of /checkout and /orders.
// It may run outside the test's goroutine.
func shopCounts(demo, token string) (cart, orders int, err error) {
	var checkout struct {
		Entities struct {
			Cart struct {
				Count int `json:"count"`
			} `json:"cart"`
		} `json:"entities"`
	}
	var history struct {
		Entities struct {
			History struct {
				Total int `json:"total"`
			} `json:"history"`
		} `json:"entities"`
	}
	for path, v := range map[string]any{"/checkout": &checkout, "/orders": &history} {
		req, _ := http.NewRequest(http.MethodGet, demo+path, nil)
		req.Header.Set("Accept", affordances.MediaType)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, 0, err
		}
		err = json.NewDecoder(res.Body).Decode(v)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			return 0, 0, fmt.Errorf("GET %s: %d, %v", path, res.StatusCode, err)
		}
	}
	return checkout.Entities.Cart.Count, history.Entities.History.Total, nil
}

// TestApprovalPage: on the demo shop, which has the person approve each
// order on its own approval page (docs/protocol.md decision 10), call placeOrder
// prints the site's summary and the page's URL and waits; --approve,
// grants and a y at the prompt do not place the order. The person's
// Approve in their browser places it, once; a call nobody decides within
// --approval-timeout exits 3 with nothing done, and run again after the
// person approved, places the order; the person's Deny places nothing and
// exits 3 (issue 14). With no terminal and no --approval-timeout, the call
// does not wait: it exits 5, pending (issue 36).
func TestApprovalPage(t *testing.T) {
	const tok = "page-token"
	demo := startDemo(t, tok)
	checkout := demo + "/checkout"
	addTotes := func(n int) {
		t.Helper()
		if code, _, errOut := cli(t, nil, "call", "--token", tok, demo+"/products/canvas-tote", "addToCart", fmt.Sprintf(`{"sku":"TOTE-NAT","quantity":%d}`, n)); code != exitOK {
			t.Fatalf("addToCart: exit %d\n%s", code, errOut)
		}
	}
	counts := func(what string, wantCart, wantOrders int) {
		t.Helper()
		if n, o, err := shopCounts(demo, tok); err != nil || n != wantCart || o != wantOrders {
			t.Errorf("%s: cart count %d, %d orders, %v, want %d and %d", what, n, o, err, wantCart, wantOrders)
		}
	}
	alice := signInLater(demo) // her browser, signed in while the test goes on
	contains := func(what, got string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", what, w, got)
			}
		}
	}

	// Approved on the page: --approve was given, and did not approve it;
	// with no terminal, --approval-timeout has the call wait.
	addTotes(2)
	e, out, errOut := testEnv(nil)
	code, err := callWhileDeciding(e, []string{"call", "--token", tok, checkout, "placeOrder", "--approve", "--approval-timeout", "1m"}, alice, tok, errOut, 2, "approve")
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	if code != exitOK {
		t.Fatalf("placeOrder approved on the page: exit %d, want 0\n%s%s", code, out, errOut)
	}
	contains("stderr of placeOrder approved on the page", errOut.String(),
		"site says: Place order: 2 × Canvas Tote (Natural) $36.00; total $36.00, card ending 4242, ship to Alice Liddell, 1 Main St, Springfield 12345, US.",
		"--approve, --grant and a y typed here do not approve it.",
		"Open this page in your browser, signed in as the account that made the call, and approve or deny:\n\n  "+demo+"/.well-known/affordances/approvals/",
		"waiting for your decision on the approval page… 0s\n",
		"Approved on the approval page: the call was sent with confirm: true.")
	if strings.Contains(errOut.String(), "Approved with --approve.") {
		t.Errorf("--approve was taken for the approval:\n%s", errOut)
	}
	contains("stdout of placeOrder approved on the page", out.String(), "ok\n", "redirect: /orders/")
	counts("after the person approved", 0, 1)

	// With no terminal and no --approval-timeout, the call does not wait
	// for a page nobody may open: pending, exit 5, at once (issue 36).
	addTotes(1)
	began := time.Now()
	code, stdout, stderr := cli(t, nil, "call", "--token", tok, checkout, "placeOrder")
	if code != exitPending || time.Since(began) > 10*time.Second || strings.Contains(stderr, "waiting for your decision") || stdout != "" {
		t.Fatalf("placeOrder with no terminal: exit %d after %s, want 5 at once, no wait\n%s%s", code, time.Since(began), stdout, stderr)
	}
	contains("stderr of placeOrder with no terminal", stderr, "\n\n  "+demo+"/.well-known/affordances/approvals/",
		"Nothing was done yet: no terminal, so the call did not wait for the person's decision on the approval page (open until ",
		"Once they approve there, run the same call again to send it; or run it with --approval-timeout 10m to wait for them.\n")
	counts("after a call with no terminal", 1, 1)

	// Nobody decides in time; then the person approves the same page, and
	// the same call, run again, places the order.
	code, stdout, stderr = cli(t, nil, "call", "--token", tok, "--json", "--approval-timeout", "1s", checkout, "placeOrder")
	var timedOut struct {
		Approved     bool
		ApprovalPage struct{ URL, Outcome string }
		Hint         string
	}
	if err := json.Unmarshal([]byte(stdout), &timedOut); err != nil || code != exitNotApproved || timedOut.Approved ||
		timedOut.ApprovalPage.Outcome != "timeout" || !approvalLink.MatchString(timedOut.ApprovalPage.URL) || !strings.Contains(timedOut.Hint, "within 1s") {
		t.Fatalf("placeOrder --approval-timeout 1s --json: exit %d, %v, want 3 and the page with outcome timeout\n%s%s", code, err, stdout, stderr)
	}
	counts("after nobody decided", 1, 1)
	b, err := alice()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.decide(timedOut.ApprovalPage.URL, "approve"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = cli(t, nil, "call", "--token", tok, "--json", checkout, "placeOrder")
	var placed struct {
		OK           bool
		Redirect     string
		ApprovalPage struct{ URL, Outcome string }
	}
	if err := json.Unmarshal([]byte(stdout), &placed); err != nil || code != exitOK || !placed.OK || !strings.HasPrefix(placed.Redirect, "/orders/") ||
		placed.ApprovalPage != (struct{ URL, Outcome string }{timedOut.ApprovalPage.URL, "approved"}) {
		t.Fatalf("placeOrder --json run again after the approval: exit %d, %v, want 0, the order and the same page approved\n%s%s", code, err, stdout, stderr)
	}
	counts("after the call ran again", 0, 2)

	// Denied on the page: on a terminal answering y, with --approve and
	// grants covering every class, progress on one line rewritten.
	addTotes(1)
	e, out, errOut = testEnv(nil)
	e.stdin = strings.NewReader("y\n")
	e.isTerminal = func() bool { return true }
	e.stderrIsTerminal = func() bool { return true }
	code, err = callWhileDeciding(e, []string{"call", "--token", tok, "--grant", "destructive", "--grant", "financial:50USD", "--grant", "confirm",
		checkout, "placeOrder", "--approve"}, alice, tok, errOut, 1, "deny")
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	if code != exitNotApproved {
		t.Errorf("placeOrder denied on the page: exit %d, want 3\n%s%s", code, out, errOut)
	}
	contains("stderr of placeOrder denied on the page", errOut.String(),
		"\rwaiting for your decision on the approval page… 0s\033[K",
		"\nDenied on the approval page: nothing was done.\n")
	if strings.Contains(errOut.String(), "Approve? [y/N]") || out.String() != "" {
		t.Errorf("placeOrder denied on the page: asked at the prompt, or printed a delta:\n%s%s", out, errOut)
	}
	counts("after the person denied", 1, 2)
}

// TestApprovalProgress: off a terminal, the wait is shown at most every
// 10 seconds; on one, one line is rewritten at each check and ended before
// the outcome.
func TestApprovalProgress(t *testing.T) {
	checks := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second, 12 * time.Second, 17 * time.Second, 22 * time.Second}
	e, _, errOut := testEnv(nil)
	a := &approval{e: e, wait: true}
	for _, w := range checks {
		a.waiting(nil, w)
	}
	a.endWait()
	const line = "waiting for your decision on the approval page… "
	if got, want := errOut.String(), line+"0s\n"+line+"12s\n"+line+"22s\n"; got != want {
		t.Errorf("off a terminal: got %q, want %q", got, want)
	}

	e, _, errOut = testEnv(nil)
	e.stderrIsTerminal = func() bool { return true }
	a = &approval{e: e, wait: true}
	for _, w := range checks[:3] {
		a.waiting(nil, w)
	}
	a.endWait()
	if got, want := errOut.String(), "\r"+line+"0s\033[K\r"+line+"1s\033[K\r"+line+"3s\033[K\n"; got != want {
		t.Errorf("on a terminal: got %q, want %q", got, want)
	}
}
