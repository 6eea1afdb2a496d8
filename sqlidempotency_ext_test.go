package affordances_test

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
	_ "modernc.org/sqlite"
)

func sqliteDB(t *testing.T, path string) *sql.DB {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// The SQL store keeps the contract of an IdempotencyStore, on SQLite.
func TestSQLIdempotencyStoreContract(t *testing.T) {
	affordancestest.TestIdempotencyStore(t, func(t *testing.T) affordances.IdempotencyStore {
		s, err := affordances.NewSQLIdempotencyStore(context.Background(), sqliteDB(t, filepath.Join(t.TempDir(), "idem.db")), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestSQLIdempotencySurvivesARestart: a key answered before a restart is
// replayed after it, by a new site on the same database, and the action
// does not run again (CLARIFICATIONS 10: the keys outlive a restart).
func TestSQLIdempotencySurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	var runs atomic.Int32
	start := func() *httptest.Server {
		db := sqliteDB(t, path)
		store, err := affordances.NewSQLIdempotencyStore(t.Context(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		site := affordances.NewSite(&affordances.SiteOptions{Idempotency: store})
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
func TestSQLIdempotencyStoreContractPostgres(t *testing.T) {
	pg := servicetest.StartPostgres(t)
	affordancestest.TestIdempotencyStore(t, func(t *testing.T) affordances.IdempotencyStore {
		db, err := sql.Open("pgx", pg.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := affordances.NewSQLIdempotencyStore(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
