package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"fmt"
	"net/http"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/sqlstore"
)

// demoEmail and demoPassword sign in the seeded owner of the boards.
const (
	demoEmail    = "alice@example.com"
	demoPassword = "alice"
)

// options configure [newBoard]. The zero value of every field is a sound
// default.
type options struct {
	// Token is alice's bearer token. Empty: a random one. Either way it
	// replaces the token of the previous start.
	Token string

	// NoApproval lets an agent's confirm: true alone delete a board; by
	// default the owner approves each deletion on the board's approval
	// page, in their browser (docs/protocol.md decision 10).
	NoApproval bool

	// Realistic seeds a new database with the boards a real team has: the
	// demo's, with 100 and 20 tasks (realistic.go). A database seeded
	// already keeps what it holds.
	Realistic bool
}

// A Board is the task board: its database, its Affordances site and its
// HTML pages. It is safe for concurrent use.
type Board struct {
	store      *store
	site       *affordances.Site
	handler    http.Handler
	views      *views
	token      string
	noApproval bool
}

// newBoard creates the board's tables in db (and seeds them) when they are
// not there, and declares its routes.
func newBoard(ctx context.Context, db *sql.DB, opts options) (*Board, error) {
	b := &Board{store: &store{db: db}, token: opts.Token, noApproval: opts.NoApproval}
	if b.token == "" {
		b.token = randomToken()
	}
	if err := b.store.migrate(ctx, opts.Realistic); err != nil {
		return nil, fmt.Errorf("create the tables: %w", err)
	}
	if err := b.store.setToken(ctx, demoEmail, b.token); err != nil {
		return nil, fmt.Errorf("alice's token: %w", err)
	}
	secret, err := b.store.secret(ctx)
	if err != nil {
		return nil, err
	}
	// Idempotency-Keys and approvals live in the board's own database, so
	// a restart forgets none (docs/protocol.md decision 10).
	idempotency, err := sqlstore.NewIdempotency(ctx, db, nil)
	if err != nil {
		return nil, err
	}
	approvals, err := sqlstore.NewApprovals(ctx, db, nil)
	if err != nil {
		return nil, err
	}
	b.views = parseViews()
	b.site = affordances.NewSite(&affordances.SiteOptions{
		Name:         "Team Board",
		Description:  "A demo task board: a team's tasks in three columns (to do, doing, done), on boards public or private to their members.",
		SigningKey:   secret,
		Authenticate: b.authenticate,
		SignInReason: "Sign in to change this board.",
		Idempotency:  idempotency,
		Approvals:    approvals,
	})
	b.declare()
	b.handler = b.site.Handler(b.pages())
	return b, nil
}

// Handler returns the board's HTTP handler: the Affordances site wrapped
// around the HTML pages.
func (b *Board) Handler() http.Handler { return b.handler }

// randomToken returns 32 random bytes, base64url without padding.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}
