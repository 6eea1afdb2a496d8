package mcpbridge_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/mcpbridge"
)

// orderSummary is the shop's summary of the order checkout makes.
const orderSummary = "Place order: 2 × Canvas Tote (Natural) $36.00; total $36.00, card ending 4242, ship to Alice Liddell, 1 Main St, Springfield 12345, US."

// browserSession signs alice in to the shop as her browser does, with the
// shop's signIn action over HTTP, and returns her session's Cookie header.
func browserSession(t *testing.T, d *demo) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"action": "signIn", "input": map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}})
	req, _ := http.NewRequest(http.MethodPost, d.url+"/login", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Origin", d.url)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var cookies []string
	for _, c := range res.Cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	if res.StatusCode != http.StatusOK || len(cookies) == 0 {
		t.Fatalf("signIn: got %d and cookies %q, want 200 and a session", res.StatusCode, cookies)
	}
	return strings.Join(cookies, "; ")
}

// decide posts the person's decision ("approve", "deny") on the approval
// page u, from their browser session.
func decide(t *testing.T, d *demo, u, decision, session string) {
	t.Helper()
	if !strings.HasPrefix(u, d.url+affordances.ApprovalsPath) {
		t.Errorf("approval page %q: want a page of the shop under %s", u, affordances.ApprovalsPath)
		return
	}
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(url.Values{"decision": {decision}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", session)
	req.Header.Set("Origin", d.url)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("%s on the approval page: got %d, want 200", decision, res.StatusCode)
	}
}

// approval is the approval page of an execute_affordance result.
func approval(out map[string]any) (page map[string]any, u string) {
	page, _ = out["approval"].(map[string]any)
	u, _ = page["url"].(string)
	return page, u
}

// errorCode is the code of the error in a result's delta.
func errorCode(out map[string]any) any {
	delta, _ := out["delta"].(map[string]any)
	e, _ := delta["error"].(map[string]any)
	return e["code"]
}

// placeOrder calls placeOrder on the checkout, with a progress token.
func placeOrder(t *testing.T, cs *mcp.ClientSession, d *demo) (map[string]any, *mcp.CallToolResult) {
	t.Helper()
	params := &mcp.CallToolParams{Name: "execute_affordance", Arguments: map[string]any{"url": d.url + "/checkout", "action": "placeOrder"}}
	params.SetProgressToken(orderProgress)
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatalf("placeOrder: %v", err)
	}
	return structured(res), res
}

// orderProgress is the progress token of placeOrder's calls.
const orderProgress = "order"

// TestApprovalByURLElicitation: when the shop wants placeOrder approved
// on its own page, a client with URL elicitation is asked to send the
// person there, never a form; the order is placed, once, only when the
// person approved on the page (issue 14).
func TestApprovalByURLElicitation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		protocol  string // the client's MCP version: "" the latest
		decision  string // what the person does on the page: "approve", "deny", "" nothing
		answer    string // their answer to the elicitation
		wantOrder int
		wantState string
		wantText  string
		// slow is a person who decides more than a second after the page
		// opened, and answers the elicitation after: the decision has moved
		// the approval's expiry (it is kept for its TTL from then).
		slow bool
		// later is a person who answers the elicitation at once and
		// decides once the bridge tells the client, by a progress
		// notification, that it waits for them.
		later bool
	}{
		{"approved on the page", "", "approve", "accept", 1, "approved", "", false, false},
		// Before 2026-07-28 the SDK's server elicits within the call.
		{"approved on the page, 2025-11-25", "2025-11-25", "approve", "accept", 1, "approved", "", false, false},
		{"approved a while later, 2025-11-25", "2025-11-25", "approve", "accept", 1, "approved", "", true, false},
		{"approved after answering", "", "approve", "accept", 1, "approved", "", false, true},
		{"denied on the page", "", "deny", "accept", 0, "denied", "denied this call on the site's approval page", false, false},
		{"denied on the page, 2025-11-25", "2025-11-25", "deny", "accept", 0, "denied", "denied this call on the site's approval page", false, false},
		{"declined to go", "", "", "decline", 0, "pending", "declined to open the site's approval page", false, false},
		{"cancelled", "", "", "cancel", 0, "pending", "declined to open the site's approval page", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := openDemo(t, nil)
			session := browserSession(t, d)
			p := &person{answer: tc.answer, url: true, protocol: tc.protocol}
			if tc.later {
				p.waiting = make(chan struct{})
			}
			if tc.decision != "" {
				p.onPage = func(u string) {
					if tc.later {
						decided := make(chan struct{})
						t.Cleanup(func() { <-decided })
						go func() {
							defer close(decided)
							select {
							case <-p.waiting:
							case <-time.After(10 * time.Second): // no progress: the test fails below
							}
							decide(t, d, u, tc.decision, session)
						}()
						return
					}
					if tc.slow {
						time.Sleep(1100 * time.Millisecond)
					}
					decide(t, d, u, tc.decision, session)
				}
			}
			// The wait ends when the person decides; 30 s only bounds a slow one (3 s ran out under -race in make check).
			cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{d.url}, Token: d.shop.Token(), ApprovalTimeout: 30 * time.Second}), p)
			checkout(t, cs, d)
			out, res := placeOrder(t, cs, d)
			if got := d.count(t, "orders"); got != tc.wantOrder {
				t.Errorf("orders: got %d, want %d", got, tc.wantOrder)
			}
			page, u := approval(out)
			if page["state"] != tc.wantState || !strings.HasPrefix(u, d.url+affordances.ApprovalsPath) || page["expires"] == nil {
				t.Errorf("approval: got %v, want state %s, the shop's page and its expiry", page, tc.wantState)
			}
			if tc.wantOrder == 1 {
				if res.IsError || out["ok"] != true || out["approved"] != true {
					t.Errorf("placeOrder: got %v (%s), want ok and approved", out, text(res))
				}
			} else if !res.IsError || out["ok"] != false || errorCode(out) != "confirm_required" || !strings.Contains(text(res), tc.wantText) {
				t.Errorf("placeOrder: got %v (%s), want a tool result, ok false with the confirm_required delta, saying %q", out, text(res), tc.wantText)
			}
			if creds, _ := out["credentials"].(string); !strings.HasPrefix(creds, "token: sent") {
				t.Errorf("credentials: got %q, want the token sent to %s only", creds, d.url)
			}

			// Notifications travel on their own (the complete one after the
			// tool result, before 2026-07-28, which has none): give them a
			// moment to arrive.
			old := tc.protocol == "2025-11-25"
			for deadline := time.Now().Add(5 * time.Second); tc.decision != "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				p.mu.Lock()
				arrived := (len(p.completed) > 0 || !old) && (!tc.later || len(p.progress) > 0)
				p.mu.Unlock()
				if arrived {
					break
				}
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			// An elicitationId only before 2026-07-28, which removed it with
			// notifications/elicitation/complete.
			if len(p.asked) != 1 || p.asked[0].Mode != "url" || p.asked[0].URL != u || (p.asked[0].ElicitationID != "") != old {
				t.Fatalf("elicitations: got %+v, want one, in url mode, for %s, with an elicitationId: %v", p.asked, u, old)
			}
			if msg := p.asked[0].Message; !strings.Contains(msg, "The site says: "+orderSummary) || !strings.Contains(msg, "Approve or Deny there") {
				t.Errorf("the person read %q, want the shop's summary and where to decide", msg)
			}
			// The decision on the page ends the visit the client opened:
			// before 2026-07-28 a notification says so.
			wantCompleted := tc.decision != "" && old
			if got := len(p.completed) == 1 && p.completed[0] == p.asked[0].ElicitationID; got != wantCompleted {
				t.Errorf("elicitation complete: got %q for %q, want notified: %v", p.completed, p.asked[0].ElicitationID, wantCompleted)
			}
			// While it waits for the person's decision, and only then, the
			// bridge says so, for the call's progress token, its progress
			// growing.
			if tc.later != (len(p.progress) > 0) {
				t.Errorf("progress notifications: got %d, want some: %v", len(p.progress), tc.later)
			}
			for i, n := range p.progress {
				if n.ProgressToken != orderProgress || !strings.Contains(n.Message, "approval page") || i > 0 && n.Progress <= p.progress[i-1].Progress {
					t.Errorf("progress %d: got %+v, want token %q, growing, and a message about the approval page", i, n, orderProgress)
				}
			}
		})
	}
}

// TestApprovalWithoutURLElicitation: a client that cannot send the person
// to the page gets no form for placeOrder, but a result with the page; the
// same call made again places the order once the person approved there.
func TestApprovalWithoutURLElicitation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		person *person // nil: a client without elicitation
	}{
		{"form elicitation only", &person{answer: "accept"}},
		{"no elicitation", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := openDemo(t, nil)
			cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{d.url}, Token: d.shop.Token(), ApprovalTimeout: 3 * time.Second}), tc.person)
			checkout(t, cs, d)
			out, res := placeOrder(t, cs, d)
			page, u := approval(out)
			if !res.IsError || out["ok"] != false || errorCode(out) != "confirm_required" || d.count(t, "orders") != 0 {
				t.Fatalf("placeOrder: got %v (%s), want a tool result, ok false with the confirm_required delta, and no order", out, text(res))
			}
			at, _ := page["expires"].(string)
			expires, _ := time.Parse(time.RFC3339, at)
			if page["state"] != "pending" || !strings.HasPrefix(u, d.url+affordances.ApprovalsPath) || time.Until(expires) < time.Minute {
				t.Errorf("approval: got %v, want pending at the shop's page, expiring later", page)
			}
			// The page is linked too (resource_link), for the client to show
			// the person.
			if l, ok := res.Content[len(res.Content)-1].(*mcp.ResourceLink); !ok || l.URI != u || l.Name != "approval page" {
				t.Errorf("placeOrder: content %+v, want its last a resource_link to %s", res.Content, u)
			}
			next, _ := page["next"].(string)
			for _, want := range []string{"open " + u, "same url, action and input", expires.Format(time.RFC3339)} {
				if !strings.Contains(next, want) {
					t.Errorf("next: got %q, want it to say %q", next, want)
				}
			}

			// The model asks again before the person approved: still nothing.
			if out, _ := placeOrder(t, cs, d); d.count(t, "orders") != 0 {
				t.Fatalf("placeOrder again before the approval: got %v, want no order", out)
			} else if _, again := approval(out); again != u {
				t.Errorf("placeOrder again: got the page %q, want the same %q", again, u)
			}

			decide(t, d, u, "approve", browserSession(t, d))
			out, res = placeOrder(t, cs, d)
			if got := d.count(t, "orders"); got != 1 || res.IsError || out["ok"] != true || out["approved"] != true {
				t.Errorf("placeOrder after the approval: got %v (%s) and %d orders, want ok, approved, and one order", out, text(res), got)
			}
			if tc.person != nil && len(tc.person.asked) != 0 {
				t.Errorf("elicitations: got %+v, want none (no form for a call approved on the site's page)", tc.person.asked)
			}
		})
	}
}

// TestModelCannotApprove: nothing the model sends, and no accept of a
// client that never opened the page, places an order the person did not
// approve on the shop's page.
func TestModelCannotApprove(t *testing.T) {
	t.Parallel()
	d := openDemo(t, nil)
	// A host that accepts every URL elicitation without showing it.
	p := &person{answer: "accept", url: true}
	cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{d.url}, Token: d.shop.Token(), ApprovalTimeout: 200 * time.Millisecond}), p)
	checkout(t, cs, d)
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"confirm beside the input", map[string]any{"confirm": true}},
		{"approved beside the input", map[string]any{"approved": true}},
		{"approval beside the input", map[string]any{"approval": map[string]any{"state": "approved"}}},
		{"confirm in the input", map[string]any{"input": map[string]any{"confirm": true}}},
		{"accepted, never approved", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"url": d.url + "/checkout", "action": "placeOrder"}
			for k, v := range tc.args {
				args[k] = v
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "execute_affordance", Arguments: args})
			if got := d.count(t, "orders"); got != 0 {
				t.Fatalf("orders: got %d, want 0", got)
			}
			if err == nil && (!res.IsError || strings.Contains(text(res), `"ok":true`)) {
				t.Errorf("placeOrder: got %s, want refused", text(res))
			}
		})
	}
	out, _ := placeOrder(t, cs, d)
	if page, _ := approval(out); page["state"] != "pending" || !strings.Contains(fmt.Sprint(page["next"]), "has not approved") {
		t.Errorf("after the accept: got %v, want pending and not approved yet", page)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.asked {
		if e.Mode != "url" {
			t.Errorf("elicitation %+v: want url mode only, never a form the host could accept", e)
		}
	}
	if len(p.asked) == 0 || d.count(t, "orders") != 0 {
		t.Errorf("got %d elicitations and %d orders, want the person sent to the page and no order", len(p.asked), d.count(t, "orders"))
	}
}
