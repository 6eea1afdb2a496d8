package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/affordances/affordances-go/examples/plain"
	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/mcpbridge"
	"github.com/redis/go-redis/v9"
)

// demoTokenEnv names the environment variable that fixes the demo user's
// bearer token.
const demoTokenEnv = "AFFORDANCES_DEMO_TOKEN"

var demoCommand = &command{
	Name:    "demo",
	Args:    "[shop|plain]",
	Summary: "Run a demo site: the shop (HTML and Affordances graphs on one URL), or plain (AAL only).",
	Details: `The shop (the default) is a small real shop with a checkout. It keeps its
data in an SQLite file under --data, or with --database in PostgreSQL, and
its Idempotency-Keys there too (a restart forgets none); with --redis the
keys and the rate limits live in Redis, which keeps the keys across its own
restart only with persistence (redis-server --appendonly yes). It prints
where it listens, who can sign in and alice's bearer token
($` + demoTokenEnv + ` fixes it).

Its /mcp is for the assistants people run (Claude, ChatGPT, VS Code): one
that comes without a token is answered 401 with where to sign in, and the
shop is the OAuth authorization server it signs in with; the person signs
in on the shop and grants it what it may do. Alice's bearer token works
there too. The shop's origin is http://ADDR, or --origin when people reach
it by another name (behind a proxy, or with --addr 0.0.0.0:8080).

--seed realistic seeds a new shop with a catalog of the size a small real
shop has: about 200 products with their variants and some 1,200 reviews
by 40 seeded shoppers, the demo's products and people among them; its
pages paginate as a real shop's do (24 products a page, 10 reviews). It
keeps its SQLite file apart from the demo-size shop's, in a directory
"realistic" under the default --data; a database seeded already keeps
what it holds.

Several instances of the shop share one PostgreSQL database and one Redis:
start each with the same --database, --redis and $` + demoTokenEnv + `, on
its own --addr, behind any reverse proxy. Sessions, tokens, orders,
Idempotency-Keys and rate limits are then the same on every instance.

The second demo, plain, is a small notebook site written without this library
(examples/plain), the shape a PHP or Rails site has: static HTML pages, plain
form handlers, and AAL written by hand (a manifest at
/.well-known/agent-affordances.json, a fragment per page, data-aal attributes),
with no Affordances graph. Its forms: search, a newsletter signup, add a note,
delete a note (destructive and irreversible), a contact form and a sign-in
(ada@example.com / ada). inspect, call and the MCP bridge read and operate it
in headless Chromium; it prints every form it receives, and keeps everything
in memory (it takes only --addr).

The task board, the short demo to learn the library from, is a program of
its own, to read and copy: ` + boardCommand + ` (in this repository; its
flags are -addr, -data, -token, -no-approval and -seed, -help says more).`,
	Example: `affordances demo --addr 127.0.0.1:8080
# in another terminal, as an agent:
curl -H 'Accept: application/vnd.affordances+json' http://127.0.0.1:8080/
# two instances of the shop sharing PostgreSQL and Redis:
export AFFORDANCES_DEMO_TOKEN=secret
affordances demo --addr 127.0.0.1:8081 --database postgres://demo@127.0.0.1/shop --redis redis://127.0.0.1:6379/0 &
affordances demo --addr 127.0.0.1:8082 --database postgres://demo@127.0.0.1/shop --redis redis://127.0.0.1:6379/0 &
# a shop of realistic size, about 200 products:
affordances demo --seed realistic --addr 127.0.0.1:8084
# the plain site, which publishes AAL only; add a note through its form:
affordances demo plain --addr 127.0.0.1:8082
affordances inspect http://127.0.0.1:8082/notes
affordances call http://127.0.0.1:8082/notes add-note '{"title":"Tea","body":"Green, at four."}'
# the task board is a program of its own, in this repository:
go run ./examples/board -addr 127.0.0.1:8083 -token secret`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on")
		data := fs.String("data", "", "`directory` of the shop's SQLite file (default: $XDG_DATA_HOME/affordances-demo, or ~/.local/share/affordances-demo)")
		database := fs.String("database", "", "keep the shop's data in the PostgreSQL database at `URL` (postgres://user@host/db), created and seeded when empty, instead of the SQLite file; several instances may share it")
		noApproval := fs.Bool("no-approval", false, "the shop places an order on an agent's confirm: true alone; by default the person approves each on the shop's approval page, in their browser")
		seed := fs.String("seed", "demo", "seed a new shop with `size` demo (a handful of products) or realistic (about 200 products and their reviews)")
		origin := fs.String("origin", "", "the shop's `URL` as people's browsers reach it, the issuer of its OAuth tokens (default: http:// and --addr)")
		redisURL := fs.String("redis", "", "keep rate limits and Idempotency-Keys in the Redis at `URL` (redis://127.0.0.1:6379/0), shared by every instance")
		return func(ctx context.Context, e *env, args []string) error {
			which := "shop"
			if len(args) > 0 {
				which = args[0]
			}
			switch {
			case which == "board":
				return usagef("the task board is a program of its own now, to read and copy: run %s (in this repository; -help shows its flags)", boardCommand)
			case which != "shop" && which != "plain":
				return usagef("unexpected argument %q: the demo is shop or plain (the board: %s)", args[0], boardCommand)
			case len(args) > 1:
				return usagef("unexpected argument %q", args[1])
			case which == "plain" && (*data != "" || *database != "" || *redisURL != "" || *noApproval || *seed != "demo" || *origin != ""):
				return usagef("the plain demo keeps everything in memory and takes only --addr")
			case which == "plain":
				return runPlain(ctx, e, *addr)
			}
			if *database != "" && !strings.HasPrefix(*database, "postgres://") && !strings.HasPrefix(*database, "postgresql://") {
				return usagef("--database %q: want a PostgreSQL URL, postgres://user@host/db", *database)
			}
			if *seed != "demo" && *seed != "realistic" {
				return usagef("--seed %q: want demo or realistic", *seed)
			}
			if *database != "" && *data != "" {
				return usagef("--data and --database: choose one (--data is the SQLite file's directory)")
			}
			var rdb *redis.Client
			if *redisURL != "" {
				opts, err := redis.ParseURL(*redisURL)
				if err != nil {
					return usagef("--redis: %v", err)
				}
				rdb = redis.NewClient(opts)
				defer rdb.Close()
				if err := rdb.Ping(ctx).Err(); err != nil {
					return fmt.Errorf("--redis %s: %w", *redisURL, err)
				}
			}
			return runShop(ctx, e, demoSettings{addr: *addr, origin: *origin, dir: *data, database: *database, noApproval: *noApproval, seed: *seed}, rdb)
		}
	},
}

// boardCommand runs the task board, examples/board.
const boardCommand = "go run ./examples/board"

// dataDir returns the demo's default data directory.
func dataDir(e *env) (string, error) {
	if d := e.getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "affordances-demo"), nil
	}
	home := e.getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("no data directory: set --data or $XDG_DATA_HOME: %w", err)
		}
	}
	return filepath.Join(home, ".local", "share", "affordances-demo"), nil
}

// demoSettings are the demo command's flags.
type demoSettings struct {
	addr, origin, dir, database string
	noApproval                  bool
	seed                        string // demo or realistic
}

// runShop opens the demo shop and serves it on set.addr until ctx ends or
// the process is interrupted.
func runShop(ctx context.Context, e *env, set demoSettings, rdb *redis.Client) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir := set.dir
	if dir == "" {
		var err error
		if dir, err = dataDir(e); err != nil {
			return err
		}
		if set.seed == "realistic" {
			dir = filepath.Join(dir, "realistic")
		}
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ln, err := net.Listen("tcp", set.addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	url := "http://" + ln.Addr().String()
	origin := set.origin
	if origin == "" {
		if ip := ln.Addr().(*net.TCPAddr).IP; ip.IsUnspecified() {
			return usagef("--addr %s listens on every address: say the shop's URL as browsers reach it with --origin", set.addr)
		}
		origin = url
	}
	opts := &shop.Options{DataDir: dir, Database: set.database, DemoToken: e.getenv(demoTokenEnv), Logger: logger, MCP: "/mcp", NoApproval: set.noApproval, Seed: set.seed, Origin: origin}
	if rdb != nil {
		opts.Redis = rdb
	}
	s, err := shop.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	mux := http.NewServeMux()
	// The shop's own MCP endpoint, advertised in its index: without a
	// token, 401 and where to sign in (docs/protocol.md decision 14).
	mux.Handle("/mcp", s.OAuth().Protect(mcpbridge.Handler(s.Handler(), nil)))
	mux.Handle("/", s.Handler())
	fmt.Fprintf(e.stdout, `Demo shop listening on %s
  data:    %s
  sign in: %s / %s (admin: %s / %s, at /admin)
  token:   %s
  mcp:     %s/mcp (an assistant signs in by OAuth; the token works too)
  try:     curl -H 'Accept: application/vnd.affordances+json' -H 'Authorization: Bearer %s' %s/
Press Ctrl-C to stop.
`, url, s.Path(), shop.DemoEmail, shop.DemoPassword, shop.AdminEmail, shop.AdminPassword, s.Token(), origin, s.Token(), url)
	return serve(ctx, e, ln, mux, logger)
}

// runPlain serves the plain demo (examples/plain) on addr until ctx ends
// or the process is interrupted, printing each form it receives.
func runPlain(ctx context.Context, e *env, addr string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	url := "http://" + ln.Addr().String()
	var mu sync.Mutex // the banner and the received forms, one line at a time
	s := plain.New(&plain.Options{OnReceive: func(sub plain.Submission) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(e.stdout, receivedLine(sub))
	}})
	mu.Lock()
	fmt.Fprintf(e.stdout, `Demo plain site (no Affordances library: static pages, form handlers, AAL by hand) listening on %s
  AAL:     %s%s and a fragment per page
  sign in: %s / %s
  try:     affordances inspect %s/notes
Press Ctrl-C to stop.
`, url, url, plain.ManifestPath, plain.DemoEmail, plain.DemoPassword, url)
	mu.Unlock()
	return serve(ctx, e, ln, s.Handler(), logger)
}

// receivedLine is what the plain demo prints of a form it received:
// `received POST /notes: "body"="Green" "title"="Tea" (signed in as
// ada@example.com)`, the site's text quoted as Go does, so a control
// character cannot reach the terminal.
func receivedLine(sub plain.Submission) string {
	line := "received " + sub.Method + " " + sub.Path + ":"
	for _, k := range sortedKeys(sub.Form) {
		for _, v := range sub.Form[k] {
			line += " " + strconv.Quote(k) + "=" + strconv.Quote(v)
		}
	}
	if sub.User != "" {
		line += " (signed in as " + sub.User + ")"
	}
	return line
}

// serve serves h on ln until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, e *env, ln net.Listener, h http.Handler, logger *slog.Logger) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // a slow body cannot hold a connection
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(e.stdout, "Stopped.")
	return nil
}
