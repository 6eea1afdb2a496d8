package affordances_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
)

// The budgets of DESIGN.md, measured over real loopback HTTP with
// keep-alive:
//
//	go test -run '^$' -bench 'StaticBytes|GraphGET|CallPOST' -cpu 1 -count 5 .
//
// BenchmarkStaticBytes is the baseline: a handler writing a precomputed
// graph's bytes with the same headers. BenchmarkGraphGET and
// BenchmarkCallPOST also run that baseline for the same number of requests,
// right before their own (untimed), and report "x-static": their requests
// per second as a fraction of the baseline's (budget: GET >= 0.7, POST >=
// 0.5). Measuring both side by side keeps the ratio steady on a noisy
// machine.

func benchSite(b *testing.B) http.Handler {
	site, _ := testSite(b, &affordances.SiteOptions{Limit: affordances.Limit{Calls: 1 << 30, Per: time.Second, Burst: 1 << 30}})
	return site.Handler(app)
}

// static returns the baseline handler: the graph of "/" from a slice.
func static(b *testing.B) http.Handler {
	rec := httptest.NewRecorder()
	benchSite(b).ServeHTTP(rec, get("/"))
	graph := rec.Body.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", affordances.MediaType)
		h.Set("Vary", "Accept")
		h.Set("Cache-Control", "private, no-store")
		w.Write(graph)
	})
}

func getRoot() *http.Request { return benchReq("GET", "/", "") }

func BenchmarkStaticBytes(b *testing.B) {
	serve(b, static(b), getRoot, true)
}

func BenchmarkGraphGET(b *testing.B) {
	compare(b, benchSite(b), getRoot)
}

func BenchmarkCallPOST(b *testing.B) {
	compare(b, benchSite(b), func() *http.Request { return benchReq("POST", "/", `{"action":"increment"}`) })
}

// compare times req against h and reports the ratio to the baseline run
// for as many requests just before.
func compare(b *testing.B, h http.Handler, req func() *http.Request) {
	base := serve(b, static(b), getRoot, false)
	b.ResetTimer()
	ns := serve(b, h, req, true)
	b.ReportMetric(base/ns, "x-static")
}

// serve runs b.N requests against h over a real loopback connection and
// returns the nanoseconds per request; timed says whether b's timer runs.
func serve(b *testing.B, h http.Handler, req func() *http.Request, timed bool) float64 {
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := srv.Client()
	host := strings.TrimPrefix(srv.URL, "http://")
	do := func() {
		r := req()
		r.URL.Scheme, r.URL.Host = "http", host
		res, err := client.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
	do() // warm the connection
	if timed {
		b.ReportAllocs()
		b.ResetTimer()
	} else {
		b.StopTimer()
		defer b.StartTimer()
	}
	start := time.Now()
	for range b.N {
		do()
	}
	return float64(time.Since(start).Nanoseconds()) / float64(b.N)
}

func benchReq(method, path, body string) *http.Request {
	r, _ := http.NewRequest(method, "http://x"+path, strings.NewReader(body))
	if method == "POST" {
		r.Header.Set("Content-Type", affordances.MediaType)
	} else {
		r.Header.Set("Accept", affordances.MediaType)
	}
	return r
}
