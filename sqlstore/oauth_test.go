package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/internal/servicetest"
	"github.com/affordances/affordances-go/sqlstore"
	"github.com/affordances/affordances-go/store"
)

// The SQL store keeps the contract of an OAuth store, on SQLite.
func TestOAuthContract(t *testing.T) {
	affordancestest.TestOAuthStore(t, func(t *testing.T) store.OAuth {
		s, err := sqlstore.NewOAuth(context.Background(), sqliteDB(t, filepath.Join(t.TempDir(), "oauth.db")), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// The SQL store keeps the same contract on PostgreSQL (pgx), where several
// instances of a site share it.
func TestOAuthContractPostgres(t *testing.T) {
	pg := servicetest.SharedPostgres(t)
	affordancestest.TestOAuthStore(t, func(t *testing.T) store.OAuth {
		db, err := sql.Open("pgx", pg.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := sqlstore.NewOAuth(context.Background(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestOAuthAcrossInstances: two stores on one database (two instances of
// a site, or one before a restart and one after) share tokens and grants:
// a code made on one is used once on either, and a grant revoked on one
// takes its tokens away from both.
func TestOAuthAcrossInstances(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "app.db")
	open := func() store.OAuth {
		s, err := sqlstore.NewOAuth(ctx, sqliteDB(t, path), &sqlstore.Options{Table: "oauth"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first, second := open(), open()
	g := &store.OAuthGrant{ID: "g1", Subject: "alice", Client: "c1", Trust: []string{"read"}, Currency: "USD", Ceiling: 50, Created: time.Now()}
	if err := first.CreateGrant(ctx, g); err != nil {
		t.Fatal(err)
	}
	code := &store.OAuthToken{Kind: store.OAuthCode, Signature: "s1", Grant: "g1", Active: true, Expires: time.Now().Add(time.Minute)}
	if err := first.CreateToken(ctx, code); err != nil {
		t.Fatal(err)
	}
	if err := second.Deactivate(ctx, store.OAuthCode, "s1"); err != nil {
		t.Fatalf("Deactivate on the second instance: %v", err)
	}
	if err := first.Deactivate(ctx, store.OAuthCode, "s1"); !errors.Is(err, store.ErrInactive) {
		t.Errorf("Deactivate again on the first: got %v, want ErrInactive", err)
	}
	if err := second.Spend(ctx, "g1", "USD", 40); err != nil {
		t.Fatal(err)
	}
	if err := first.Spend(ctx, "g1", "USD", 20); !errors.Is(err, store.ErrOverCeiling) {
		t.Errorf("Spend on the first over what the second spent: got %v, want ErrOverCeiling", err)
	}
	if err := second.RevokeGrant(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	if got, err := first.Token(ctx, store.OAuthCode, "s1"); err != nil || got != nil {
		t.Errorf("Token on the first after the second revoked its grant: got %+v, %v; want nil", got, err)
	}
	if got, err := first.Grants(ctx, "alice"); err != nil || len(got) != 0 {
		t.Errorf("Grants on the first after the second revoked: got %v, %v; want none", got, err)
	}
}

// The tables' prefix must make plain names: the store writes them into its
// statements, and PostgreSQL cuts a name at 63 bytes.
func TestOAuthTableName(t *testing.T) {
	db := sqliteDB(t, filepath.Join(t.TempDir(), "x.db"))
	for _, table := range []string{"a; DROP TABLE b", "oauth_of_a_site_whose_name_is_long_enough_to_cut_its_clients"} {
		if _, err := sqlstore.NewOAuth(t.Context(), db, &sqlstore.Options{Table: table}); err == nil {
			t.Errorf("NewOAuth, table %q: got a store, want an error", table)
		}
	}
}
