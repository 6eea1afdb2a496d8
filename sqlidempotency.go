package affordances

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// SQLOptions configures [NewSQLIdempotencyStore]. The zero value of every
// field is a sound default; nil means the zero value.
type SQLOptions struct {
	// Table is the table the store keeps its entries in, created when
	// missing. Empty: affordances_idempotency.
	Table string

	// ClaimTTL is how long a claim lives when the process that claimed it
	// never finishes (it crashed while the call ran); then a retry runs
	// the call again. Zero: 5 minutes.
	ClaimTTL time.Duration
}

// sqlName is a table name the store writes into its statements as is.
var sqlName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// NewSQLIdempotencyStore returns an [IdempotencyStore] kept in the
// application's own database, so that a restart forgets no key
// (CLARIFICATIONS 10): the durable default for a site of one instance, and
// shared by several instances when they share a PostgreSQL database. The
// statements are portable SQL with $1 placeholders, which SQLite
// (modernc.org/sqlite) and PostgreSQL (pgx) both take, prepared once. It
// creates its table when missing. Every operation is one statement or two,
// atomic by the table's primary key, so processes sharing the database
// share the store. It is safe for concurrent use.
func NewSQLIdempotencyStore(ctx context.Context, db *sql.DB, opts *SQLOptions) (IdempotencyStore, error) {
	var o SQLOptions
	if opts != nil {
		o = *opts
	}
	if o.Table == "" {
		o.Table = "affordances_idempotency"
	}
	if o.ClaimTTL == 0 {
		o.ClaimTTL = 5 * time.Minute
	}
	if !sqlName.MatchString(o.Table) {
		return nil, fmt.Errorf("affordances: SQL idempotency store: table %q is not a plain name", o.Table)
	}
	if err := createTable(ctx, db, `CREATE TABLE IF NOT EXISTS `+o.Table+` (
		id TEXT PRIMARY KEY,
		body_hash TEXT NOT NULL,
		answer TEXT,
		expires_at BIGINT NOT NULL)`); err != nil {
		return nil, fmt.Errorf("affordances: SQL idempotency store: %w", err)
	}
	s := &sqlIdempotency{opts: o, now: time.Now}
	err := prepare(ctx, db, o.Table, map[**sql.Stmt]string{
		&s.sweep:   `DELETE FROM TABLE WHERE expires_at <= $1`,
		&s.expire:  `DELETE FROM TABLE WHERE id = $1 AND expires_at <= $2`,
		&s.claim:   `INSERT INTO TABLE (id, body_hash, answer, expires_at) VALUES ($1, $2, NULL, $3) ON CONFLICT (id) DO NOTHING`,
		&s.held:    `SELECT body_hash, answer FROM TABLE WHERE id = $1`,
		&s.finish:  `UPDATE TABLE SET answer = $1, expires_at = $2 WHERE id = $3 AND answer IS NULL`,
		&s.release: `DELETE FROM TABLE WHERE id = $1 AND answer IS NULL`,
	})
	if err != nil {
		return nil, fmt.Errorf("affordances: SQL idempotency store: %w", err)
	}
	return s, nil
}

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

// sqlIdempotency keeps one row per (scope, key): answer is NULL while the
// call runs, the JSON of its kept answer once it ran.
type sqlIdempotency struct {
	opts  SQLOptions
	now   func() time.Time
	calls atomic.Uint64 // Begins so far: every 100th sweeps expired rows

	sweep, expire, claim, held, finish, release *sql.Stmt
}

func entryID(scope, key string) string {
	h := sha256.Sum256([]byte(strconv.Itoa(len(scope)) + ":" + scope + key))
	return hex.EncodeToString(h[:])
}

func (s *sqlIdempotency) Begin(ctx context.Context, scope, key string, bodyHash [sha256.Size]byte) (*KeptCall, error) {
	id, now := entryID(scope, key), s.now().UnixMilli()
	if s.calls.Add(1)%100 == 0 {
		if _, err := s.sweep.ExecContext(ctx, now); err != nil {
			return nil, fmt.Errorf("affordances: SQL idempotency store: %w", err)
		}
	}
	if _, err := s.expire.ExecContext(ctx, id, now); err != nil {
		return nil, fmt.Errorf("affordances: SQL idempotency store: %w", err)
	}
	res, err := s.claim.ExecContext(ctx,
		id, hex.EncodeToString(bodyHash[:]), now+s.opts.ClaimTTL.Milliseconds())
	if err != nil {
		return nil, fmt.Errorf("affordances: SQL idempotency store: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, fmt.Errorf("affordances: SQL idempotency store: %w", err)
	}
	if n == 1 {
		return nil, nil // claimed
	}
	var hash string
	var answer sql.NullString
	err = s.held.QueryRowContext(ctx, id).Scan(&hash, &answer)
	if errors.Is(err, sql.ErrNoRows) {
		return s.Begin(ctx, scope, key, bodyHash) // released in between: claim again
	}
	if err != nil {
		return nil, fmt.Errorf("affordances: SQL idempotency store: %w", err)
	}
	b, err := hex.DecodeString(hash)
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("affordances: SQL idempotency store: entry %s has no body hash", id)
	}
	var kc KeptCall
	copy(kc.BodyHash[:], b)
	if answer.Valid {
		var k sqlKept
		if err := json.Unmarshal([]byte(answer.String), &k); err != nil {
			return nil, fmt.Errorf("affordances: SQL idempotency store: entry %s: %w", id, err)
		}
		kc.Delta = &KeptDelta{Status: k.Status, Header: k.Header, Body: k.Body}
	}
	return &kc, nil
}

// sqlKept is a KeptDelta as the table keeps it.
type sqlKept struct {
	Status int         `json:"status"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body"`
}

func (s *sqlIdempotency) Finish(ctx context.Context, scope, key string, res *KeptDelta) error {
	answer, err := json.Marshal(sqlKept{Status: res.Status, Header: res.Header, Body: res.Body})
	if err != nil {
		return fmt.Errorf("affordances: SQL idempotency store: %w", err)
	}
	_, err = s.finish.ExecContext(ctx,
		string(answer), s.now().Add(IdempotencyTTL).UnixMilli(), entryID(scope, key))
	if err != nil {
		return fmt.Errorf("affordances: SQL idempotency store: %w", err)
	}
	return nil
}

func (s *sqlIdempotency) Release(ctx context.Context, scope, key string) error {
	if _, err := s.release.ExecContext(ctx, entryID(scope, key)); err != nil {
		return fmt.Errorf("affordances: SQL idempotency store: %w", err)
	}
	return nil
}
