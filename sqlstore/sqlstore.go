// Package sqlstore is for publishers: it keeps a site's Idempotency-Keys,
// approvals and OAuth grants and tokens in the application's own SQL
// database, through database/sql: a restart forgets none of them
// (docs/protocol.md decision 10: the keys outlive a restart; a restart signs no
// assistant out), and the instances of a site that share a PostgreSQL
// database share them. Its stores implement the interfaces of package
// store.
//
//	db, err := sql.Open("pgx", dsn) // or "sqlite", with modernc.org/sqlite
//	...
//	idem, err := sqlstore.NewIdempotency(ctx, db, nil)
//	...
//	approvals, err := sqlstore.NewApprovals(ctx, db, nil)
//	...
//	site := affordances.NewSite(&affordances.SiteOptions{Idempotency: idem, Approvals: approvals})
//
// [NewOAuth] keeps what a site's OAuth authorization server keeps
// ([store.OAuth]): tokens by their signature, grants and registered
// clients.
//
// Each store creates its tables when missing and prepares its statements
// once: portable SQL with $1 placeholders, which SQLite (modernc.org/sqlite)
// and PostgreSQL (pgx) both take. Each step that must be atomic is one
// statement, guarded by the table's keys, or one transaction where it
// spans two tables (an OAuth grant and its tokens), so processes sharing
// the database share the store. Expiry is by the clock of the process. When
// the database fails, an operation returns the error and the site fails
// closed, as package store says. Rate limits are not kept here: in memory
// (package store) for one instance, in Redis (package redisstore) for
// several.
package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Options configures the stores. The zero value of every field is a sound
// default; nil means the zero value. A store copies the options, so
// changing them later has no effect.
type Options struct {
	// Table is the table the store keeps its entries in, created when
	// missing: a plain name (letters, digits and underscores, not starting
	// with a digit, at most 63). Empty: affordances_idempotency for
	// [NewIdempotency], affordances_approvals for [NewApprovals]. For
	// [NewOAuth], which keeps three tables, it is their names' start,
	// followed by _tokens, _grants and _clients; empty: affordances_oauth.
	Table string

	// ClaimTTL is how long a claim of an Idempotency-Key lives when the
	// process that claimed it never finishes (it crashed while the call
	// ran); then a retry runs the call again. Zero: 5 minutes.
	// [NewApprovals] does not use it.
	ClaimTTL time.Duration
}

// sqlName is a table name the store writes into its statements as is.
var sqlName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// createTable runs ddl, a CREATE TABLE IF NOT EXISTS. PostgreSQL lets two
// such statements race (instances starting together on an empty database:
// one fails on a unique index of its catalog), so a failure is tried again
// a few times: once the other's table exists, IF NOT EXISTS holds.
func createTable(ctx context.Context, db *sql.DB, ddl string) error {
	var err error
	for attempt := range 4 {
		if _, err = db.ExecContext(ctx, ddl); err == nil {
			return nil
		}
		select {
		case <-time.After(time.Duration(attempt+1) * 50 * time.Millisecond):
		case <-ctx.Done():
			return err
		}
	}
	return err
}

// addColumn adds the column col, of type typ, to table unless it has it:
// what a table made by an earlier version of this package lacks. When
// several processes add it at once, one adds it and the others find it.
func addColumn(ctx context.Context, db *sql.DB, table, col, typ string) error {
	has := func() bool {
		rows, err := db.QueryContext(ctx, `SELECT `+col+` FROM `+table+` WHERE 1 = 0`)
		if err != nil {
			return false
		}
		rows.Close()
		return true
	}
	if has() {
		return nil
	}
	if _, err := db.ExecContext(ctx, `ALTER TABLE `+table+` ADD COLUMN `+col+` `+typ); err != nil && !has() {
		return fmt.Errorf("adding the column %s to %s: %w", col, table, err)
	}
	return nil
}

// prepare prepares each statement, TABLE in its text naming table, and
// stores it where its key points. On failure it closes those it prepared.
func prepare(ctx context.Context, db *sql.DB, table string, stmts map[**sql.Stmt]string) error {
	for dst, q := range stmts {
		st, err := db.PrepareContext(ctx, strings.ReplaceAll(q, "TABLE", table))
		if err != nil {
			for dst := range stmts {
				if *dst != nil {
					(*dst).Close()
				}
			}
			return err
		}
		*dst = st
	}
	return nil
}
