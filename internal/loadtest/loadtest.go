// Package loadtest is the harness of the benchmarks of make bench: it
// measures a handler against a static baseline that answers the same bytes
// with the same headers, in one run, the two interleaved so that noise
// falls on both alike, and reports the ratio (docs/performance.md).
//
// In process, [Handlers] times ServeHTTP of each, batch by batch. Over
// loopback HTTP, [Servers] sends the load from the benchmark's process to
// two server processes on one core ([Start], [StartCommand]), batch by
// batch, and compares the CPU time each server spent per request: the
// client's work and the scheduler's choices are not in the figure.
//
// Each benchmark reports x-static, the subject's speed as a fraction of
// the baseline's (the baseline's cost per request over the subject's), and
// budget-x, the lowest x-static its budget allows; cmd benchtable prints
// them as a table. [Against] and [ServersAgainst] measure the subject the
// same way against another implementation of its site, and report x-<its
// name>.
package loadtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"
)

// A Response is what a handler answered to one request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Capture serves r with h in process and returns what it answered.
func Capture(h http.Handler, r *http.Request) Response {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return Response{Status: w.Code, Header: w.Header().Clone(), Body: slices.Clone(w.Body.Bytes())}
}

// Static returns the baseline: a handler that reads the request's body and
// answers res, from slices computed once: each header set as any handler
// sets it (Header().Set, then Add for a second value), then the body
// written from one slice. It is safe for concurrent use.
func Static(res Response) http.Handler {
	type field struct{ name, value string }
	var fields []field
	for name, values := range res.Header {
		for _, v := range values {
			fields = append(fields, field{name, v})
		}
	}
	status, body := res.Status, res.Body
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		h := w.Header()
		for i, f := range fields {
			if i == 0 || fields[i-1].name != f.name {
				h.Set(f.name, f.value)
			} else {
				h.Add(f.name, f.value)
			}
		}
		w.WriteHeader(status)
		w.Write(body)
	})
}

// batch is how many requests of one side [Handlers] runs between two of
// the other's.
const batch = 8

// Handlers runs b.N requests through subject and as many through base, in
// process, each into a new [httptest.ResponseRecorder] (as a server makes
// a ResponseWriter for each request), interleaved in batches of 8, which
// side goes first alternating from one pair of batches to the next.
// next(i) returns the i-th request, a new one at each call (it is called
// once for each side), built outside the timed part. Every answer of
// subject must have the status of base's.
//
// A batch is timed by the CPU time of the benchmark's process, all its
// threads (the wall clock where there is no such clock): on a busy
// machine the time the process waits for a core is nobody's. Run with
// -cpu 1, so that nothing else of the process runs meanwhile.
//
// It reports cpu-ns/req, the subject's time per request,
// static-cpu-ns/req, the baseline's, and x-static, their ratio; then
// allocs/req and B/req of each, the recorder's included, counted apart
// after the timed loop.
func Handlers(b *testing.B, base, subject http.Handler, next func(i int) *http.Request) {
	b.Helper()
	Against(b, "static", base, subject, next)
}

// Against is [Handlers] against another baseline than a static handler:
// another implementation of the subject's site, by the name given. It
// reports cpu-ns/req, name-cpu-ns/req, x-name (the baseline's time per
// request over the subject's: above 1, the subject is cheaper), and the
// allocations of each.
func Against(b *testing.B, name string, base, subject http.Handler, next func(i int) *http.Request) {
	b.Helper()
	static, subj := interleave(b, base, subject, next)
	b.StopTimer()
	b.ReportMetric(subj, "cpu-ns/req")
	b.ReportMetric(static, name+"-cpu-ns/req")
	b.ReportMetric(static/subj, "x-"+name)
	for side, prefix := range []string{name + "-", ""} {
		allocs, bytes := allocations([]http.Handler{base, subject}[side], next, b.N)
		b.ReportMetric(allocs, prefix+"allocs/req")
		b.ReportMetric(bytes, prefix+"B/req")
	}
}

// Ceiling runs b.N requests through app and as many through base, as
// [Handlers] does, and reports app-x, their ratio: the x-static of the
// application's own code alone (app runs what a site's code does for a
// request, and answers as base does), the most that any library serving
// that site could reach.
func Ceiling(b *testing.B, base, app http.Handler, next func(i int) *http.Request) {
	b.Helper()
	static, alone := interleave(b, base, app, next)
	b.ReportMetric(static/alone, "app-x")
}

// interleave runs b.N requests through each of base and subject in
// batches, as [Handlers] says, and returns the CPU time per request of
// each.
func interleave(b *testing.B, base, subject http.Handler, next func(i int) *http.Request) (static, subj float64) {
	want := Capture(base, next(0)).Status
	sides := [2]http.Handler{base, subject}
	var spent [2]time.Duration
	reqs := make([]*http.Request, batch)
	for i, round := 0, 0; i < b.N; i, round = i+batch, round+1 {
		n := min(batch, b.N-i)
		for k := range 2 {
			side := (k + round) % 2
			for j := range n {
				reqs[j] = next(i + j)
			}
			h := sides[side]
			var bad *httptest.ResponseRecorder
			start := clock()
			for _, r := range reqs[:n] {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != want {
					bad = w
				}
			}
			spent[side] += clock() - start
			if bad != nil {
				b.Fatalf("near request %d: answered %d, the baseline %d: %s", i, bad.Code, want, bad.Body)
			}
		}
	}
	return float64(spent[0]) / float64(b.N), float64(spent[1]) / float64(b.N)
}

// clock returns the CPU time this process has spent, or when it cannot be
// read, the time since it started.
var clock = func() func() time.Duration {
	self := os.Getpid()
	if _, err := processCPU(self); err != nil {
		start := time.Now()
		return func() time.Duration { return time.Since(start) }
	}
	return func() time.Duration {
		d, _ := processCPU(self)
		return d
	}
}()

// allocations returns the allocations and bytes allocated per request of
// h, over 16 requests from next(from) on.
func allocations(h http.Handler, next func(i int) *http.Request, from int) (allocs, bytes float64) {
	const n = 16
	reqs := make([]*http.Request, n)
	for j := range reqs {
		reqs[j] = next(from + j)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, r := range reqs {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / n, float64(after.TotalAlloc-before.TotalAlloc) / n
}

// Budget reports budget-x: the lowest x-static the benchmark's budget
// allows (docs/performance.md).
func Budget(b *testing.B, x float64) { b.ReportMetric(x, "budget-x") }

// BudgetAgainst reports budget-x-<name>: the lowest x-<name> ([Against],
// [ServersAgainst]) the benchmark's budget allows.
func BudgetAgainst(b *testing.B, name string, x float64) { b.ReportMetric(x, "budget-x-"+name) }

// BudgetApp reports budget-app: the lowest share of app-x ([Ceiling]) the
// subject's x-static may be.
func BudgetApp(b *testing.B, share float64) { b.ReportMetric(share, "budget-app") }
