package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/affordances/affordances-go/store"
)

// NewApprovals returns a [store.Approvals] kept in the application's own
// database, so that a restart forgets no approval, shared by several
// instances of a site when they share a PostgreSQL database. It creates
// its table (opts.Table, empty for affordances_approvals) when missing.
// Each step that must be atomic is one statement, guarded by the table's
// keys (the id, and the call, unique), so processes sharing the database
// share the store. It is safe for concurrent use.
func NewApprovals(ctx context.Context, db *sql.DB, opts *Options) (store.Approvals, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Table == "" {
		o.Table = "affordances_approvals"
	}
	if !sqlName.MatchString(o.Table) {
		return nil, fmt.Errorf("sqlstore: approvals: table %q is not a plain name", o.Table)
	}
	if err := createTable(ctx, db, `CREATE TABLE IF NOT EXISTS `+o.Table+` (
		id TEXT PRIMARY KEY,
		call_key TEXT NOT NULL UNIQUE,
		principal TEXT NOT NULL,
		page TEXT NOT NULL,
		action_name TEXT NOT NULL,
		input TEXT NOT NULL,
		summary TEXT NOT NULL,
		state TEXT NOT NULL,
		expires_at BIGINT NOT NULL,
		consent TEXT NOT NULL DEFAULT '',
		cost TEXT NOT NULL DEFAULT '')`); err != nil {
		return nil, fmt.Errorf("sqlstore: approvals: %w", err)
	}
	// A table made by an earlier version lacks the last two columns.
	for _, col := range []string{"consent", "cost"} {
		if err := addColumn(ctx, db, o.Table, col, `TEXT NOT NULL DEFAULT ''`); err != nil {
			return nil, fmt.Errorf("sqlstore: approvals: %w", err)
		}
	}
	const cols = `id, call_key, principal, page, action_name, input, summary, state, expires_at, consent, cost`
	s := &sqlApprovals{now: time.Now}
	err := prepare(ctx, db, o.Table, map[**sql.Stmt]string{
		&s.sweep:  `DELETE FROM TABLE WHERE expires_at <= $1`,
		&s.expire: `DELETE FROM TABLE WHERE call_key = $1 AND expires_at <= $2`,
		&s.insert: `INSERT INTO TABLE (` + cols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (call_key) DO NOTHING`,
		&s.held:   `SELECT ` + cols + ` FROM TABLE WHERE call_key = $1`,
		&s.live:   `SELECT ` + cols + ` FROM TABLE WHERE call_key = $1 AND expires_at > $2`,
		&s.byID:   `SELECT ` + cols + ` FROM TABLE WHERE id = $1 AND expires_at > $2`,
		&s.decide: `UPDATE TABLE SET state = $2, expires_at = $3 WHERE id = $1 AND state = 'pending' AND expires_at > $4 RETURNING ` + cols,
		&s.take:   `DELETE FROM TABLE WHERE call_key = $1 AND state <> 'pending' AND expires_at > $2 RETURNING ` + cols,
	})
	if err != nil {
		return nil, fmt.Errorf("sqlstore: approvals: %w", err)
	}
	return s, nil
}

// sqlApprovals keeps one row per call; its input column holds the JSON
// as sent, and expires_at is in Unix milliseconds.
type sqlApprovals struct {
	now      func() time.Time
	requests atomic.Uint64 // Requests so far: every 100th sweeps expired rows

	sweep, expire, insert, held, live, byID, decide, take *sql.Stmt
}

// scanApproval reads one row of the columns in the order of the table.
func scanApproval(row interface{ Scan(...any) error }) (*store.Approval, error) {
	var a store.Approval
	var input string
	var state string
	var expires int64
	err := row.Scan(&a.ID, &a.Call, &a.Principal, &a.Page, &a.Action, &input, &a.Summary, &state, &expires, &a.Consent, &a.Cost)
	if err != nil {
		return nil, err
	}
	if input != "" {
		a.Input = []byte(input)
	}
	a.State = store.ApprovalState(state)
	a.Expires = time.UnixMilli(expires)
	return &a, nil
}

func (s *sqlApprovals) Request(ctx context.Context, a *store.Approval) (*store.Approval, error) {
	now := s.now().UnixMilli()
	if s.requests.Add(1)%100 == 0 {
		if _, err := s.sweep.ExecContext(ctx, now); err != nil {
			return nil, fmt.Errorf("sqlstore: approvals: %w", err)
		}
	}
	// Three tries: a row seen by the insert can be gone by the select only
	// when it was taken or expired in between.
	for range 3 {
		if _, err := s.expire.ExecContext(ctx, a.Call, now); err != nil {
			return nil, fmt.Errorf("sqlstore: approvals: %w", err)
		}
		res, err := s.insert.ExecContext(ctx, a.ID, a.Call, a.Principal, a.Page, a.Action,
			string(a.Input), a.Summary, string(a.State), a.Expires.UnixMilli(), a.Consent, a.Cost)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: approvals: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, fmt.Errorf("sqlstore: approvals: %w", err)
		}
		if n == 1 {
			kept := *a
			kept.Input = slices.Clone(a.Input)
			kept.Expires = time.UnixMilli(a.Expires.UnixMilli())
			return &kept, nil
		}
		held, err := scanApproval(s.held.QueryRowContext(ctx, a.Call))
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sqlstore: approvals: %w", err)
		}
		return held, nil
	}
	return nil, fmt.Errorf("sqlstore: approvals: the approval of call %s changed under three Requests in a row", a.Call)
}

func (s *sqlApprovals) Get(ctx context.Context, id string) (*store.Approval, error) {
	a, err := scanApproval(s.byID.QueryRowContext(ctx, id, s.now().UnixMilli()))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: approvals: %w", err)
	}
	return a, nil
}

func (s *sqlApprovals) Decide(ctx context.Context, id string, approve bool) (*store.Approval, error) {
	state := store.ApprovalDenied
	if approve {
		state = store.ApprovalApproved
	}
	now := s.now()
	a, err := scanApproval(s.decide.QueryRowContext(ctx,
		id, string(state), now.Add(store.ApprovalTTL).UnixMilli(), now.UnixMilli()))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrApprovalClosed
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: approvals: %w", err)
	}
	return a, nil
}

func (s *sqlApprovals) Take(ctx context.Context, call string) (*store.Approval, error) {
	now := s.now().UnixMilli()
	// Three tries: a pending approval seen by the select can have been
	// decided since the delete; then the delete takes it.
	for range 3 {
		a, err := scanApproval(s.take.QueryRowContext(ctx, call, now))
		if err == nil {
			return a, nil // decided, and removed by this statement alone
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("sqlstore: approvals: %w", err)
		}
		a, err = scanApproval(s.live.QueryRowContext(ctx, call, now))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("sqlstore: approvals: %w", err)
		}
		if a.State == store.ApprovalPending {
			return a, nil
		}
	}
	return nil, fmt.Errorf("sqlstore: approvals: the approval of call %s changed under three Takes in a row", call)
}
