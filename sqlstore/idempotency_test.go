package sqlstore_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
// does not run again (docs/protocol.md decision 10: the keys outlive a restart).
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
	pg := servicetest.SharedPostgres(t)
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

// TestBeginGivesUp: when every claim finds the entry held and every read
// finds it gone (a trigger here ignores each insert, as if another process
// released the entry each time in between), Begin gives up after three
// tries with an error of its own, instead of trying for ever.
func TestBeginGivesUp(t *testing.T) {
	db := sqliteDB(t, filepath.Join(t.TempDir(), "idem.db"))
	for _, ddl := range []string{
		`CREATE TABLE affordances_idempotency (id TEXT PRIMARY KEY, body_hash TEXT NOT NULL, answer TEXT, expires_at BIGINT NOT NULL)`,
		`CREATE TABLE claims (n INTEGER)`,
		`CREATE TRIGGER ignore_claims BEFORE INSERT ON affordances_idempotency BEGIN
			INSERT INTO claims VALUES (1);
			SELECT RAISE(IGNORE);
		END`,
	} {
		if _, err := db.Exec(ddl); err != nil {
			t.Fatal(err)
		}
	}
	idem, err := sqlstore.NewIdempotency(t.Context(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	held, err := idem.Begin(ctx, "s", "k", [sha256.Size]byte{})
	if err == nil || ctx.Err() != nil {
		t.Errorf("Begin: got %+v, %v (context: %v); want an error of its own before the deadline", held, err, ctx.Err())
	}
	var claims int
	if err := db.QueryRow(`SELECT count(*) FROM claims`).Scan(&claims); err != nil {
		t.Fatal(err)
	}
	if claims != 3 {
		t.Errorf("claims tried: got %d, want 3", claims)
	}
}
