package affordances_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/affordances/affordances-go"
)

// A consentShop is alice's cart and the address her orders ship to, in
// memory, behind one lock (its database), with an order action whose
// approval covers them ([affordances.Action.Consent]). Its summary is
// deliberately vague ("Order 1 item, $32"), so that only the state's
// digest tells a swapped item or another recipient apart.
type consentShop struct {
	mu      sync.Mutex
	cart    []consentLine
	shipTo  string
	orders  [][]consentLine
	checked bool // order calls Consented in its transaction
	// beforeWrite runs in order's transaction before it reads the cart: a
	// call of someone else's that got there first.
	beforeWrite func()
	srv         *httptest.Server
	logs        bytes.Buffer
}

type consentLine struct {
	SKU   string `json:"sku"`
	Price int    `json:"price"`
}

// entities is the state the page shows and the order holds to.
func (s *consentShop) entities() map[string]any {
	return map[string]any{"cart": append([]consentLine{}, s.cart...), "shipTo": s.shipTo}
}

func newConsentShop(t *testing.T, verify bool) *consentShop {
	t.Helper()
	s := &consentShop{cart: []consentLine{{"TEE-BLK", 3200}}, shipTo: "Alice Example, 1 Main St, Springfield", checked: true}
	site := affordances.NewSite(&affordances.SiteOptions{
		Name:   "Consent",
		Logger: slog.New(slog.NewTextHandler(&s.logs, nil)),
		Authenticate: func(r *http.Request) (affordances.Principal, error) {
			if r.Header.Get("Authorization") == "Bearer alice-token" {
				return affordances.Principal{ID: "alice"}, nil
			}
			if c, err := r.Cookie("who"); err == nil && c.Value == "alice" {
				return affordances.Principal{ID: "alice"}, nil
			}
			return affordances.Principal{}, nil
		},
	})
	rt := site.Route("/checkout", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return &affordances.State{Entities: s.entities()}, nil
	}})
	affordances.AddAction(rt, &affordances.Action{
		Name: "order", Description: "Order the cart", Expose: affordances.ExposeConfirm, Verify: verify,
		Summary: affordances.Summarize(func(_ context.Context, r *affordances.Request, _ struct{}) (string, error) {
			var total int
			cart := r.State.Entities["cart"].([]consentLine)
			for _, l := range cart {
				total += l.Price
			}
			return fmt.Sprintf("Order %d items, $%d.", len(cart), total/100), nil
		}),
		Consent: []string{"cart", "shipTo"},
	}, func(_ context.Context, r *affordances.Request, _ struct{}) (struct{}, error) {
		if s.beforeWrite != nil {
			s.beforeWrite()
		}
		s.mu.Lock() // the transaction
		defer s.mu.Unlock()
		if s.checked {
			if err := r.Consented(s.entities()); err != nil {
				return struct{}{}, err
			}
		}
		s.orders = append(s.orders, s.cart)
		s.cart = nil
		return struct{}{}, nil
	})
	s.srv = httptest.NewServer(site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := affordances.PageFrom(r.Context()).Form().For("order")
		var confirm string
		if f != nil {
			confirm = f.Confirm
		}
		fmt.Fprintf(w, "<!doctype html><title>Checkout</title><p class=confirm>%s</p><form method=post>%s</form>",
			html.EscapeString(confirm), f.ConfirmFields())
	})))
	t.Cleanup(s.srv.Close)
	return s
}

// set changes the cart and the address, as alice's agent may between her
// approval and the order.
func (s *consentShop) set(cart []consentLine, shipTo string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cart, s.shipTo = cart, shipTo
}

func (s *consentShop) ordered() [][]consentLine {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]consentLine{}, s.orders...)
}

// call makes alice's agent's call of order.
func (s *consentShop) call(t *testing.T, confirm bool) (int, affordances.Delta) {
	t.Helper()
	body := fmt.Sprintf(`{"action":"order","confirm":%v}`, confirm)
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/checkout", strings.NewReader(body))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer alice-token")
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

// approved asks for order's approval and has alice approve it in her
// browser; it returns the approval's URL.
func (s *consentShop) approved(t *testing.T) string {
	t.Helper()
	status, d := s.call(t, false)
	if status != http.StatusPreconditionRequired || d.Approval == nil {
		t.Fatalf("order without confirm: got %d %+v, want 428 with an approval", status, d.Error)
	}
	if got := decide(t, s.srv, d.Approval.URL, "approve", map[string]string{"Cookie": "who=alice", "Origin": s.srv.URL}); got != http.StatusOK {
		t.Fatalf("alice approving: got %d, want 200", got)
	}
	return d.Approval.URL
}

// TestConsentBindsTheState: alice approves "Order 1 items, $32" for her
// tee, shipped to her; if her agent then swaps the tee for another item
// of the same price, or ships to another address, the summary reads the
// same, yet confirm: true asks her again and nothing is ordered
// (docs/protocol.md decision 10). Unchanged, the approval places the order once.
func TestConsentBindsTheState(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cart   []consentLine
		shipTo string
	}{
		{"another item of the same price", []consentLine{{"MUG-RED", 3200}}, "Alice Example, 1 Main St, Springfield"},
		{"a lookalike recipient", []consentLine{{"TEE-BLK", 3200}}, "Mallory Mule, 1 Main St, Springfield"},
		{"one item more", []consentLine{{"TEE-BLK", 3200}, {"TEE-BLK", 3200}}, "Alice Example, 1 Main St, Springfield"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newConsentShop(t, true)
			link := s.approved(t)
			s.set(tc.cart, tc.shipTo)
			status, d := s.call(t, true)
			if status != http.StatusPreconditionRequired || d.Approval == nil || d.Approval.URL == link || len(s.ordered()) != 0 {
				t.Fatalf("confirm: true after the change: got %d %+v approval %+v, %d orders; want 428 with a new approval and none", status, d.Error, d.Approval, len(s.ordered()))
			}
		})
	}
	t.Run("unchanged", func(t *testing.T) {
		s := newConsentShop(t, true)
		s.approved(t)
		if status, d := s.call(t, true); status != http.StatusOK || !d.OK || len(s.ordered()) != 1 {
			t.Fatalf("the approved call: got %d %+v, %d orders; want 200 and one", status, d.Error, len(s.ordered()))
		}
		if strings.Contains(s.logs.String(), "Consented") {
			t.Errorf("the site logged: %s", s.logs.String())
		}
	})
}

// TestConsentCheckedWhereItWrites: between the check before the action and
// its transaction, a call that got there first adds two items; the action
// finds it with Request.Consented, undoes itself, and the call is answered
// with a new approval for the cart as it now is, whose message says what
// was approved changed. Approved in turn, it orders the three items.
func TestConsentCheckedWhereItWrites(t *testing.T) {
	s := newConsentShop(t, true)
	s.approved(t)
	s.beforeWrite = func() {
		s.set([]consentLine{{"TEE-BLK", 3200}, {"TEE-BLK", 3200}, {"TEE-BLK", 3200}}, s.shipTo)
		s.beforeWrite = nil
	}
	status, d := s.call(t, true)
	if status != http.StatusPreconditionRequired || d.Approval == nil || len(s.ordered()) != 0 {
		t.Fatalf("confirm: true, the cart grown in the meantime: got %d %+v approval %+v, %d orders; want 428 with a new approval, none ordered", status, d.Error, d.Approval, len(s.ordered()))
	}
	if want := "What was confirmed changed before it ran, so nothing ran. Now: Order 3 items, $96."; !strings.HasPrefix(d.Error.Message, want) {
		t.Errorf("the message: got %q, want it to start %q", d.Error.Message, want)
	}
	if got := decide(t, s.srv, d.Approval.URL, "approve", map[string]string{"Cookie": "who=alice", "Origin": s.srv.URL}); got != http.StatusOK {
		t.Fatalf("alice approving the new cart: got %d", got)
	}
	if status, d := s.call(t, true); status != http.StatusOK || !d.OK || len(s.ordered()) != 1 || len(s.ordered()[0]) != 3 {
		t.Fatalf("confirm: true, approved again: got %d %+v, orders %v; want one order of 3", status, d.Error, s.ordered())
	}
}

// TestConsentUnchecked: an action that declares Consent but never calls
// Request.Consented runs on the check before it, and the site logs, once,
// that it was not checked where it writes.
func TestConsentUnchecked(t *testing.T) {
	s := newConsentShop(t, true)
	s.checked = false
	for range 2 {
		s.approved(t)
		if status, _ := s.call(t, true); status != http.StatusOK {
			t.Fatalf("the approved call: got %d, want 200", status)
		}
		s.set([]consentLine{{"TEE-BLK", 3200}}, s.shipTo)
	}
	if n := strings.Count(s.logs.String(), "without calling Request.Consented"); n != 1 {
		t.Errorf("the site logged the unchecked consent %d times, want once:\n%s", n, s.logs.String())
	}
}

// TestConsentForm: the person's own confirmation page carries the digest
// of what it showed; when the cart changed before they pressed the button,
// the page asks again with the new summary and nothing ran; confirmed on
// the page as it now is, the order is placed. The same holds for a confirm
// action that is not human-verified.
func TestConsentForm(t *testing.T) {
	for _, verify := range []bool{true, false} {
		t.Run(fmt.Sprintf("verify %v", verify), func(t *testing.T) {
			s := newConsentShop(t, verify)
			post := func(values url.Values) (int, string) {
				req, _ := http.NewRequest(http.MethodPost, s.srv.URL+"/checkout", strings.NewReader(values.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Cookie", "who=alice")
				req.Header.Set("Origin", s.srv.URL)
				c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, html.UnescapeString(string(b))
			}
			// fields reads the hidden fields the confirmation page posts.
			fields := func(page string) url.Values {
				v := url.Values{}
				for _, m := range regexp.MustCompile(`name="([^"]+)" value="([^"]*)"`).FindAllStringSubmatch(page, -1) {
					v.Add(m[1], m[2])
				}
				return v
			}
			_, page := post(url.Values{affordances.FormActionField: {"order"}})
			confirm := fields(page)
			if confirm.Get(affordances.FormConsentField) == "" || !strings.Contains(page, "Order 1 items, $32.") {
				t.Fatalf("the confirmation page: got %s, want the summary and a %s field", page, affordances.FormConsentField)
			}
			s.set([]consentLine{{"MUG-RED", 3200}}, s.shipTo)
			status, page := post(confirm)
			if status != http.StatusOK || !strings.Contains(page, "What was confirmed changed before it ran, so nothing ran. Now: Order 1 items, $32.") || len(s.ordered()) != 0 {
				t.Fatalf("confirmed after the cart changed: got %d %s, %d orders; want the page asking again, none", status, page, len(s.ordered()))
			}
			if status, _ := post(fields(page)); status != http.StatusSeeOther || len(s.ordered()) != 1 || s.ordered()[0][0].SKU != "MUG-RED" {
				t.Fatalf("confirmed on the page as it is: got %d, orders %v; want 303 and the mug ordered", status, s.ordered())
			}
		})
	}
}

// TestConsentDeclaration: Consent is for confirm actions, each entity named
// once.
func TestConsentDeclaration(t *testing.T) {
	site := affordances.NewSite(nil)
	rt := site.Route("/x", nil)
	summary := affordances.Summarize(func(context.Context, *affordances.Request, struct{}) (string, error) { return "", nil })
	run := func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil }
	for _, tc := range []struct {
		name string
		a    affordances.Action
		want string
	}{
		{"a session action", affordances.Action{Name: "a", Description: "A", Expose: affordances.ExposeSession, Consent: []string{"cart"}}, "Consent is for confirm actions"},
		{"an entity twice", affordances.Action{Name: "b", Description: "B", Expose: affordances.ExposeConfirm, Summary: summary, Consent: []string{"cart", "cart"}}, `Consent names the entity "cart" twice or empty`},
		{"an empty name", affordances.Action{Name: "c", Description: "C", Expose: affordances.ExposeConfirm, Summary: summary, Consent: []string{""}}, `Consent names the entity "" twice or empty`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := fmt.Sprint(recover()); !strings.Contains(got, tc.want) {
					t.Errorf("got panic %q, want it to say %q", got, tc.want)
				}
			}()
			affordances.AddAction(rt, &tc.a, run)
		})
	}
}
