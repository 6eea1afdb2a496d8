package affordances_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/store"
)

// summaryNote ends pay's summary: a test changes it to change what the
// person would read, as another cart changes a checkout's summary.
var summaryNote atomic.Value

func init() { summaryNote.Store("") }

// verifiedSite serves one human-verified confirm action, pay, on /pay,
// and counts its runs. alice and bob sign in with a cookie (who=NAME) or a
// token (NAME-token).
func verifiedSite(t *testing.T, approvals store.Approvals) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	site := affordances.NewSite(&affordances.SiteOptions{
		Name:      "Verified",
		Approvals: approvals,
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
				return affordances.Principal{ID: strings.TrimSuffix(tok, "-token")}, nil
			}
			if c, err := r.Cookie("who"); err == nil {
				return affordances.Principal{ID: c.Value}, nil
			}
			return affordances.Principal{}, nil
		},
	})
	type payInput struct {
		Amount int    `json:"amount" affordances:"minimum=1"`
		To     string `json:"to"`
	}
	affordances.AddAction(site.Route("/pay", nil), &affordances.Action{
		Name: "pay", Description: "Pay someone", Expose: affordances.ExposeConfirm, Verify: true,
		Summary: affordances.Summarize(func(_ context.Context, r *affordances.Request, in payInput) (string, error) {
			return fmt.Sprintf("Pay %s $%d.%s", in.To, in.Amount, summaryNote.Load()), nil
		}),
		AAL: &aal.Meta{Action: aal.Purchase, Trust: aal.TrustFinancial, Label: "Pay"},
	}, func(context.Context, *affordances.Request, payInput) (struct{}, error) {
		runs.Add(1)
		return struct{}{}, nil
	})
	srv := httptest.NewServer(site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<!doctype html><title>Pay</title>"))
	})))
	t.Cleanup(srv.Close)
	return srv, &runs
}

// verifiedCall makes a bearer call of pay as who.
func verifiedCall(t *testing.T, srv *httptest.Server, who string, input string, confirm bool) (int, affordances.Delta) {
	t.Helper()
	body := `{"action":"pay","input":` + input + `,"confirm":` + map[bool]string{true: "true", false: "false"}[confirm] + `}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/pay", strings.NewReader(body))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer "+who+"-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var d affordances.Delta
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, d
}

// decide posts a decision on the approval page at path; header sets how.
func decide(t *testing.T, srv *httptest.Server, path, decision string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(url.Values{"decision": {decision}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// aliceBrowser is alice's browser posting on the site's page.
func aliceBrowser(srv *httptest.Server) map[string]string {
	return map[string]string{"Cookie": "who=alice", "Origin": srv.URL}
}

// TestHumanVerifiedConfirmation: a human-verified confirm call runs only
// after its caller approved it on the site's approval page, once; a model
// sending confirm: true without that is refused, and so is anyone but the
// person's browser deciding (docs/protocol.md decision 10).
func TestHumanVerifiedConfirmation(t *testing.T) {
	srv, runs := verifiedSite(t, nil)
	const in = `{"amount":18,"to":"Bob"}`

	status, d := verifiedCall(t, srv, "alice", in, false)
	if status != 428 || d.Error == nil || d.Error.Code != affordances.ConfirmRequired || d.Approval == nil ||
		!strings.HasPrefix(d.Approval.URL, affordances.ApprovalsPath) || time.Until(d.Approval.Expires) < 10*time.Minute {
		t.Fatalf("a call without confirm: got %d %+v approval %+v, want 428 confirm_required with an approval URL good for 15 minutes", status, d.Error, d.Approval)
	}
	link := d.Approval.URL
	if status, d := verifiedCall(t, srv, "alice", in, true); status != 428 || d.Approval == nil || d.Approval.URL != link {
		t.Fatalf("confirm: true before approval: got %d %+v, want 428 with the same approval", status, d.Approval)
	}

	// Nobody but alice's browser session decides.
	for name, header := range map[string]map[string]string{
		"alice's bearer token (her agent)":              {"Authorization": "Bearer alice-token"},
		"alice's token with an Origin":                  {"Authorization": "Bearer alice-token", "Origin": srv.URL},
		"alice's cookie without a browser's Origin":     {"Cookie": "who=alice"},
		"alice's cookie from another site":              {"Cookie": "who=alice", "Origin": "https://evil.example"},
		"alice's cookie, Origin https on the http site": {"Cookie": "who=alice", "Origin": strings.Replace(srv.URL, "http:", "https:", 1)},
		"bob's browser":                                 {"Cookie": "who=bob", "Origin": srv.URL},
		"nobody":                                        {"Origin": srv.URL},
	} {
		if got := decide(t, srv, link, "approve", header); got < 400 {
			t.Errorf("approving as %s: got %d, want a refusal", name, got)
		}
	}
	if status, _ := verifiedCall(t, srv, "alice", in, true); status != 428 || runs.Load() != 0 {
		t.Fatalf("after refused approvals: got %d, %d runs; want 428 and nothing run", status, runs.Load())
	}

	// The page shows the call to alice.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+link, nil)
	req.Header.Set("Cookie", "who=alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var page strings.Builder
	buf := make([]byte, 1<<16)
	n, _ := resp.Body.Read(buf)
	page.Write(buf[:n])
	resp.Body.Close()
	for _, want := range []string{"Pay Bob $18.", "/pay", "It spends money.", "It cannot be undone.", "<dt>amount</dt><dd>18</dd>", `value="approve"`, `value="deny"`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the approval page lacks %q:\n%s", want, page.String())
		}
	}
	if resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Error("the approval page can be framed")
	}

	if got := decide(t, srv, link, "approve", aliceBrowser(srv)); got != 200 {
		t.Fatalf("alice approving in her browser: got %d, want 200", got)
	}
	if got := decide(t, srv, link, "deny", aliceBrowser(srv)); got != 409 {
		t.Errorf("deciding again: got %d, want 409", got)
	}
	// Only the very call runs: not another input, not another caller.
	if status, _ := verifiedCall(t, srv, "alice", `{"amount":1800,"to":"Bob"}`, true); status != 428 {
		t.Errorf("another input after approval: got %d, want 428", status)
	}
	if status, _ := verifiedCall(t, srv, "bob", in, true); status != 428 {
		t.Errorf("another caller after approval: got %d, want 428", status)
	}
	if runs.Load() != 0 {
		t.Fatalf("%d runs before the approved call, want 0", runs.Load())
	}
	// The same input written otherwise is the same call.
	if status, d := verifiedCall(t, srv, "alice", `{ "to":"Bob", "amount":18 }`, true); status != 200 || !d.OK || runs.Load() != 1 {
		t.Fatalf("the approved call: got %d %+v, %d runs; want 200 and one run", status, d.Error, runs.Load())
	}
	if status, d := verifiedCall(t, srv, "alice", in, true); status != 428 || d.Approval == nil || d.Approval.URL == link || runs.Load() != 1 {
		t.Errorf("the approved call again: got %d %+v, %d runs; want 428 with a new approval, one run", status, d.Approval, runs.Load())
	}
}

// TestApprovalPageShowsHidden: the approval page shows the summary, the
// label and the input with every invisible and direction character made
// visible, as aal.Visible writes them (docs/protocol.md decision 8): the person
// approving sees "Bob\u202e", never text a right-to-left override turned
// around. The input's members read as names and values, made visible
// the same way.
func TestApprovalPageShowsHidden(t *testing.T) {
	srv, _ := verifiedSite(t, nil)
	status, d := verifiedCall(t, srv, "alice", "{\"amount\":18,\"to\":\"Bob\u202e\u2066\u200b\\\\u202e\"}", false)
	if status != 428 || d.Approval == nil {
		t.Fatalf("the call: got %d %+v, want 428 with an approval", status, d.Approval)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+d.Approval.URL, nil)
	req.Header.Set("Cookie", "who=alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, tc := range []struct{ where, want string }{
		{"summary", `<p class="summary">Pay Bob\u202e\u2066\u200b\\u202e $18.</p>`},
		{"label", `<h1>Pay</h1>`},
		{"input", `<dt>to</dt><dd>Bob\u202e\u2066\u200b\\u202e</dd>`},
	} {
		if !strings.Contains(page, tc.want) {
			t.Errorf("%s: got a page without %s:\n%s", tc.where, tc.want, page)
		}
	}
	for _, r := range []rune{0x202E, 0x2066, 0x200B} {
		if strings.ContainsRune(page, r) {
			t.Errorf("got the page with U+%04X as it is, want it made visible", r)
		}
	}
}

// TestHumanVerifiedDenial: a denied call never runs; the denial answers
// once, then the call asks anew.
func TestHumanVerifiedDenial(t *testing.T) {
	srv, runs := verifiedSite(t, nil)
	const in = `{"amount":5,"to":"Carol"}`
	_, d := verifiedCall(t, srv, "alice", in, false)
	if d.Approval == nil {
		t.Fatal("no approval")
	}
	if got := decide(t, srv, d.Approval.URL, "deny", aliceBrowser(srv)); got != 200 {
		t.Fatalf("deny: %d", got)
	}
	if status, d := verifiedCall(t, srv, "alice", in, true); status != 403 || d.Error == nil || !strings.Contains(d.Error.Message, "denied") {
		t.Errorf("confirm: true after denial: got %d %+v, want 403 saying the person denied it", status, d.Error)
	}
	if status, d := verifiedCall(t, srv, "alice", in, true); status != 428 || d.Approval == nil {
		t.Errorf("once more: got %d, want 428 with a new approval", status)
	}
	if runs.Load() != 0 {
		t.Errorf("%d runs, want 0", runs.Load())
	}
}

// TestHumanVerifiedSummaryChanged: an approval is of the call as its
// summary described it; once the summary changed (another cart, another
// total), confirm: true asks anew and nothing runs.
func TestHumanVerifiedSummaryChanged(t *testing.T) {
	srv, runs := verifiedSite(t, nil)
	defer summaryNote.Store("")
	const in = `{"amount":8,"to":"Hal"}`
	_, d := verifiedCall(t, srv, "alice", in, false)
	decide(t, srv, d.Approval.URL, "approve", aliceBrowser(srv))
	summaryNote.Store(" Plus a fee.")
	if status, d2 := verifiedCall(t, srv, "alice", in, true); status != 428 || d2.Approval == nil || d2.Approval.URL == d.Approval.URL || runs.Load() != 0 {
		t.Errorf("after the summary changed: got %d %+v, %d runs; want 428 with a new approval and nothing run", status, d2.Approval, runs.Load())
	}
}

// TestHumanVerifiedExpiry: an approval not used within ApprovalTTL of its
// decision lapses; the call then asks anew and does not run.
func TestHumanVerifiedExpiry(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	approvals := store.NewMemoryApprovals(&store.MemoryOptions{Now: func() time.Time { return time.Unix(0, now.Load()) }})
	srv, runs := verifiedSite(t, approvals)
	const in = `{"amount":7,"to":"Dan"}`
	_, d := verifiedCall(t, srv, "alice", in, false)
	if got := decide(t, srv, d.Approval.URL, "approve", aliceBrowser(srv)); got != 200 {
		t.Fatalf("approve: %d", got)
	}
	now.Add(int64(store.ApprovalTTL + time.Minute))
	if status, _ := verifiedCall(t, srv, "alice", in, true); status != 428 || runs.Load() != 0 {
		t.Errorf("after expiry: got %d, %d runs; want 428 and nothing run", status, runs.Load())
	}
}

// TestHumanVerifiedStatus: the agent polls the approval as JSON with its
// own token; another account sees nothing.
func TestHumanVerifiedStatus(t *testing.T) {
	srv, _ := verifiedSite(t, nil)
	_, d := verifiedCall(t, srv, "alice", `{"amount":3,"to":"Eve"}`, false)
	status := func(who string) (int, affordances.ApprovalStatus) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+d.Approval.URL, nil)
		req.Header.Set("Accept", affordances.MediaType)
		req.Header.Set("Authorization", "Bearer "+who+"-token")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st affordances.ApprovalStatus
		json.NewDecoder(resp.Body).Decode(&st)
		return resp.StatusCode, st
	}
	if code, st := status("alice"); code != 200 || st.State != affordances.ApprovalPending || st.Action != "pay" {
		t.Errorf("alice polling: got %d %+v, want 200 pending", code, st)
	}
	decide(t, srv, d.Approval.URL, "approve", aliceBrowser(srv))
	if code, st := status("alice"); code != 200 || st.State != affordances.ApprovalApproved {
		t.Errorf("alice polling after approval: got %d %+v, want approved", code, st)
	}
	if code, _ := status("bob"); code != 404 {
		t.Errorf("bob polling alice's approval: got %d, want 404", code)
	}
}

// TestHumanVerifiedForm: the person's own form on the site's page,
// confirmed with its button in their browser, runs the call: that is the
// approval. A form sent with a bearer token does not.
func TestHumanVerifiedForm(t *testing.T) {
	srv, runs := verifiedSite(t, nil)
	post := func(header map[string]string) int {
		form := url.Values{affordances.FormActionField: {"pay"}, affordances.FormConfirmField: {"yes"}, "amount": {"9"}, "to": {"Fay"}}
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/pay", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(map[string]string{"Authorization": "Bearer alice-token", "Origin": srv.URL}); got == http.StatusSeeOther || runs.Load() != 0 {
		t.Errorf("a form with a bearer token: got %d, %d runs; want it not run", got, runs.Load())
	}
	if got := post(aliceBrowser(srv)); got != http.StatusSeeOther || runs.Load() != 1 {
		t.Errorf("alice's confirmed form: got %d, %d runs; want 303 and one run", got, runs.Load())
	}
}

// TestApprovalKeepsItsInput: the input an approval keeps is its own copy,
// not the call's body, whose buffer the next calls are read into: the
// approval page shows, and the approved call runs, what was asked. The
// calls are served one after the other in this goroutine, so the next
// ones are read into the same buffer.
func TestApprovalKeepsItsInput(t *testing.T) {
	mem := store.NewMemoryApprovals(nil)
	var kept []*store.Approval
	srv, _ := verifiedSite(t, recordingApprovals{mem, &kept})
	call := func(who, input string, confirm bool) {
		body := `{"action":"pay","input":` + input + `,"confirm":` + fmt.Sprint(confirm) + `}`
		req := httptest.NewRequest(http.MethodPost, "/pay", strings.NewReader(body))
		req.Header.Set("Content-Type", affordances.MediaType)
		req.Header.Set("Authorization", "Bearer "+who+"-token")
		srv.Config.Handler.ServeHTTP(httptest.NewRecorder(), req)
	}
	const asked = `{"amount":5,"to":"bob"}`
	call("alice", asked, true)
	for i := range 50 {
		call("carol", fmt.Sprintf(`{"amount":%d,"to":"%s"}`, 100+i, strings.Repeat("z", 9)), false)
	}
	alices := 0
	for _, a := range kept {
		if a.Principal == "alice" {
			alices++
			if string(a.Input) != asked {
				t.Errorf("alice's approval kept %s, want %s", a.Input, asked)
			}
		}
	}
	if alices != 1 {
		t.Errorf("alice's call asked for %d approvals, want 1", alices)
	}
}

// recordingApprovals is an approvals store that keeps what it was given to
// keep, as a store that holds the given slices would.
type recordingApprovals struct {
	store.Approvals
	kept *[]*store.Approval
}

func (r recordingApprovals) Request(ctx context.Context, a *store.Approval) (*store.Approval, error) {
	*r.kept = append(*r.kept, a)
	return r.Approvals.Request(ctx, a)
}

// TestApprovalPageFromAnotherSite: the person follows the approval link
// from the assistant's window, another site, and their SameSite=Strict
// session cookie stays behind: the page loads itself again from the
// site, which brings it, rather than asking a signed-in person to sign
// in (issue 37). With the cookie, or asked from the site, the page is
// itself; a decision posted from another site is still refused.
func TestApprovalPageFromAnotherSite(t *testing.T) {
	srv, runs := verifiedSite(t, nil)
	_, d := verifiedCall(t, srv, "alice", `{"amount":3,"to":"Eve"}`, false)
	get := func(header ...string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+d.Approval.URL, nil)
		for i := 0; i < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("Sec-Fetch-Site", "cross-site"); code != 200 || !strings.Contains(body, `http-equiv="refresh" content="0;url=`+d.Approval.URL+`"`) {
		t.Errorf("from another site, without the cookie: got %d\n%s\nwant a page that loads it again", code, body)
	}
	if code, body := get("Sec-Fetch-Site", "cross-site", "Cookie", "who=alice"); code != 200 || !strings.Contains(body, `value="approve"`) {
		t.Errorf("from another site, with the cookie: got %d\n%s\nwant the approval page", code, body)
	}
	if code, body := get("Sec-Fetch-Site", "same-origin"); code != 401 || strings.Contains(body, "refresh") {
		t.Errorf("from the site, without the cookie: got %d, want 401 and the sign-in message", code)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+d.Approval.URL, strings.NewReader("decision=approve"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "who=alice")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://assistant.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || runs.Load() != 0 {
		t.Errorf("an approval posted from another site: got %d, %d runs; want 403, none", resp.StatusCode, runs.Load())
	}
}

// TestApprovalStatesAgree: the wire's approval states are the words the
// stores keep, which the approval page's JSON passes on as they are.
func TestApprovalStatesAgree(t *testing.T) {
	for wire, kept := range map[affordances.ApprovalState]store.ApprovalState{
		affordances.ApprovalPending: store.ApprovalPending, affordances.ApprovalApproved: store.ApprovalApproved, affordances.ApprovalDenied: store.ApprovalDenied,
	} {
		if string(wire) != string(kept) {
			t.Errorf("the wire's %q is the store's %q", wire, kept)
		}
	}
}
