package sqlstore_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/internal/servicetest"
	"github.com/affordances/affordances-go/sqlstore"
	"github.com/affordances/affordances-go/store"
)

// The SQL store keeps the contract of an Idempotency store, on SQLite.
func TestIdempotencyContract(t *testing.T) {
	affordancestest.TestIdempotencyStore(t, func(t *testing.T) store.Idempotency {
		s, err := sqlstore.NewIdempotency(context.Background(), sqliteDB(t, filepath.Join(t.TempDir(), "idem.db")), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestIdempotencySurvivesARestart: a key answered before a restart is
// replayed after it, by a new site on the same database, and the action
// does not run again (CLARIFICATIONS 10: the keys outlive a restart).
func TestIdempotencySurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	var runs atomic.Int32
	start := func() *httptest.Server {
		db := sqliteDB(t, path)
		idem, err := sqlstore.NewIdempotency(t.Context(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		site := affordances.NewSite(&affordances.SiteOptions{Idempotency: idem})
		affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "start", Description: "Start", Expose: affordances.ExposePublic},
			func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
				runs.Add(1)
				return struct{}{}, nil
			})
		srv := httptest.NewServer(site.Handler(nil))
		t.Cleanup(srv.Close)
		return srv
	}
	call := func(srv *httptest.Server) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"action":"start"}`))
		req.Header.Set("Content-Type", affordances.MediaType)
		req.Header.Set("Idempotency-Key", "crash-key-1")
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("Idempotent-Replayed")
	}
	first := start()
	if status, replayed := call(first); status != 200 || replayed != "" {
		t.Fatalf("first call: %d replayed %q", status, replayed)
	}
	first.Close()
	second := start() // as after kill -9: a new process on the same file
	if status, replayed := call(second); status != 200 || replayed != "true" || runs.Load() != 1 {
		t.Errorf("after the restart: %d replayed %q, runs %d; want the first answer replayed and one run", status, replayed, runs.Load())
	}
}

// The SQL store keeps the same contract on PostgreSQL (pgx), where several
// instances of a site share it.
func TestIdempotencyContractPostgres(t *testing.T) {
	pg := servicetest.StartPostgres(t)
	affordancestest.TestIdempotencyStore(t, func(t *testing.T) store.Idempotency {
		db, err := sql.Open("pgx", pg.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := sqlstore.NewIdempotency(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
