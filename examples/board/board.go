// Package board is the short demo of affordances-go, the one to learn the
// library from: a team task board whose pages answer HTML to people and an
// Affordances graph to agents from the same URLs, sessions and actions.
//
// Every action is declared once, in routes.go, and serves three front
// doors: an agent's call, a person's HTML form (the library's form
// binding runs the same action, guard and confirmation) and the AAL
// affordance of the page's element. The application itself has no POST
// handler: only the pages, the CSV export and the stylesheet (web.go).
//
//	b, err := board.Open(ctx, &board.Options{DataDir: dir})
//	if err != nil { ... }
//	defer b.Close()
//	http.ListenAndServe("127.0.0.1:8080", b.Handler())
//
// Pages: /boards (your boards and the public ones), /boards/{board} (its
// columns of tasks: create, search, move, delete, invite, delete the
// board, export as CSV) and /login. Data lives in one SQLite file
// (modernc.org/sqlite, no cgo) or, with [Options.Database], in a PostgreSQL
// database that several instances may share; either is seeded when
// empty: alice@example.com
// (password "alice") owns the public board "Website relaunch" and the
// private "Team offsite"; bob@example.com ("bob") is a member of both,
// carol@example.com ("carol") of the first only.
//
// Every page with a graph also registers its available actions as WebMCP
// tools for an agent in the browser (affordances.Page.Head), its forms
// declare the same tools by their attributes, and /llms.txt describes the
// site in Markdown.
package board

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/redisstore"
	"github.com/affordances/affordances-go/sqlstore"
	"github.com/redis/go-redis/v9"
)

// DemoEmail and DemoPassword sign in the seeded owner of the boards.
const (
	DemoEmail    = "alice@example.com"
	DemoPassword = "alice"
)

// Options configures [Open]. The zero value of every field is a sound
// default.
type Options struct {
	// Database is a PostgreSQL URL (postgres://…): the board's data lives
	// there, created and seeded when empty; several instances may share it.
	// Empty: the SQLite file board.db in DataDir.
	Database string

	// DataDir is the directory of the SQLite file, board.db, created when
	// missing; unused when Database is set. Empty: a new temporary
	// directory, removed by [Board.Close].
	DataDir string

	// DemoToken is alice's bearer token. Empty: a random one is made at
	// each Open. Either way it replaces the token of the previous Open, and
	// [Board.Token] returns it. Instances sharing a database need the same
	// one, or each replaces the other's.
	DemoToken string

	// Logger receives unexpected failures. Nil: [slog.Default].
	Logger *slog.Logger

	// Redis, when set, keeps the site's rate limits, Idempotency-Keys and
	// approvals, so several instances share them. Nil: the keys and
	// approvals in the board's database, the limits in memory.
	Redis redis.UniversalClient

	// NoApproval lets deleteBoard run on an agent's confirm: true alone.
	// By default deleting a board is human-verified (CLARIFICATIONS 10):
	// the agent's call gets the URL of the board's approval page, the
	// owner approves there, signed in, and only then does the call run. A
	// person's own form needs no approval page: its confirmation is one.
	NoApproval bool

	// Origin is the site's origin ("https://board.example"), the only
	// Origin a cookie call or a form post may carry; [affordances.NewSite]
	// panics when it is not http(s)://host[:port]. Empty: derived from each
	// request.
	Origin string
}

// A Board is the demo task board: its database, its Affordances site and
// its HTML pages. It is safe for concurrent use.
type Board struct {
	store   *store
	site    *affordances.Site
	handler http.Handler
	logger  *slog.Logger
	views   *views
	token   string
	tmpDir  string // removed by Close when Open made it
	secure  bool   // cookies get the Secure attribute
	// noApproval is Options.NoApproval.
	noApproval bool
}

// Open opens (creating and seeding when new) the board's database,
// opts.Database or board.db in opts.DataDir, and declares its routes. opts
// may be nil. The caller must call [Board.Close].
func Open(ctx context.Context, opts *Options) (*Board, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	b := &Board{logger: o.Logger, token: o.DemoToken, secure: strings.HasPrefix(o.Origin, "https:"), noApproval: o.NoApproval}
	if b.logger == nil {
		b.logger = slog.Default()
	}
	if b.token == "" {
		b.token = randomToken()
	}
	source := o.Database
	if source == "" {
		dir := o.DataDir
		if dir == "" {
			tmp, err := os.MkdirTemp("", "affordances-board-")
			if err != nil {
				return nil, fmt.Errorf("board: %w", err)
			}
			dir, b.tmpDir = tmp, tmp
		} else if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("board: %w", err)
		}
		source = filepath.Join(dir, "board.db")
	}
	st, err := openStore(ctx, source)
	if err != nil {
		b.Close()
		return nil, err
	}
	b.store = st
	if err := st.setToken(ctx, DemoEmail, b.token); err != nil {
		b.Close()
		return nil, fmt.Errorf("board: demo token: %w", err)
	}
	secret, err := st.secret(ctx)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("board: %w", err)
	}
	b.views = parseViews()
	siteOpts := &affordances.SiteOptions{
		Name:         "Team Board",
		Description:  "A demo task board: a team's tasks in three columns (to do, doing, done), on boards public or private to their members.",
		Origin:       o.Origin,
		SigningKey:   secret,
		Authenticate: b.authenticate,
		SignInReason: "Sign in to change this board.",
		Logger:       b.logger,
	}
	// Idempotency-Keys and approvals live in the board's own database, so
	// a restart forgets none and instances sharing a PostgreSQL database
	// share them; with Redis, every instance shares them and the limits.
	if o.Redis != nil {
		siteOpts.RateLimiter, siteOpts.Idempotency, siteOpts.Approvals = redisstore.NewRateLimiter(o.Redis, nil), redisstore.NewIdempotency(o.Redis, nil), redisstore.NewApprovals(o.Redis, nil)
	} else {
		if siteOpts.Idempotency, err = sqlstore.NewIdempotency(ctx, st.db.Pool(), nil); err == nil {
			siteOpts.Approvals, err = sqlstore.NewApprovals(ctx, st.db.Pool(), nil)
		}
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("board: %w", err)
		}
	}
	b.site = affordances.NewSite(siteOpts)
	b.declare()
	b.handler = b.site.Handler(b.pages())
	return b, nil
}

// Handler returns the board's HTTP handler: the Affordances site wrapped
// around the HTML pages.
func (b *Board) Handler() http.Handler { return b.handler }

// Token returns alice's bearer token.
func (b *Board) Token() string { return b.token }

// Close closes the database, and removes the data directory when Open made
// a temporary one.
func (b *Board) Close() error {
	var err error
	if b.store != nil {
		err = b.store.close()
	}
	if b.tmpDir != "" {
		os.RemoveAll(b.tmpDir)
		b.tmpDir = ""
	}
	return err
}

// randomToken returns 32 random bytes, base64url without padding.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}
