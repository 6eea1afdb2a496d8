package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/internal/servicetest"
	"github.com/affordances/affordances-go/sqlstore"
	"github.com/affordances/affordances-go/store"
)

// The SQL store keeps the contract of an Approvals store, on SQLite.
func TestApprovalsContract(t *testing.T) {
	affordancestest.TestApprovalStore(t, func(t *testing.T) store.Approvals {
		s, err := sqlstore.NewApprovals(context.Background(), sqliteDB(t, filepath.Join(t.TempDir(), "approvals.db")), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// The SQL store keeps the same contract on PostgreSQL (pgx), where several
// instances of a site share it.
func TestApprovalsContractPostgres(t *testing.T) {
	pg := servicetest.SharedPostgres(t)
	affordancestest.TestApprovalStore(t, func(t *testing.T) store.Approvals {
		db, err := sql.Open("pgx", pg.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := sqlstore.NewApprovals(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestApprovalsSurviveARestart: an approval decided before a restart is
// taken after it, by a new store on the same database, once; and two
// stores on one database (two instances) share the approvals.
func TestApprovalsSurviveARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	open := func() store.Approvals {
		s, err := sqlstore.NewApprovals(t.Context(), sqliteDB(t, path), &sqlstore.Options{Table: "approvals"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := &store.Approval{ID: store.NewApprovalID(), Call: "c1", Principal: "u1", Page: "/", Action: "pay",
		Input: []byte(`{}`), State: store.ApprovalPending, Expires: time.Now().Add(store.ApprovalTTL)}
	first := open()
	if _, err := first.Request(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Decide(t.Context(), a.ID, true); err != nil {
		t.Fatal(err)
	}
	second, third := open(), open()
	if got, err := second.Take(t.Context(), "c1"); err != nil || got == nil || got.ID != a.ID || got.State != store.ApprovalApproved {
		t.Fatalf("Take after the restart: got %+v, %v; want the approval, approved", got, err)
	}
	if got, err := third.Take(t.Context(), "c1"); err != nil || got != nil {
		t.Errorf("Take on another store of the same database: got %+v, %v; want nil, taken once", got, err)
	}
}
