package perf

import (
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"

	"github.com/affordances/affordances-go/internal/benchshop"
	"github.com/affordances/affordances-go/internal/loadtest"
)

// The library against the bench shop written without it (make bench;
// docs/performance.md): for each of the bench's cases and each baseline,
// the two interleaved in one run, as the root package's benchmarks measure
// it against a static handler, each reporting x-<baseline>: the
// baseline's CPU time per request over the library's (above 1, the library
// is cheaper).
//
//   - BenchmarkHandler/<case>/<baseline>: ServeHTTP alone, in process,
//     each on a shop of its own (loadtest.Against).
//   - BenchmarkHTTP/<case>/<baseline>: over loopback HTTP, each in a server
//     process of its own on one core, by the server's CPU time per request
//     (loadtest.ServersAgainst).
//
// Each reports its budget (issue 29), budget-x-<baseline>: in process, the
// library is cheaper than each baseline (1); over HTTP, by the baseline's
// margin (overHTTP).

func TestMain(m *testing.M) { os.Exit(loadtest.Main(m, serve)) }

func BenchmarkHandler(b *testing.B) {
	for _, c := range benchshop.Cases {
		for _, o := range baselines {
			b.Run(c.Name+"/"+o.name, func(b *testing.B) {
				loadtest.Against(b, o.name, o.new(benchshop.New()), benchshop.New().Handler(), c.Request)
				loadtest.BudgetAgainst(b, o.name, 1)
			})
		}
	}
}

func BenchmarkHTTP(b *testing.B) {
	for _, c := range benchshop.Cases {
		for _, o := range baselines {
			b.Run(c.Name+"/"+o.name, func(b *testing.B) {
				loadtest.ServersAgainst(b, o.name, server(b, o.name), server(b, "library"), c.Request, loadtest.Load{})
				loadtest.BudgetAgainst(b, o.name, o.overHTTP)
			})
		}
	}
}

// servers are the server processes of BenchmarkHTTP, started once.
var servers = struct {
	sync.Mutex
	m map[string]*loadtest.Server
}{m: map[string]*loadtest.Server{}}

func server(b *testing.B, name string) *loadtest.Server {
	servers.Lock()
	defer servers.Unlock()
	if s := servers.m[name]; s != nil {
		return s
	}
	s, err := loadtest.Start(name)
	if err != nil {
		b.Fatal(err)
	}
	servers.m[name] = s
	return s
}

// serve is what a server process of BenchmarkHTTP serves: "library", the
// bench shop served by the library, or a baseline by its name.
func serve(name string) (http.Handler, error) {
	if name == "library" {
		return benchshop.New().Handler(), nil
	}
	for _, o := range baselines {
		if o.name == name {
			return o.new(benchshop.New()), nil
		}
	}
	return nil, fmt.Errorf("no server %q", name)
}
