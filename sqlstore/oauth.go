package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/affordances/affordances-go/store"
)

// NewOAuth returns a [store.OAuth] kept in the application's own
// database, so that a restart signs no assistant out, shared by several
// instances of a site when they share a PostgreSQL database. It creates
// its three tables when missing: opts.Table followed by _tokens, _grants
// and _clients (empty: affordances_oauth). Each step that must be atomic
// is one statement (Deactivate, Spend, Used) or one transaction
// (CreateGrant, which replaces the person's earlier grant to the client
// and deletes its tokens, and RevokeGrant), so processes sharing the database share the store.
// Expired tokens are swept now and then as tokens are made. It is safe
// for concurrent use.
func NewOAuth(ctx context.Context, db *sql.DB, opts *Options) (store.OAuth, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Table == "" {
		o.Table = "affordances_oauth"
	}
	tokens, grants, clients := o.Table+"_tokens", o.Table+"_grants", o.Table+"_clients"
	for _, table := range []string{tokens, grants, clients} {
		if !sqlName.MatchString(table) {
			return nil, fmt.Errorf("sqlstore: oauth: table %q is not a plain name", table)
		}
	}
	// BOOLEAN and BYTEA are PostgreSQL's; SQLite keeps a bool as 1 or 0
	// and a blob as it is in a column of any type.
	for _, ddl := range []string{
		`CREATE TABLE IF NOT EXISTS ` + tokens + ` (
		kind TEXT NOT NULL,
		signature TEXT NOT NULL,
		grant_id TEXT NOT NULL,
		active BOOLEAN NOT NULL,
		expires_at BIGINT NOT NULL,
		request BYTEA,
		PRIMARY KEY (kind, signature))`,
		`CREATE INDEX IF NOT EXISTS ` + tokens + `_grant ON ` + tokens + ` (grant_id)`,
		`CREATE TABLE IF NOT EXISTS ` + grants + ` (
		id TEXT PRIMARY KEY,
		subject TEXT NOT NULL,
		client_id TEXT NOT NULL,
		client_name TEXT NOT NULL,
		trust TEXT NOT NULL,
		currency TEXT NOT NULL,
		ceiling DOUBLE PRECISION NOT NULL,
		spent DOUBLE PRECISION NOT NULL,
		created_at BIGINT NOT NULL,
		last_used BIGINT NOT NULL,
		replaced TEXT,
		UNIQUE (subject, client_id))`,
		`CREATE TABLE IF NOT EXISTS ` + clients + ` (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL,
		redirect_uris TEXT NOT NULL,
		created_at BIGINT NOT NULL)`,
	} {
		if err := createTable(ctx, db, ddl); err != nil {
			return nil, fmt.Errorf("sqlstore: oauth: %w", err)
		}
	}
	const (
		tokenCols  = `kind, signature, grant_id, active, expires_at, request`
		grantCols  = `id, subject, client_id, client_name, trust, currency, ceiling, spent, created_at, last_used`
		clientCols = `id, name, redirect_uris, created_at`
	)
	s := &sqlOAuth{db: db, now: time.Now}
	err := prepare(ctx, db, tokens, map[**sql.Stmt]string{
		&s.sweep: `DELETE FROM TABLE WHERE expires_at <= $1`,
		&s.insertToken: `INSERT INTO TABLE (` + tokenCols + `) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (kind, signature) DO UPDATE SET grant_id = excluded.grant_id, active = excluded.active,
			expires_at = excluded.expires_at, request = excluded.request`,
		&s.token:             `SELECT ` + tokenCols + ` FROM TABLE WHERE kind = $1 AND signature = $2 AND expires_at > $3`,
		&s.deleteToken:       `DELETE FROM TABLE WHERE kind = $1 AND signature = $2`,
		&s.deactivate:        `UPDATE TABLE SET active = FALSE WHERE kind = $1 AND signature = $2 AND active AND expires_at > $3`,
		&s.deactivateGrant:   `UPDATE TABLE SET active = FALSE WHERE kind = $1 AND grant_id = $2 AND active`,
		&s.deleteGrantTokens: `DELETE FROM TABLE WHERE kind = $1 AND grant_id = $2`,
		&s.deleteAllTokens:   `DELETE FROM TABLE WHERE grant_id = $1`,
	})
	if err == nil {
		err = prepare(ctx, db, grants, map[**sql.Stmt]string{
			// In DO UPDATE, TABLE.id is the id of the row replaced.
			&s.upsertGrant: `INSERT INTO TABLE (` + grantCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
				ON CONFLICT (subject, client_id) DO UPDATE SET replaced = TABLE.id, id = excluded.id,
				client_name = excluded.client_name, trust = excluded.trust, currency = excluded.currency,
				ceiling = excluded.ceiling, spent = excluded.spent, created_at = excluded.created_at,
				last_used = excluded.last_used
				RETURNING replaced`,
			&s.grant:       `SELECT ` + grantCols + ` FROM TABLE WHERE id = $1`,
			&s.grants:      `SELECT ` + grantCols + ` FROM TABLE WHERE subject = $1 ORDER BY created_at DESC, id`,
			&s.spend:       `UPDATE TABLE SET spent = CASE WHEN spent + $3 < 0 THEN 0 ELSE spent + $3 END WHERE id = $1 AND currency = $2 AND currency <> '' AND spent + $3 <= ceiling`,
			&s.used:        `UPDATE TABLE SET last_used = $2 WHERE id = $1 AND last_used < $2`,
			&s.deleteGrant: `DELETE FROM TABLE WHERE id = $1`,
		})
	}
	if err == nil {
		err = prepare(ctx, db, clients, map[**sql.Stmt]string{
			&s.insertClient: `INSERT INTO TABLE (` + clientCols + `) VALUES ($1, $2, $3, $4)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris, created_at = excluded.created_at`,
			&s.client: `SELECT ` + clientCols + ` FROM TABLE WHERE id = $1`,
		})
	}
	if err != nil {
		s.close()
		return nil, fmt.Errorf("sqlstore: oauth: %w", err)
	}
	return s, nil
}

// sqlOAuth keeps a row per token, grant and client; times are in Unix
// milliseconds, a grant's trust and a client's redirect URIs are JSON
// arrays. A grant's row is the pair (subject, client)'s: a new grant of
// the pair replaces it in place, and notes in replaced the id it had.
type sqlOAuth struct {
	db     *sql.DB
	now    func() time.Time
	tokens atomic.Uint64 // CreateTokens so far: every 100th sweeps expired tokens

	sweep, insertToken, token, deleteToken, deactivate, deactivateGrant, deleteGrantTokens, deleteAllTokens *sql.Stmt
	upsertGrant, grant, grants, spend, used, deleteGrant                                                    *sql.Stmt
	insertClient, client                                                                                    *sql.Stmt
}

// close closes the statements prepared, when a later one failed.
func (s *sqlOAuth) close() {
	for _, st := range []*sql.Stmt{s.sweep, s.insertToken, s.token, s.deleteToken, s.deactivate, s.deactivateGrant,
		s.deleteGrantTokens, s.deleteAllTokens, s.upsertGrant, s.grant, s.grants, s.spend, s.used,
		s.deleteGrant, s.insertClient, s.client} {
		if st != nil {
			st.Close()
		}
	}
}

func (s *sqlOAuth) CreateToken(ctx context.Context, t *store.OAuthToken) error {
	if s.tokens.Add(1)%100 == 0 {
		if _, err := s.sweep.ExecContext(ctx, s.now().UnixMilli()); err != nil {
			return fmt.Errorf("sqlstore: oauth: %w", err)
		}
	}
	_, err := s.insertToken.ExecContext(ctx, string(t.Kind), t.Signature, t.Grant, t.Active, t.Expires.UnixMilli(), t.Request)
	if err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	return nil
}

func (s *sqlOAuth) Token(ctx context.Context, kind store.OAuthKind, signature string) (*store.OAuthToken, error) {
	var t store.OAuthToken
	var expires int64
	err := s.token.QueryRowContext(ctx, string(kind), signature, s.now().UnixMilli()).
		Scan(&t.Kind, &t.Signature, &t.Grant, &t.Active, &expires, &t.Request)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: oauth: %w", err)
	}
	t.Expires = time.UnixMilli(expires)
	return &t, nil
}

func (s *sqlOAuth) DeleteToken(ctx context.Context, kind store.OAuthKind, signature string) error {
	return s.exec(ctx, s.deleteToken, string(kind), signature)
}

func (s *sqlOAuth) Deactivate(ctx context.Context, kind store.OAuthKind, signature string) error {
	return one(ctx, s.deactivate, store.ErrInactive, string(kind), signature, s.now().UnixMilli())
}

// one runs stmt, which changes one row or none, with args: none is ifNone.
func one(ctx context.Context, stmt *sql.Stmt, ifNone error, args ...any) error {
	res, err := stmt.ExecContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	if n != 1 {
		return ifNone
	}
	return nil
}

func (s *sqlOAuth) DeactivateGrant(ctx context.Context, kind store.OAuthKind, grant string) error {
	return s.exec(ctx, s.deactivateGrant, string(kind), grant)
}

func (s *sqlOAuth) DeleteGrantTokens(ctx context.Context, kind store.OAuthKind, grant string) error {
	return s.exec(ctx, s.deleteGrantTokens, string(kind), grant)
}

// CreateGrant keeps g in place of the person's earlier grant to the
// client, and deletes that one's tokens, in one transaction. The upsert
// waits for a concurrent one on the same pair and then replaces what it
// kept, so each deletes the tokens of the grant it replaced.
func (s *sqlOAuth) CreateGrant(ctx context.Context, g *store.OAuthGrant) error {
	trust, err := json.Marshal(nonNil(g.Trust))
	if err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	defer tx.Rollback()
	var replaced sql.NullString
	err = tx.StmtContext(ctx, s.upsertGrant).QueryRowContext(ctx, g.ID, g.Subject, g.Client, g.ClientName, string(trust),
		g.Currency, g.Ceiling, g.Spent, g.Created.UnixMilli(), g.LastUsed.UnixMilli()).Scan(&replaced)
	if err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	if replaced.Valid {
		if _, err := tx.StmtContext(ctx, s.deleteAllTokens).ExecContext(ctx, replaced.String); err != nil {
			return fmt.Errorf("sqlstore: oauth: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	return nil
}

// scanGrant reads one row of the grant columns, in order.
func scanGrant(row interface{ Scan(...any) error }) (*store.OAuthGrant, error) {
	var g store.OAuthGrant
	var trust string
	var created, lastUsed int64
	err := row.Scan(&g.ID, &g.Subject, &g.Client, &g.ClientName, &trust, &g.Currency, &g.Ceiling, &g.Spent, &created, &lastUsed)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(trust), &g.Trust); err != nil {
		return nil, fmt.Errorf("the trust of grant %s: %w", g.ID, err)
	}
	g.Created, g.LastUsed = time.UnixMilli(created), time.UnixMilli(lastUsed)
	return &g, nil
}

func (s *sqlOAuth) Grant(ctx context.Context, id string) (*store.OAuthGrant, error) {
	g, err := scanGrant(s.grant.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: oauth: %w", err)
	}
	return g, nil
}

func (s *sqlOAuth) Grants(ctx context.Context, subject string) ([]*store.OAuthGrant, error) {
	rows, err := s.grants.QueryContext(ctx, subject)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: oauth: %w", err)
	}
	defer rows.Close()
	var out []*store.OAuthGrant
	for rows.Next() {
		g, err := scanGrant(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: oauth: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: oauth: %w", err)
	}
	return out, nil
}

func (s *sqlOAuth) Spend(ctx context.Context, id, currency string, amount float64) error {
	if math.IsNaN(amount) || math.IsInf(amount, 0) {
		return store.ErrOverCeiling
	}
	return one(ctx, s.spend, store.ErrOverCeiling, id, currency, amount)
}

func (s *sqlOAuth) Used(ctx context.Context, id string, t time.Time) error {
	return s.exec(ctx, s.used, id, t.UnixMilli())
}

// RevokeGrant deletes the grant and its tokens in one transaction.
func (s *sqlOAuth) RevokeGrant(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	defer tx.Rollback()
	for _, st := range []*sql.Stmt{s.deleteGrant, s.deleteAllTokens} {
		if _, err := tx.StmtContext(ctx, st).ExecContext(ctx, id); err != nil {
			return fmt.Errorf("sqlstore: oauth: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	return nil
}

func (s *sqlOAuth) CreateClient(ctx context.Context, c *store.OAuthClient) error {
	uris, err := json.Marshal(nonNil(c.RedirectURIs))
	if err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	return s.exec(ctx, s.insertClient, c.ID, c.Name, string(uris), c.Created.UnixMilli())
}

func (s *sqlOAuth) Client(ctx context.Context, id string) (*store.OAuthClient, error) {
	var c store.OAuthClient
	var uris string
	var created int64
	err := s.client.QueryRowContext(ctx, id).Scan(&c.ID, &c.Name, &uris, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: oauth: %w", err)
	}
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return nil, fmt.Errorf("sqlstore: oauth: the redirect URIs of client %s: %w", c.ID, err)
	}
	c.Created = time.UnixMilli(created)
	return &c, nil
}

// exec runs st with args, for a statement whose effect is not checked.
func (s *sqlOAuth) exec(ctx context.Context, st *sql.Stmt, args ...any) error {
	if _, err := st.ExecContext(ctx, args...); err != nil {
		return fmt.Errorf("sqlstore: oauth: %w", err)
	}
	return nil
}

// nonNil returns list, or an empty list for nil, so that it is kept as
// the JSON [] rather than null.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
