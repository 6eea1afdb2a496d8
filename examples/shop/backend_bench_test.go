package shop_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/servicetest"
)

// BenchmarkGraphGETByBackEnd measures the graph GET of the catalog, the
// shop's busiest page, in process (ServeHTTP into a recorder), as alice
// with her token, on SQLite and on PostgreSQL in turn, request by request,
// so that their ratio is of one run and noise falls on both alike. It
// reports each back end's time per GET and the ratio:
// go test -run '^$' -bench GraphGETByBackEnd -count 3 ./examples/shop.
func BenchmarkGraphGETByBackEnd(b *testing.B) {
	handlers := map[string]http.Handler{}
	for backEnd, opts := range map[string]*shop.Options{
		"sqlite":   {DataDir: b.TempDir(), DemoToken: demoToken},
		"postgres": {Database: servicetest.SharedPostgres(b).NewDatabase(b), DemoToken: demoToken},
	} {
		s, err := shop.Open(b.Context(), opts)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		handlers[backEnd] = s.Handler()
	}
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Accept", affordances.MediaType)
	req.Header.Set("Authorization", "Bearer "+demoToken)
	spent := map[string]time.Duration{}
	for b.Loop() {
		for _, backEnd := range []string{"sqlite", "postgres"} {
			start := time.Now()
			rec := httptest.NewRecorder()
			handlers[backEnd].ServeHTTP(rec, req)
			spent[backEnd] += time.Since(start)
			if rec.Code != http.StatusOK {
				b.Fatalf("GET / on %s: %d", backEnd, rec.Code)
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(spent["sqlite"].Nanoseconds())/n, "sqlite-ns/GET")
	b.ReportMetric(float64(spent["postgres"].Nanoseconds())/n, "postgres-ns/GET")
	b.ReportMetric(float64(spent["postgres"])/float64(spent["sqlite"]), "postgres/sqlite")
}
