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

// TestApprovalsTableOfAnEarlierVersion: a table made before approvals kept
// their consent digest and cost gains the two columns, and keeps them,
// on SQLite and on PostgreSQL.
func TestApprovalsTableOfAnEarlierVersion(t *testing.T) {
	dbs := map[string]func(t *testing.T) *sql.DB{
		"sqlite": func(t *testing.T) *sql.DB { return sqliteDB(t, filepath.Join(t.TempDir(), "app.db")) },
		"postgres": func(t *testing.T) *sql.DB {
			db, err := sql.Open("pgx", servicetest.SharedPostgres(t).NewDatabase(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
	}
	for name, open := range dbs {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			if _, err := db.ExecContext(t.Context(), `CREATE TABLE affordances_approvals (
				id TEXT PRIMARY KEY, call_key TEXT NOT NULL UNIQUE, principal TEXT NOT NULL,
				page TEXT NOT NULL, action_name TEXT NOT NULL, input TEXT NOT NULL,
				summary TEXT NOT NULL, state TEXT NOT NULL, expires_at BIGINT NOT NULL)`); err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second finds the columns there
				s, err := sqlstore.NewApprovals(t.Context(), db, nil)
				if err != nil {
					t.Fatalf("NewApprovals on a table of an earlier version: %v", err)
				}
				a := &store.Approval{ID: store.NewApprovalID(), Call: store.NewApprovalID(), Principal: "u1", Page: "/checkout", Action: "placeOrder",
					Input: []byte(`{}`), Summary: "3 tees, $96", Consent: "d1", Cost: "USD 96.00", State: store.ApprovalPending, Expires: time.Now().Add(store.ApprovalTTL)}
				if _, err := s.Request(t.Context(), a); err != nil {
					t.Fatal(err)
				}
				if got, err := s.Get(t.Context(), a.ID); err != nil || got == nil || got.Consent != "d1" || got.Cost != "USD 96.00" {
					t.Errorf("Get: got %+v, %v; want the consent d1 and the cost USD 96.00 kept", got, err)
				}
			}
		})
	}
}
