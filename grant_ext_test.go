package affordances_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// ceiling is a grant's spending ceiling, kept as the authorization server
// would keep it: what is left, taken under a lock.
type ceiling struct {
	mu   sync.Mutex
	left float64
}

func (c *ceiling) spend(_ context.Context, cost aal.Cost) (func(context.Context), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cost.Currency != "USD" || cost.Amount > c.left {
		return nil, affordances.ErrOverCeiling
	}
	c.left -= cost.Amount
	return func(context.Context) {
		c.mu.Lock()
		c.left += cost.Amount
		c.mu.Unlock()
	}, nil
}

// grantSite serves /shop with an action of each trust class: look (safe),
// note (no AAL metadata), profile (personal), buy (financial, $30 a call;
// "fail" makes it fail), wipe (admin), and order (a human-verified confirm
// of $30). A bearer token "NAME" is a grant of those classes, comma
// separated ("user,financial"), spending from spent.
func grantSite(t *testing.T, spent *ceiling) (http.Handler, *atomic.Int32) {
	t.Helper()
	var runs atomic.Int32
	site := affordances.NewSite(&affordances.SiteOptions{
		OAuth: "/.well-known/oauth-protected-resource",
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok {
				return affordances.Principal{}, nil
			}
			g := &affordances.Grant{Client: "https://assistant.example/client.json"}
			for c := range strings.SplitSeq(tok, ",") {
				g.Trust = append(g.Trust, aal.Trust(c))
			}
			if spent != nil {
				g.Spend = spent.spend
			}
			return affordances.Principal{ID: "alice", Grant: g}, nil
		},
	})
	var broken atomic.Bool // the page cannot be loaded again
	rt := site.Route("/shop", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		if broken.Swap(false) {
			return nil, errors.New("the database went away")
		}
		return &affordances.State{Entities: map[string]any{"price": 30}}, nil
	}})
	run := func(_ context.Context, _ *affordances.Request, in struct {
		Fail  bool `json:"fail,omitempty"`
		Break bool `json:"break,omitempty"` // it runs, then the reload fails
	}) (struct{}, error) {
		if in.Fail {
			return struct{}{}, affordances.NewError(affordances.Unavailable, "Out of stock.")
		}
		runs.Add(1)
		broken.Store(in.Break)
		return struct{}{}, nil
	}
	cost := func(e map[string]any) *aal.Cost { return &aal.Cost{Currency: "USD", Amount: float64(e["price"].(int))} }
	for _, a := range []*affordances.Action{
		{Name: "look", ReadOnly: true, AAL: &aal.Meta{Action: aal.Navigate, Trust: aal.TrustSafe}},
		{Name: "note"},
		{Name: "profile", AAL: &aal.Meta{Action: aal.Update, Trust: aal.TrustPersonal, Reversible: true}},
		{Name: "buy", AAL: &aal.Meta{Action: aal.Purchase, Trust: aal.TrustFinancial, Cost: cost}},
		{Name: "wipe", AAL: &aal.Meta{Action: aal.Delete, Trust: aal.TrustAdmin, Destructive: true}},
		{Name: "order", Expose: affordances.ExposeConfirm, Verify: true, AAL: &aal.Meta{Action: aal.Purchase, Trust: aal.TrustFinancial, Cost: cost},
			Summary: affordances.Summarize(func(context.Context, *affordances.Request, struct {
				Fail  bool `json:"fail,omitempty"`
				Break bool `json:"break,omitempty"`
			}) (string, error) {
				return "Order for $30.", nil
			})},
	} {
		a.Description = "Does " + a.Name + "."
		if a.Expose == "" {
			a.Expose = affordances.ExposeSession
		}
		affordances.AddAction(rt, a, run)
	}
	return site.Handler(http.NotFoundHandler()), &runs
}

// TestGrantScopes: an assistant's token calls the actions of the trust
// classes the person granted it, safe always and an action without AAL
// metadata as user; anything else is 403 insufficient_scope, with
// WWW-Authenticate naming the scope and the protected resource metadata
// (docs/protocol.md decision 14, RFC 6750 section 3.1). A call without a token is 401
// pointing to that metadata; the index names it.
func TestGrantScopes(t *testing.T) {
	h, runs := grantSite(t, &ceiling{left: 1000})
	const meta = `resource_metadata="http://shop.test/.well-known/oauth-protected-resource"`
	for _, tc := range []struct {
		grant, action string
		status        int
		challenge     string
	}{
		{"user", "look", 200, ""},
		{"user", "note", 200, ""},
		{"safe", "note", 403, `Bearer error="insufficient_scope", scope="user", ` + meta},
		{"user", "profile", 403, `Bearer error="insufficient_scope", scope="personal", ` + meta},
		{"user,personal", "profile", 200, ""},
		{"user", "buy", 403, `Bearer error="insufficient_scope", scope="financial", ` + meta},
		{"user,financial", "buy", 200, ""},
		{"user,financial,personal", "wipe", 403, `Bearer error="insufficient_scope", scope="admin", ` + meta},
		{"admin", "wipe", 200, ""},
		{"", "note", 401, "Bearer " + meta},
	} {
		before := runs.Load()
		r := post("/shop", `{"action":"`+tc.action+`"}`)
		if tc.grant != "" {
			r.Header.Set("Authorization", "Bearer "+tc.grant)
		}
		res := do(t, h, r)
		ran := runs.Load() - before
		if res.status != tc.status || res.header.Get("WWW-Authenticate") != tc.challenge || (ran == 1) != (tc.status == 200) {
			t.Errorf("%s with a grant of %q: got %d, WWW-Authenticate %q, %d runs; want %d, %q", tc.action, tc.grant, res.status, res.header.Get("WWW-Authenticate"), ran, tc.status, tc.challenge)
		}
		if tc.status == 403 && res.code() != affordances.Unauthorized {
			t.Errorf("%s with a grant of %q: got code %s, want unauthorized", tc.action, tc.grant, res.code())
		}
	}
	var idx affordances.SiteIndex
	if res := do(t, h, httptest.NewRequest("GET", affordances.IndexPath, nil)); json.Unmarshal(res.body, &idx) != nil || idx.OAuth != "/.well-known/oauth-protected-resource" {
		t.Errorf("the index's oauth: got %q, want the protected resource metadata", idx.OAuth)
	}
}

// TestGrantCeiling: a financial grant spends what the person let it,
// and no more: calls of $30 on a ceiling of $100 run three times, the
// fourth is insufficient_scope; a call that fails gives its cost back;
// calls at once never spend past the ceiling. A grant is never consent
// to a confirm action: a human-verified one still needs the approval
// page, and spends nothing until it runs.
func TestGrantCeiling(t *testing.T) {
	spent := &ceiling{left: 100}
	h, runs := grantSite(t, spent)
	call := func(action, input string) response {
		r := post("/shop", `{"action":"`+action+`","input":`+input+`}`)
		r.Header.Set("Authorization", "Bearer user,financial")
		return do(t, h, r)
	}
	if res := call("buy", `{"fail":true}`); res.status != 409 || spent.left != 100 {
		t.Errorf("a buy that failed: got %d and $%v left, want 409 and $100", res.status, spent.left)
	}
	if res := call("order", `{}`); res.status != 428 || res.delta.Approval == nil || spent.left != 100 {
		t.Errorf("a human-verified order: got %d %+v and $%v left, want 428 with an approval page and $100", res.status, res.delta.Approval, spent.left)
	}
	// A buy that ran, whose page then could not be loaded again, spent.
	if res := call("buy", `{"break":true}`); res.status != 500 || spent.left != 70 {
		t.Errorf("a buy that ran, then a failed reload: got %d and $%v left, want 500 and $70 (it ran)", res.status, spent.left)
	}
	spent.left = 100
	runs.Store(0)
	var wg sync.WaitGroup
	var ok atomic.Int32
	for range 6 {
		wg.Go(func() {
			if call("buy", `{}`).status == 200 {
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 3 || runs.Load() != 3 || spent.left != 10 {
		t.Errorf("six buys of $30 at once on $100: got %d ok, %d runs, $%v left; want 3, 3, $10", ok.Load(), runs.Load(), spent.left)
	}
	if res := call("buy", `{}`); res.status != 403 || !strings.Contains(res.header.Get("WWW-Authenticate"), `scope="financial"`) {
		t.Errorf("a buy over the ceiling: got %d %q, want 403 insufficient_scope for financial", res.status, res.header.Get("WWW-Authenticate"))
	}

	// A financial grant with no ceiling to spend from spends nothing.
	h, _ = grantSite(t, nil)
	r := post("/shop", `{"action":"buy"}`)
	r.Header.Set("Authorization", "Bearer user,financial")
	if res := do(t, h, r); res.status != 403 {
		t.Errorf("a buy on a grant that may spend nothing: got %d, want 403", res.status)
	}
}
