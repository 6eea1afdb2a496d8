// Links is a small reading list: people save links, tag them, mark them
// read and delete them, and each has a public page of the links they did
// not mark private.
//
//	go run ./examples/retrofit --addr 127.0.0.1:8090 --data /tmp/links
//
// It is an ordinary net/http application, served under /app/: its own
// sessions (a random id in an HttpOnly cookie, a row in the sessions
// table), its own CSRF token per session in every form and in the
// X-CSRF-Token header of its script's JSON requests, a Content Security
// Policy that runs only scripts carrying the request's nonce, and
// Referrer-Policy: no-referrer.
//
// Pages: /app/links/ (yours; add, mark read, edit, delete), /app/tags/{tag}/,
// /app/{user} (a public page), /app/login, /app/about. Data lives in one
// SQLite file, links.db in the --data directory (modernc.org/sqlite, no
// cgo), seeded when new: ada@example.com (password "ada") and
// grace@example.com ("grace"), with a few links each.
//
// Agents read the same pages as an Affordances graph and call their
// actions (agents.go): with ada's bearer token, $AFFORDANCES_DEMO_TOKEN or
// else a new random one at each start, or with a person's session cookie.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "`host:port` to listen on")
	data := flag.String("data", defaultDataDir(), "`directory` of the app's SQLite file, links.db, created and seeded when missing")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "links: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*addr, *data); err != nil {
		fmt.Fprintln(os.Stderr, "links:", err)
		os.Exit(1)
	}
}

// defaultDataDir is $XDG_DATA_HOME/affordances-demo/retrofit, or
// ~/.local/share/affordances-demo/retrofit, or links-data when there is no
// home directory.
func defaultDataDir() string {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "links-data"
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "affordances-demo", "retrofit")
}

// run serves the app on addr, its data in dir, until SIGINT or SIGTERM;
// then it lets the requests under way finish, for up to 5 seconds.
func run(addr, dir string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	db, err := openDB(ctx, filepath.Join(dir, "links.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	token := os.Getenv("AFFORDANCES_DEMO_TOKEN")
	if token == "" {
		token = rand.Text()
	}
	app, err := newApp(ctx, db, token)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf(`Links listening on http://%s%s/
  data:    %s
  sign in: %s / %s (also grace@example.com / grace)
  token:   %s (%[4]s's, for agents)
Press Ctrl-C to stop.
`, ln.Addr(), basePath, dir, demoEmail, demoPassword, token)

	srv := &http.Server{
		Handler:           app.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	stop() // a second Ctrl-C ends the program at once
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Println("Stopped.")
	return nil
}
