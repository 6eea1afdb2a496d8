package affordances_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/internal/servicetest"
)

// The SQL store keeps the contract of an ApprovalStore, on SQLite.
func TestSQLApprovalStoreContract(t *testing.T) {
	affordancestest.TestApprovalStore(t, func(t *testing.T) affordances.ApprovalStore {
		s, err := affordances.NewSQLApprovalStore(context.Background(), sqliteDB(t, filepath.Join(t.TempDir(), "approvals.db")), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// The SQL store keeps the same contract on PostgreSQL (pgx), where several
// instances of a site share it.
func TestSQLApprovalStoreContractPostgres(t *testing.T) {
	pg := servicetest.StartPostgres(t)
	affordancestest.TestApprovalStore(t, func(t *testing.T) affordances.ApprovalStore {
		db, err := sql.Open("pgx", pg.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := affordances.NewSQLApprovalStore(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestSQLApprovalSurvivesARestart: an approval decided before a restart is
// taken after it, by a new store on the same database, once; and two
// stores on one database (two instances) share the approvals.
func TestSQLApprovalSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	open := func() affordances.ApprovalStore {
		s, err := affordances.NewSQLApprovalStore(t.Context(), sqliteDB(t, path), &affordances.SQLOptions{Table: "approvals"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := &affordances.Approval{ID: affordances.NewApprovalID(), Call: "c1", Principal: "u1", Page: "/", Action: "pay",
		Input: []byte(`{}`), State: affordances.ApprovalPending, Expires: time.Now().Add(affordances.ApprovalTTL)}
	first := open()
	if _, err := first.Request(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Decide(t.Context(), a.ID, true); err != nil {
		t.Fatal(err)
	}
	second, third := open(), open()
	if got, err := second.Take(t.Context(), "c1"); err != nil || got == nil || got.ID != a.ID || got.State != affordances.ApprovalApproved {
		t.Fatalf("Take after the restart: got %+v, %v; want the approval, approved", got, err)
	}
	if got, err := third.Take(t.Context(), "c1"); err != nil || got != nil {
		t.Errorf("Take on another store of the same database: got %+v, %v; want nil, taken once", got, err)
	}
}

// A table name that is not a plain name is refused: the store writes it
// into its statements.
func TestSQLApprovalStoreTableName(t *testing.T) {
	db := sqliteDB(t, filepath.Join(t.TempDir(), "x.db"))
	if _, err := affordances.NewSQLApprovalStore(t.Context(), db, &affordances.SQLOptions{Table: "a; DROP TABLE b"}); err == nil {
		t.Error("table \"a; DROP TABLE b\": got a store, want an error")
	}
}
