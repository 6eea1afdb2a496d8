package loadtest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A Load says how [Servers] sends its requests.
type Load struct {
	// Conns is how many requests are in flight at once, each worker on a
	// keep-alive connection of its own. Zero: 4.
	Conns int
	// Sources spreads the requests over that many loopback addresses
	// (127.a.b.c, at most 62,500), request i from source i mod Sources,
	// fresh ones at each call of Servers, so that a server that
	// rate-limits anonymous calls by client address sees that many
	// clients, each new. Each source's connection is opened in the
	// warm-up. Zero: 127.0.0.1 alone.
	Sources int
}

// httpBatch is how many requests of one server [Servers] sends between two
// of the other's.
const httpBatch = 64

// sourceBlocks counts the blocks of source addresses handed out.
var sourceBlocks atomic.Int64

// Servers sends b.N requests to subject and as many to base over loopback
// HTTP, interleaved in batches of 64, which server goes first alternating
// from one pair of batches to the next, and compares the CPU time each
// server's process spent over the run ([Server.CPU]), after a warm-up
// batch. next(i) returns the i-th request, a new one at each call: its URL
// needs only the path and query; Servers sets the scheme and host of the
// server it goes to. Every answer of subject must have the status of
// base's. It reports cpu-ns/req, the subject's CPU time per request,
// static-cpu-ns/req, the baseline's, and x-static, their ratio.
func Servers(b *testing.B, base, subject *Server, next func(i int) *http.Request, load Load) {
	b.Helper()
	ServersAgainst(b, "static", base, subject, next, load)
}

// ServersAgainst is [Servers] against another baseline than a static
// server: another implementation of the subject's site, by the name given.
// It reports cpu-ns/req, name-cpu-ns/req and x-name (the baseline's CPU
// time per request over the subject's: above 1, the subject is cheaper).
func ServersAgainst(b *testing.B, name string, base, subject *Server, next func(i int) *http.Request, load Load) {
	b.Helper()
	if load.Conns <= 0 {
		load.Conns = 4
	}
	if _, err := base.CPU(); err != nil {
		b.Skip(err)
	}
	clients := newClients(load)
	defer clients.close()
	sides := [2]*Server{base, subject}
	var want int
	// A connection for each source, and a batch to settle in (no more
	// than the run: a run of one request, -benchtime 1x, checks only that
	// the benchmark works).
	warm := max(load.Sources, min(httpBatch, b.N))
	for side, s := range sides {
		status, err := clients.send(s, next, 0, warm)
		if err != nil {
			b.Fatal(err)
		}
		if side == 0 {
			want = status
		} else if status != want {
			b.Fatalf("warm-up: the subject answered %d, the baseline %d", status, want)
		}
	}
	var before, after [2]time.Duration
	cpus := func(at *[2]time.Duration) {
		for side, s := range sides {
			cpu, err := s.CPU()
			if err != nil {
				b.Fatal(err)
			}
			at[side] = cpu
		}
	}
	b.ResetTimer()
	cpus(&before)
	for i, round := 0, 0; i < b.N; i, round = i+httpBatch, round+1 {
		n := min(httpBatch, b.N-i)
		for k := range 2 {
			side := (k + round) % 2
			status, err := clients.send(sides[side], next, i, n)
			if err != nil {
				b.Fatal(err)
			}
			if status != want {
				b.Fatalf("near request %d: answered %d, the baseline %d", i, status, want)
			}
		}
	}
	cpus(&after)
	b.StopTimer()
	static := float64(after[0]-before[0]) / float64(b.N)
	subj := float64(after[1]-before[1]) / float64(b.N)
	b.ReportMetric(subj, "cpu-ns/req")
	b.ReportMetric(static, name+"-cpu-ns/req")
	b.ReportMetric(static/subj, "x-"+name)
}

// clients are the HTTP clients of a load: one per source address.
type clients struct {
	load       Load
	transports []*http.Transport
	http       []*http.Client
}

func newClients(load Load) *clients {
	c := &clients{load: load}
	sources := []net.Addr{nil}
	if load.Sources > 0 {
		sources = sources[:0]
		block := byte(1 + sourceBlocks.Add(1)%254) // not 127.0.x.y
		for n := range load.Sources {
			sources = append(sources, &net.TCPAddr{IP: net.IPv4(127, block, byte(n/250), byte(n%250+1))})
		}
	}
	for _, src := range sources {
		d := &net.Dialer{LocalAddr: src, Timeout: 10 * time.Second}
		t := &http.Transport{
			DialContext:         d.DialContext,
			MaxIdleConnsPerHost: load.Conns,
			DisableCompression:  true,
		}
		c.transports = append(c.transports, t)
		c.http = append(c.http, &http.Client{Transport: t, Timeout: 30 * time.Second})
	}
	return c
}

func (c *clients) close() {
	for _, t := range c.transports {
		t.CloseIdleConnections()
	}
}

// send sends next(from) to next(from+n-1) to s, c.load.Conns at a time,
// request i from the client of source i. It returns the status of the
// answers, or an error when one failed or two differ.
func (c *clients) send(s *Server, next func(i int) *http.Request, from, n int) (int, error) {
	host := s.URL[len("http://"):]
	var (
		mu     sync.Mutex
		status int
		failed error
		wg     sync.WaitGroup
		todo   atomic.Int64
	)
	todo.Store(int64(from))
	end := int64(from + n)
	for range min(c.load.Conns, n) {
		wg.Go(func() {
			for {
				i := todo.Add(1) - 1
				if i >= end {
					return
				}
				r := next(int(i))
				r.URL.Scheme, r.URL.Host, r.Host = "http", host, ""
				got, err := do(c.http[int(i)%len(c.http)], r)
				mu.Lock()
				switch {
				case err != nil && failed == nil:
					failed = err
				case err == nil && status == 0:
					status = got
				case err == nil && got != status && failed == nil:
					failed = fmt.Errorf("loadtest: %s answered %d and %d", s.URL, status, got)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return status, failed
}

// do sends r and reads its answer to the end.
func do(c *http.Client, r *http.Request) (int, error) {
	res, err := c.Do(r)
	if err != nil {
		return 0, fmt.Errorf("loadtest: %s %s: %w", r.Method, r.URL, err)
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return 0, fmt.Errorf("loadtest: %s %s: %w", r.Method, r.URL, err)
	}
	return res.StatusCode, nil
}
