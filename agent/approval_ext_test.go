package agent_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
)

// verifiedSite serves one human-verified confirm action, pay, on /pay,
// and counts its runs. alice signs in with a cookie (who=alice) or a
// token (alice-token).
func verifiedSite(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	site := affordances.NewSite(&affordances.SiteOptions{
		Name: "Verified",
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
			return fmt.Sprintf("Pay %s $%d.", in.To, in.Amount), nil
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

// decide posts decision on the approval page at path from alice's browser.
func decide(t *testing.T, srv *httptest.Server, path, decision string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(url.Values{"decision": {decision}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "who=alice")
	req.Header.Set("Origin", srv.URL)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
}

// TestClientWaitsForTheApproval: the Client hands the approval page to its
// Approver, waits for the person's decision there, then sends confirm:
// true once: approved, it runs; denied, it does not; undecided, it gives
// up at ApprovalTimeout.
func TestClientWaitsForTheApproval(t *testing.T) {
	srv, runs := verifiedSite(t)
	client := func(person func(url string), timeout time.Duration) *agent.Client {
		c, err := agent.New(http.DefaultClient, srv.URL, &agent.Options{
			Token: "alice-token", ApprovalTimeout: timeout,
			Gate: &aal.Gate{Grants: []aal.Grant{{Class: aal.ClassFinancial}, {Class: aal.ClassDestructive}}},
			Approver: agent.ApproverFunc(func(_ context.Context, req *agent.ApprovalRequest) (bool, error) {
				if req.URL == "" || !strings.HasPrefix(req.URL, srv.URL+affordances.ApprovalsPath) || req.Expires.IsZero() {
					t.Errorf("the approver got no approval page: %+v", req)
					return false, nil
				}
				go person(strings.TrimPrefix(req.URL, srv.URL))
				return true, nil
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	call := func(c *agent.Client, in map[string]any) error {
		p, err := c.Page(t.Context(), "/pay")
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Call(t.Context(), "pay", in)
		return err
	}
	approve := func(path string) { decide(t, srv, path, "approve") }
	deny := func(path string) { decide(t, srv, path, "deny") }
	if err := call(client(approve, 0), map[string]any{"amount": 4, "to": "Gus"}); err != nil || runs.Load() != 1 {
		t.Errorf("approved: got %v, %d runs; want nil and one run", err, runs.Load())
	}
	if err := call(client(deny, 0), map[string]any{"amount": 5, "to": "Gus"}); !errors.Is(err, agent.ErrNotApproved) || runs.Load() != 1 {
		t.Errorf("denied: got %v, %d runs; want ErrNotApproved and no new run", err, runs.Load())
	}
	if err := call(client(func(string) {}, 300*time.Millisecond), map[string]any{"amount": 6, "to": "Gus"}); !errors.Is(err, agent.ErrApprovalTimeout) || runs.Load() != 1 {
		t.Errorf("undecided: got %v, %d runs; want ErrApprovalTimeout and no new run", err, runs.Load())
	}
}
