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

// The budgets of DESIGN.md, measured side by side in one run over real
// loopback HTTP with keep-alive:
//
//	go test -run '^$' -bench 'StaticBytes|GraphGET|CallPOST' -cpu 1 -count 5 .
//
// BenchmarkStaticBytes is the baseline: a handler writing a precomputed
// graph's bytes. The two others report "x-static", their requests per
// second as a fraction of the baseline's from the same run (budget: GET
// >= 0.7, POST >= 0.5).
var staticNsPerOp float64

func benchSite(b *testing.B) http.Handler {
	site, _ := testSite(b, &affordances.SiteOptions{Limit: affordances.Limit{Calls: 1 << 30, Per: time.Second, Burst: 1 << 30}})
	return site.Handler(app)
}

func BenchmarkStaticBytes(b *testing.B) {
	rec := httptest.NewRecorder()
	benchSite(b).ServeHTTP(rec, get("/"))
	graph := rec.Body.Bytes()
	static := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", affordances.MediaType)
		h.Set("Vary", "Accept")
		h.Set("Cache-Control", "private, no-store")
		w.Write(graph)
	})
	ns := serve(b, static, func() *http.Request { return benchReq("GET", "/", "") })
	staticNsPerOp = ns
}

func BenchmarkGraphGET(b *testing.B) {
	report(b, serve(b, benchSite(b), func() *http.Request { return benchReq("GET", "/", "") }))
}

func BenchmarkCallPOST(b *testing.B) {
	report(b, serve(b, benchSite(b), func() *http.Request { return benchReq("POST", "/", `{"action":"increment"}`) }))
}

// serve runs b.N requests against h over a real loopback connection and
// returns the nanoseconds per request.
func serve(b *testing.B, h http.Handler, req func() *http.Request) float64 {
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := srv.Client()
	base := srv.URL
	do := func() {
		r := req()
		r.URL.Scheme, r.URL.Host = "http", strings.TrimPrefix(base, "http://")
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
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		do()
	}
	return float64(time.Since(start).Nanoseconds()) / float64(b.N)
}

func report(b *testing.B, ns float64) {
	if staticNsPerOp > 0 {
		b.ReportMetric(staticNsPerOp/ns, "x-static")
	}
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
