package affordances_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances/affordances-go/internal/benchshop"
	"github.com/affordances/affordances-go/internal/loadtest"
	"github.com/affordances/affordances-go/internal/pdeathsig"
)

// The budgets of DESIGN.md (make bench; the method and the latest figures
// are in docs/performance.md). Each benchmark compares the library's
// handler with a static one answering the same bytes with the same headers
// (loadtest.Static), the two interleaved in one run:
//
//   - BenchmarkHandler: ServeHTTP alone, in process. Budgets: a graph at
//     least 0.6x the static handler, a call 0.35x.
//   - BenchmarkHTTP: over loopback HTTP, each in a server process of its own
//     on one core, by the server's CPU time per request. Budgets: 0.85x
//     and 0.6x.
//
// The site is a small shop's catalog page (benchshop.Shop), and the
// requests those of real clients (benchshop.Cases): an anonymous agent's
// graph; a signed-in one's (a cookie, one of 1,000 people); a person's call
// from the site's page (cookie and the site's Origin); an agent's call with
// a bearer token and an Idempotency-Key, new for each call. Calls carry a
// real input and come from 1,000 principals, 1,000 keys of the rate
// limiter. The perf module measures the library against the same shop
// written without it (by hand, hand-tuned, in huma).
//
// BenchmarkHandler also reports app-x: the ratio to the static handler of
// the bench shop's own code alone (benchshop.Shop.Alone), the most that any
// library serving this site could reach in process.

func TestMain(m *testing.M) { os.Exit(loadtest.Main(m, serveBench)) }

// budgets returns the budgets of a case: its x-static in process and
// over HTTP, and the least share of what the app alone allows (app-x)
// its x-static must reach in process (issue 29).
func budgets(c benchshop.Case) (handler, overHTTP, appShare float64) {
	if c.Call {
		return 0.35, 0.6, 0.65
	}
	return 0.6, 0.85, 0.75
}

func BenchmarkHandler(b *testing.B) {
	for _, c := range benchshop.Cases {
		b.Run(c.Name, func(b *testing.B) {
			shop := benchshop.New()
			site := shop.Handler()
			static := loadtest.Static(loadtest.Capture(site, c.Request(0)))
			budget, _, share := budgets(c)
			loadtest.Handlers(b, static, site, c.Request)
			loadtest.Budget(b, budget)
			loadtest.Ceiling(b, static, shop.Alone(c, static), c.Request)
			loadtest.BudgetApp(b, share)
		})
	}
}

func BenchmarkHTTP(b *testing.B) {
	for _, c := range benchshop.Cases {
		b.Run(c.Name, func(b *testing.B) {
			site, static := benchServer(b, "site"), benchServer(b, "static "+c.Name)
			_, budget, _ := budgets(c)
			loadtest.Servers(b, static, site, c.Request, loadtest.Load{})
			loadtest.Budget(b, budget)
		})
	}
}

// benchServers are the server processes of BenchmarkHTTP, started once.
var benchServers = struct {
	sync.Mutex
	m map[string]*loadtest.Server
}{m: map[string]*loadtest.Server{}}

func benchServer(b *testing.B, name string) *loadtest.Server {
	benchServers.Lock()
	defer benchServers.Unlock()
	if s := benchServers.m[name]; s != nil {
		return s
	}
	s, err := loadtest.Start(name)
	if err != nil {
		b.Fatal(err)
	}
	benchServers.m[name] = s
	return s
}

// serveBench is what a server process of BenchmarkHTTP serves: "site", the
// bench shop, or "static <case>", the answer the bench shop gives to the
// case's first request, from a slice.
func serveBench(name string) (http.Handler, error) {
	if name == "site" {
		return benchshop.New().Handler(), nil
	}
	for _, c := range benchshop.Cases {
		if name == "static "+c.Name {
			return loadtest.Static(loadtest.Capture(benchshop.New().Handler(), c.Request(0))), nil
		}
	}
	return nil, fmt.Errorf("no server %q", name)
}

// TestBenchmarks runs every benchmark of the package once (-benchtime 1x),
// in this test binary run again, so that they cannot rot between runs of
// make bench; their figures are not looked at.
func TestBenchmarks(t *testing.T) {
	if testing.Short() {
		t.Skip("the benchmarks start server processes")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$", "-test.bench=.", "-test.benchtime=1x")
	pdeathsig.Set(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the benchmarks failed: %v\n%s", err, out)
	}
	for _, c := range benchshop.Cases {
		for _, name := range []string{"BenchmarkHandler/" + c.Name, "BenchmarkHTTP/" + c.Name} {
			if !strings.Contains(string(out), name) {
				t.Errorf("%s did not run:\n%s", name, out)
			}
		}
	}
}
