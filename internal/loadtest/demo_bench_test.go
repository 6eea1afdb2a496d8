package loadtest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// BenchmarkDemo measures the demo shop as its users run it: the real
// command (affordances demo, SQLite, --no-approval) in a process of its
// own on one core, against http.FileServer in another serving the same
// bytes (what the demo answered to the first request, as index.html), over
// loopback HTTP, by each server's CPU time per request (Servers). Budgets
// (DESIGN.md): the graph of / at least 0.5x the file server, the search
// action 0.3x. The graph is asked for anonymously; the searches come from
// anonymous clients at 500 addresses, as the shop's rate limit (20 calls
// in a burst per address) lets through.
func BenchmarkDemo(b *testing.B) {
	for _, c := range []struct {
		name    string
		budget  float64
		load    Load
		request func(i int) *http.Request
	}{
		{"graph", 0.5, Load{}, func(int) *http.Request {
			r, _ := http.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("Accept", demoMediaType)
			return r
		}},
		{"search", 0.3, Load{Sources: 500}, func(int) *http.Request {
			r, _ := http.NewRequest(http.MethodPost, "/", strings.NewReader(`{"action":"search","input":{"q":"cotton tee"}}`))
			r.Header.Set("Content-Type", demoMediaType)
			r.Header.Set("Accept", demoMediaType)
			return r
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			demo, err := demoServer()
			if err != nil {
				b.Fatal(err)
			}
			files, err := fileServer(c.name, demo, c.request(0))
			if err != nil {
				b.Fatal(err)
			}
			Servers(b, files, demo, c.request, c.load)
			Budget(b, c.budget)
		})
	}
}

// demoMediaType is the Affordances media type (the root package's
// MediaType; this package does not import it).
const demoMediaType = "application/vnd.affordances+json"

// demoServer is the demo shop of BenchmarkDemo, built and started once.
var demoServer = sync.OnceValues(func() (*Server, error) {
	dir, err := tempDir()
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "affordances")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/affordances/affordances-go/cmd/affordances").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %v\n%s", err, out)
	}
	return StartCommand([]string{"HOME=" + dir}, bin, "demo", "--addr", "{addr}", "--no-approval", "--data", filepath.Join(dir, "data"))
})

// fileServers are the baselines of BenchmarkDemo, one per request kind.
var fileServers = struct {
	sync.Mutex
	m map[string]*Server
}{m: map[string]*Server{}}

// fileServer returns the file server of kind name: one that answers every
// request with what demo answered to r.
func fileServer(name string, demo *Server, r *http.Request) (*Server, error) {
	fileServers.Lock()
	defer fileServers.Unlock()
	if s := fileServers.m[name]; s != nil {
		return s, nil
	}
	r.URL.Scheme, r.URL.Host = "http", demo.URL[len("http://"):]
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the demo answered %s: %s", res.Status, body)
	}
	dir, err := tempDir()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), body, 0o644); err != nil {
		return nil, err
	}
	s, err := Start("files:" + dir)
	if err != nil {
		return nil, err
	}
	fileServers.m[name] = s
	return s, nil
}
