package shop_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
)

// BenchmarkDemo serves the requests the demo shop is measured by, in
// process (ServeHTTP into a recorder) on SQLite, so a CPU profile shows
// where a request's time goes:
// go test -run '^$' -bench Demo -cpuprofile cpu.out ./examples/shop,
// then go tool pprof -top -cum cpu.out. The catalog's graph is asked for
// anonymously and with alice's bearer token; search is called anonymously,
// each call from another client address (the rate limit counts calls per
// address).
func BenchmarkDemo(b *testing.B) {
	s, err := shop.Open(b.Context(), &shop.Options{DataDir: b.TempDir(), DemoToken: demoToken})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	serve := func(b *testing.B, newReq func() *http.Request) {
		start := cpuTime(b)
		for b.Loop() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, newReq())
			if rec.Code != http.StatusOK {
				b.Fatalf("%d: %s", rec.Code, rec.Body)
			}
		}
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	}
	graph := func(token string) func() *http.Request {
		return func() *http.Request {
			req := httptest.NewRequestWithContext(b.Context(), http.MethodGet, "/", nil)
			req.Header.Set("Accept", affordances.MediaType)
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			return req
		}
	}
	b.Run("graph/anonymous", func(b *testing.B) { serve(b, graph("")) })
	b.Run("graph/bearer", func(b *testing.B) { serve(b, graph(demoToken)) })
	b.Run("search", func(b *testing.B) {
		n := 0
		serve(b, func() *http.Request {
			req := httptest.NewRequestWithContext(b.Context(), http.MethodPost, "/", strings.NewReader(`{"action":"search","input":{"q":"cotton tee"}}`))
			req.Header.Set("Content-Type", affordances.MediaType)
			// Anonymous callers from as many addresses, each within its
			// rate limit (a burst of 20).
			n++
			req.RemoteAddr = netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)}).String() + ":1234"
			return req
		})
	})
}

// cpuTime is the CPU time the process has used, user and system: on a
// busy machine it is steadier than the time a request takes.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
