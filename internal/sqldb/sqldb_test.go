package sqldb_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/affordances/affordances-go/internal/servicetest"
	"github.com/affordances/affordances-go/internal/sqldb"
)

// backends opens an empty database of each kind.
func backends(t *testing.T) map[string]*sqldb.DB {
	pg := servicetest.StartPostgres(t)
	out := map[string]*sqldb.DB{}
	for name, source := range map[string]string{
		"sqlite":   filepath.Join(t.TempDir(), "test.db"),
		"postgres": pg.NewDatabase(t),
	} {
		db, err := sqldb.Open(t.Context(), source)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		out[name] = db
	}
	return out
}

// TestWritesAreSerialisable: concurrent read-then-write transactions (read
// a counter, write it plus one) lose no update on either back end: SQLite
// serialises them, PostgreSQL retries the losers of a serialization race.
func TestWritesAreSerialisable(t *testing.T) {
	for name, db := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			err := db.Write(ctx, func(tx *sqldb.Tx) error {
				return tx.ExecScript(ctx, db.Schema(`CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, note BLOB)`))
			})
			if err != nil {
				t.Fatal(err)
			}
			var id int64
			if err := db.Write(ctx, func(tx *sqldb.Tx) error {
				return tx.QueryRow(ctx, `INSERT INTO counter (n, note) VALUES ($1, $2) RETURNING id`, 0, []byte("x")).Scan(&id)
			}); err != nil {
				t.Fatal(err)
			}
			const writers = 40
			var wg sync.WaitGroup
			errs := make(chan error, writers)
			for range writers {
				wg.Go(func() {
					errs <- db.Write(ctx, func(tx *sqldb.Tx) error {
						var n int
						if err := tx.QueryRow(ctx, `SELECT n FROM counter WHERE id = $1`, id).Scan(&n); err != nil {
							return err
						}
						_, err := tx.Exec(ctx, `UPDATE counter SET n = $1 WHERE id = $2`, n+1, id)
						return err
					})
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			var n int
			if err := db.QueryRow(ctx, `SELECT n FROM counter WHERE id = $1`, id).Scan(&n); err != nil || n != writers {
				t.Fatalf("counter = %d, %v; want %d", n, err, writers)
			}
		})
	}
}

// TestBadQueryIsAnError: a query that does not prepare is an error at
// Scan, and again at the next use (nothing half-prepared is kept).
func TestBadQueryIsAnError(t *testing.T) {
	for name, db := range backends(t) {
		t.Run(name, func(t *testing.T) {
			for range 2 {
				var n int
				if err := db.QueryRow(t.Context(), `SELECT n FROM no_such_table`).Scan(&n); err == nil {
					t.Fatal("a query of a missing table succeeded")
				}
			}
		})
	}
}

// TestEndedContextRefusesReads: a read whose context has ended is refused
// with the context's error, by Query and by QueryRow's Scan, on both back
// ends (SQLite does not watch a read's context once it runs, so it checks
// before).
func TestEndedContextRefusesReads(t *testing.T) {
	for name, db := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			for range 2 { // the first use prepares the query; the second finds it prepared
				var n int
				if err := db.QueryRow(ctx, `SELECT 1`).Scan(&n); !errors.Is(err, context.Canceled) {
					t.Errorf("QueryRow with an ended context: got %d, %v; want context.Canceled", n, err)
				}
				rows, err := db.Query(ctx, `SELECT 1`)
				if err == nil {
					rows.Close()
				}
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Query with an ended context: got %v, want context.Canceled", err)
				}
				if err := db.QueryRow(t.Context(), `SELECT 1`).Scan(&n); err != nil || n != 1 {
					t.Errorf("QueryRow with a live context: got %d, %v; want 1", n, err)
				}
			}
		})
	}
}
