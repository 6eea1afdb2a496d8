package shop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/servicetest"
)

// The tests of this file run the shop as its users run it at scale: demo
// processes of the real command (affordances demo), sharing one
// PostgreSQL and one Redis, behind a round-robin reverse proxy; and the
// SQLite default, one process. They check what several instances must not
// lose (issue 13): stock under a race, Idempotency-Keys, the rate limit,
// sessions and tokens, and acknowledged orders when an instance is killed.

// startInstance runs `affordances demo shop --no-approval` with args and
// token as alice's on a free loopback port (internal/demotest) and waits
// until it listens.
func startInstance(t *testing.T, token string, args ...string) *demotest.Process {
	t.Helper()
	return demotest.Start(t, []string{"AFFORDANCES_DEMO_TOKEN=" + token}, append([]string{"shop", "--no-approval"}, args...)...)
}

// roundRobin serves the instances behind one reverse proxy, in turn, with
// the request's Host kept (the site's origin is the proxy's).
func roundRobin(t *testing.T, ins ...*demotest.Process) *httptest.Server {
	var next atomic.Uint64
	targets := make([]*url.URL, len(ins))
	for i, in := range ins {
		targets[i], _ = url.Parse(in.URL)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targets[next.Add(1)%uint64(len(targets))])
			r.Out.Host = r.In.Host
		},
		ErrorLog: nil,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.WriteHeader(http.StatusBadGateway) // an instance is down
		},
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv
}

// An answer is what one call got back; err is a transport failure.
type answer struct {
	status int
	delta  affordances.Delta
	header http.Header
	err    error
}

// send makes one bearer call; key, when set, is its Idempotency-Key.
func send(base, token, page, action string, input any, confirm bool, key string) answer {
	body, _ := json.Marshal(map[string]any{"action": action, "input": input, "confirm": confirm})
	req, _ := http.NewRequest(http.MethodPost, base+page, bytes.NewReader(body))
	req.Header.Set("Content-Type", affordances.MediaType)
	req.Header.Set("Accept", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set(affordances.IdempotencyHeader, key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header}
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusBadGateway {
		err = json.Unmarshal(b, &a.delta)
	}
	a.err = err
	return a
}

// A fleet is the shop of one test: its data, seen in process by setup (s),
// and its instances behind a proxy.
type fleet struct {
	s       *shop.Shop
	token   string
	args    []string // the instances' flags for their data and stores
	ins     []*demotest.Process
	proxy   *httptest.Server
	users   []string // bearer tokens of customers
	sku     string
	initial int
}

// The two shapes the tests run on.
var shapes = []struct {
	name      string
	instances int
	shared    bool // PostgreSQL and Redis, else the SQLite default
}{
	{"postgres+redis, 2 instances", 2, true},
	{"sqlite, 1 instance", 1, false},
}

// newFleet seeds a shop, adds users customers with tokens and a product
// with stock units, and starts the instances on the same data.
func newFleet(t *testing.T, instances int, shared bool, users, stock int) *fleet {
	t.Helper()
	ctx := context.Background()
	f := &fleet{token: "instances-demo-token", sku: "LAST-UNITS", initial: stock}
	var opts *shop.Options
	if shared {
		db := servicetest.SharedPostgres(t).NewDatabase(t)
		rdb := servicetest.StartRedis(t)
		opts = &shop.Options{Database: db, DemoToken: f.token, NoApproval: true}
		f.args = []string{"--database", db, "--redis", "redis://" + rdb.Addr + "/0"}
	} else {
		dir := t.TempDir()
		opts = &shop.Options{DataDir: dir, DemoToken: f.token, NoApproval: true}
		f.args = []string{"--data", dir}
	}
	s, err := shop.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f.s = s
	if err := s.AddProductForTest(ctx, "last-units", "Last Units", 1000, f.sku, stock); err != nil {
		t.Fatal(err)
	}
	for i := range users {
		tok, err := s.CreateUser(ctx, fmt.Sprintf("racer%d@example.com", i), "password")
		if err != nil {
			t.Fatal(err)
		}
		f.users = append(f.users, tok)
	}
	for range instances {
		f.ins = append(f.ins, startInstance(t, f.token, f.args...))
	}
	f.proxy = roundRobin(t, f.ins...)
	return f
}

// checkOrders checks the database against what the calls acknowledged:
// every acknowledged order is there, whole (its lines add up to its
// total), no order holds more than was in stock, and stock plus what the
// orders hold is what there was.
func (f *fleet) checkOrders(t *testing.T, acknowledged map[string]bool) (orders int) {
	t.Helper()
	ctx := context.Background()
	stock, err := f.s.StockForTest(ctx, f.sku)
	if err != nil {
		t.Fatal(err)
	}
	ordered, orders, err := f.s.OrderedForTest(ctx, f.sku)
	if err != nil {
		t.Fatal(err)
	}
	if stock < 0 || stock+ordered != f.initial {
		t.Errorf("stock %d + ordered %d, want %d in all and stock never negative", stock, ordered, f.initial)
	}
	whole, err := f.s.OrdersForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for id := range acknowledged {
		if !whole[id] {
			t.Errorf("acknowledged order %s is missing or not whole", id)
		}
	}
	for id, ok := range whole {
		if !ok {
			t.Errorf("order %s is half-written: its lines do not add up to its total", id)
		}
	}
	return orders
}

// TestRacingCheckouts: 200 concurrent checkouts from 20 customers, each
// with one unit in the cart, race for the last 5 units: exactly 5 orders,
// stock never negative, each order charged once.
func TestRacingCheckouts(t *testing.T) {
	for _, shape := range shapes {
		t.Run(shape.name, func(t *testing.T) {
			const customers, units, checkouts = 20, 5, 200
			f := newFleet(t, shape.instances, shape.shared, customers, units)
			for _, tok := range f.users {
				if a := send(f.proxy.URL, tok, "/products/last-units", "addToCart", map[string]any{"sku": f.sku}, false, ""); a.status != 200 {
					t.Fatalf("addToCart: %d %v %+v", a.status, a.err, a.delta.Error)
				}
			}
			var wg sync.WaitGroup
			answers := make([]answer, checkouts)
			for i := range checkouts {
				wg.Go(func() {
					answers[i] = send(f.proxy.URL, f.users[i%customers], "/checkout", "placeOrder", map[string]any{}, true, "")
				})
			}
			wg.Wait()
			placed := map[string]bool{}
			byStatus := map[int]int{}
			for _, a := range answers {
				byStatus[a.status]++
				if a.err != nil {
					t.Errorf("a checkout failed in transport: %v", a.err)
				}
				if a.status == 200 {
					id, _ := a.delta.Output.(map[string]any)["orderId"].(string)
					if placed[id] {
						t.Errorf("order %s acknowledged twice", id)
					}
					placed[id] = true
				}
			}
			orders := f.checkOrders(t, placed)
			t.Logf("%d checkouts over %d instance(s): %d orders of %d units, answers by status %v", checkouts, shape.instances, orders, units, byStatus)
			if len(placed) != units || orders != units {
				t.Errorf("%d orders acknowledged, %d in the database; want exactly %d", len(placed), orders, units)
			}
		})
	}
}

// TestKilledInstance: kill -9 an instance in the middle of a load of
// checkouts. No acknowledged order is lost, no order is half-written, and
// the shop keeps serving: the other instance at once, the only one once
// restarted on the same data.
func TestKilledInstance(t *testing.T) {
	for _, shape := range shapes {
		t.Run(shape.name, func(t *testing.T) {
			const customers, rounds = 12, 10
			f := newFleet(t, shape.instances, shape.shared, customers, customers*rounds)
			var (
				mu           sync.Mutex
				acknowledged = map[string]bool{}
				failed       atomic.Int32
				wg           sync.WaitGroup
			)
			for _, tok := range f.users {
				wg.Go(func() {
					for range rounds {
						if a := send(f.proxy.URL, tok, "/products/last-units", "addToCart", map[string]any{"sku": f.sku}, false, ""); a.status != 200 {
							failed.Add(1)
							continue
						}
						a := send(f.proxy.URL, tok, "/checkout", "placeOrder", map[string]any{}, true, "")
						if a.status != 200 {
							failed.Add(1)
							continue
						}
						id, _ := a.delta.Output.(map[string]any)["orderId"].(string)
						mu.Lock()
						acknowledged[id] = true
						mu.Unlock()
					}
				})
			}
			for { // kill once a third of the orders are in, with calls in flight
				mu.Lock()
				n := len(acknowledged)
				mu.Unlock()
				if n >= customers*rounds/3 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			f.ins[0].Kill()
			if shape.instances == 1 {
				f.ins[0].Restart() // the same data, a new process
			}
			wg.Wait()
			for _, in := range f.ins[len(f.ins)-1:] {
				if a := send(in.URL, f.token, "/", "search", map[string]any{"q": "tee"}, false, ""); a.status != 200 {
					t.Errorf("after the kill, %s answered %d %v", in.URL, a.status, a.err)
				}
			}
			orders := f.checkOrders(t, acknowledged)
			t.Logf("%d acknowledged orders, %d in the database, %d calls failed while an instance was down", len(acknowledged), orders, failed.Load())
			if orders < len(acknowledged) {
				t.Errorf("%d orders in the database, fewer than the %d acknowledged", orders, len(acknowledged))
			}
			if len(acknowledged) == 0 {
				t.Error("no order was acknowledged: the load never ran")
			}
		})
	}
}

// TestInstancesShare: two instances behind the proxy share what a single
// one keeps: an Idempotency-Key sent to each runs once; a burst spread
// over both is limited as one instance limits it; a session made on one
// works on the other, and so does a token.
func TestInstancesShare(t *testing.T) {
	f := newFleet(t, 2, true, 2, 100)
	a, b := f.ins[0], f.ins[1]

	t.Run("an Idempotency-Key sent to both instances runs once", func(t *testing.T) {
		first := send(a.URL, f.users[0], "/products/last-units", "addToCart", map[string]any{"sku": f.sku}, false, "shared-key-1")
		second := send(b.URL, f.users[0], "/products/last-units", "addToCart", map[string]any{"sku": f.sku}, false, "shared-key-1")
		if first.status != 200 || second.status != 200 || second.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("got %d then %d (replayed %q), want 200 then a replayed 200", first.status, second.status, second.header.Get("Idempotent-Replayed"))
		}
		if n, err := f.s.CartCountForTest(context.Background(), "racer0@example.com"); err != nil || n != 1 {
			t.Errorf("the cart holds %d (%v), want 1: the call ran once", n, err)
		}
	})

	t.Run("a burst over both instances gets one instance's budget", func(t *testing.T) {
		limit := affordances.Limit{Calls: 60, Per: time.Minute, Burst: 20} // the site's default (SiteOptions.Limit), the shop's for search
		const calls = 60
		start := time.Now()
		var allowed, limited atomic.Int32
		var wg sync.WaitGroup
		for range calls {
			wg.Go(func() {
				switch r := send(f.proxy.URL, f.users[1], "/", "search", map[string]any{"q": "tee"}, false, ""); r.status {
				case 200:
					allowed.Add(1)
				case 429:
					limited.Add(1)
				default:
					t.Errorf("search: %d %v", r.status, r.err)
				}
			})
		}
		wg.Wait()
		// One instance allows the burst, and what the bucket refills until
		// the last call arrives: no more than it refills until the last
		// answer (the budget), no fewer than the burst (the calls may all
		// arrive before a refill, however long the answers take).
		elapsed := time.Since(start)
		budget := float64(limit.Burst) + elapsed.Seconds()*float64(limit.Calls)/limit.Per.Seconds()
		t.Logf("%d calls over 2 instances in %v: %d allowed, %d limited; one instance's burst %d, its budget %.1f",
			calls, elapsed.Round(time.Millisecond), allowed.Load(), limited.Load(), limit.Burst, budget)
		if n := allowed.Load(); float64(n) > math.Floor(budget*1.05)+0.5 || int(n) < limit.Burst {
			t.Errorf("%d allowed, want one instance's: at least its burst %d, at most its budget %.1f (within 5%%)", n, limit.Burst, budget)
		}
	})

	t.Run("a session and a token made on one instance work on the other", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"action": "signIn", "input": map[string]any{"email": shop.DemoEmail, "password": shop.DemoPassword}})
		req, _ := http.NewRequest(http.MethodPost, a.URL+"/login", bytes.NewReader(body))
		req.Header.Set("Content-Type", affordances.MediaType)
		req.Header.Set("Origin", a.URL)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var session *http.Cookie
		for _, c := range resp.Cookies() {
			if c.Value != "" {
				session = c
			}
		}
		if resp.StatusCode != 200 || session == nil {
			t.Fatalf("signIn on one instance: %d, cookies %v", resp.StatusCode, resp.Cookies())
		}
		for _, in := range []*demotest.Process{a, b} {
			req, _ := http.NewRequest(http.MethodGet, in.URL+"/cart", nil)
			req.Header.Set("Accept", affordances.MediaType)
			req.AddCookie(session)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("the session on %s: /cart answered %d, want 200", in.URL, resp.StatusCode)
			}
		}
		made := send(a.URL, f.users[0], "/account/tokens", "createToken", map[string]any{"name": "across"}, false, "")
		token, _ := made.delta.Output.(map[string]any)["token"].(string)
		if made.status != 200 || token == "" {
			t.Fatalf("createToken on one instance: %d %+v", made.status, made.delta.Error)
		}
		if got := send(b.URL, token, "/", "search", map[string]any{"q": "tee"}, false, ""); got.status != 200 {
			t.Errorf("the new token on the other instance: %d %+v", got.status, got.delta.Error)
		}
	})
}
