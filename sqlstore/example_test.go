package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/sqlstore"
	_ "modernc.org/sqlite"
)

// A site whose Idempotency-Keys live in its SQLite database: a call sent
// twice with one key runs once, and the retry gets the first answer.
func ExampleNewIdempotency() {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:example?mode=memory")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	idem, err := sqlstore.NewIdempotency(ctx, db, nil)
	if err != nil {
		panic(err)
	}
	site := affordances.NewSite(&affordances.SiteOptions{Idempotency: idem})
	runs := 0
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "start", Description: "Start a job", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			runs++
			return struct{}{}, nil
		})
	h := site.Handler(nil)
	for range 2 {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"action":"start"}`))
		r.Header.Set("Content-Type", affordances.MediaType)
		r.Header.Set(affordances.IdempotencyHeader, "job-1")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		fmt.Println(rec.Code, "replayed:", rec.Header().Get(affordances.IdempotentReplayedHeader) == "true")
	}
	fmt.Println("runs:", runs)
	// Output:
	// 200 replayed: false
	// 200 replayed: true
	// runs: 1
}
