package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/affordances/affordances-go/store"
)

// NewIdempotency returns a [store.Idempotency] kept in the application's
// own database, so that a restart forgets no key (docs/protocol.md decision 10): the
// durable default for a site of one instance, and shared by several
// instances when they share a PostgreSQL database. It creates its table
// (opts.Table, empty for affordances_idempotency) when missing. Every
// operation is one statement or two, atomic by the table's primary key,
// so processes sharing the database share the store. It is safe for
// concurrent use.
func NewIdempotency(ctx context.Context, db *sql.DB, opts *Options) (store.Idempotency, error) {
	var o Options
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
		return nil, fmt.Errorf("sqlstore: idempotency: table %q is not a plain name", o.Table)
	}
	if err := createTable(ctx, db, `CREATE TABLE IF NOT EXISTS `+o.Table+` (
		id TEXT PRIMARY KEY,
		body_hash TEXT NOT NULL,
		answer TEXT,
		expires_at BIGINT NOT NULL)`); err != nil {
		return nil, fmt.Errorf("sqlstore: idempotency: %w", err)
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
		return nil, fmt.Errorf("sqlstore: idempotency: %w", err)
	}
	return s, nil
}

// sqlIdempotency keeps one row per (scope, key): answer is NULL while the
// call runs, the JSON of its kept answer once it ran.
type sqlIdempotency struct {
	opts  Options
	now   func() time.Time
	calls atomic.Uint64 // Begins so far: every 100th sweeps expired rows

	sweep, expire, claim, held, finish, release *sql.Stmt
}

func entryID(scope, key string) string {
	h := sha256.Sum256([]byte(strconv.Itoa(len(scope)) + ":" + scope + key))
	return hex.EncodeToString(h[:])
}

func (s *sqlIdempotency) Begin(ctx context.Context, scope, key string, bodyHash [sha256.Size]byte) (*store.KeptCall, error) {
	id, now := entryID(scope, key), s.now().UnixMilli()
	if s.calls.Add(1)%100 == 0 {
		if _, err := s.sweep.ExecContext(ctx, now); err != nil {
			return nil, fmt.Errorf("sqlstore: idempotency: %w", err)
		}
	}
	// Three tries: an entry the claim found held can be gone by the select
	// only when it was released or expired in between; then claim again.
	for range 3 {
		if _, err := s.expire.ExecContext(ctx, id, now); err != nil {
			return nil, fmt.Errorf("sqlstore: idempotency: %w", err)
		}
		res, err := s.claim.ExecContext(ctx,
			id, hex.EncodeToString(bodyHash[:]), now+s.opts.ClaimTTL.Milliseconds())
		if err != nil {
			return nil, fmt.Errorf("sqlstore: idempotency: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, fmt.Errorf("sqlstore: idempotency: %w", err)
		}
		if n == 1 {
			return nil, nil // claimed
		}
		var hash string
		var answer sql.NullString
		err = s.held.QueryRowContext(ctx, id).Scan(&hash, &answer)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sqlstore: idempotency: %w", err)
		}
		return heldCall(id, hash, answer)
	}
	return nil, fmt.Errorf("sqlstore: idempotency: entry %s was held when claimed and gone when read, three times in a row", id)
}

// heldCall reads what the row of entry id holds: the body hash in hex,
// and the kept answer as JSON, NULL while the call runs.
func heldCall(id, hash string, answer sql.NullString) (*store.KeptCall, error) {
	b, err := hex.DecodeString(hash)
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("sqlstore: idempotency: entry %s has no body hash", id)
	}
	var kc store.KeptCall
	copy(kc.BodyHash[:], b)
	if answer.Valid {
		var k sqlKept
		if err := json.Unmarshal([]byte(answer.String), &k); err != nil {
			return nil, fmt.Errorf("sqlstore: idempotency: entry %s: %w", id, err)
		}
		kc.Delta = &store.KeptDelta{Status: k.Status, Header: k.Header, Body: k.Body}
	}
	return &kc, nil
}

// sqlKept is a [store.KeptDelta] as the table keeps it.
type sqlKept struct {
	Status int         `json:"status"`
	Header http.Header `json:"header,omitempty"`
	Body   []byte      `json:"body"`
}

func (s *sqlIdempotency) Finish(ctx context.Context, scope, key string, res *store.KeptDelta) error {
	answer, err := json.Marshal(sqlKept{Status: res.Status, Header: res.Header, Body: res.Body})
	if err != nil {
		return fmt.Errorf("sqlstore: idempotency: %w", err)
	}
	_, err = s.finish.ExecContext(ctx,
		string(answer), s.now().Add(store.IdempotencyTTL).UnixMilli(), entryID(scope, key))
	if err != nil {
		return fmt.Errorf("sqlstore: idempotency: %w", err)
	}
	return nil
}

func (s *sqlIdempotency) Release(ctx context.Context, scope, key string) error {
	if _, err := s.release.ExecContext(ctx, entryID(scope, key)); err != nil {
		return fmt.Errorf("sqlstore: idempotency: %w", err)
	}
	return nil
}
