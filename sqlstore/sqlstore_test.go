package sqlstore_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/affordances/affordances-go/internal/servicetest"
	"github.com/affordances/affordances-go/sqlstore"
)

// The PostgreSQL contract tests share one server, each with a database of
// its own.
func TestMain(m *testing.M) { os.Exit(servicetest.Main(m)) }

func sqliteDB(t *testing.T, path string) *sql.DB {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A table name that is not a plain name is refused: the stores write it
// into their statements.
func TestTableName(t *testing.T) {
	db := sqliteDB(t, filepath.Join(t.TempDir(), "x.db"))
	opts := &sqlstore.Options{Table: "a; DROP TABLE b"}
	for name, open := range map[string]func(context.Context) error{
		"NewIdempotency": func(ctx context.Context) error { _, err := sqlstore.NewIdempotency(ctx, db, opts); return err },
		"NewApprovals":   func(ctx context.Context) error { _, err := sqlstore.NewApprovals(ctx, db, opts); return err },
	} {
		if err := open(t.Context()); err == nil {
			t.Errorf("%s, table %q: got a store, want an error", name, opts.Table)
		}
	}
}
