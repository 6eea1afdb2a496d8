// Board is the short demo of affordances-go, the one to learn the library
// from, and to copy: a team task board whose pages answer HTML to people
// and an Affordances graph to agents from the same URLs, sessions and
// actions.
//
//	go run ./examples/board -addr 127.0.0.1:8080 -data /tmp/board
//
// Every action is declared once, in routes.go, and serves three front
// doors: an agent's call, a person's HTML form (the library's form
// binding runs the same action, guard and confirmation) and the AAL
// affordance of the page's element. The program itself has no POST
// handler: only the pages, the CSV export and the stylesheet (web.go).
//
// Pages: /boards (your boards and the public ones), /boards/{board} (its
// columns of tasks: create, search, move, delete, invite, delete the
// board, export as CSV) and /login. Data lives in one SQLite file,
// board.db in the -data directory (modernc.org/sqlite, no cgo), seeded
// when new: alice@example.com (password "alice") owns the public board
// "Website relaunch" and the private "Team offsite"; bob@example.com
// ("bob") is a member of both, carol@example.com ("carol") of the first
// only. Alice's bearer token, for agents, is -token, or
// $AFFORDANCES_DEMO_TOKEN, or else a new random one at each start. With
// -seed realistic, a new board.db gets boards of a real team's size, the
// relaunch's 100 tasks and the offsite's 20, whose page lists 50 at a
// time (examples/board/realistic.go).
//
// Every page with a graph also registers its available actions as WebMCP
// tools for an agent in the browser (affordances.Page.Head), its forms
// declare the same tools by their attributes, and /llms.txt describes the
// site in Markdown.
package main

import (
	"context"
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
	addr := flag.String("addr", "127.0.0.1:8080", "`host:port` to listen on")
	data := flag.String("data", defaultDataDir(), "`directory` of the board's SQLite file, board.db, created and seeded when missing")
	token := flag.String("token", "", "alice's bearer `token` for agents (default: $AFFORDANCES_DEMO_TOKEN, else a new random one at each start)")
	seed := flag.String("seed", "demo", "what a new board.db is seeded with: demo (the boards' 12 tasks) or realistic (boards of 100 and 20 tasks)")
	noApproval := flag.Bool("no-approval", false, "delete a board on an agent's confirm: true alone; by default its owner approves each on the board's approval page, in their browser")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "board: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	if *seed != "demo" && *seed != "realistic" {
		fmt.Fprintf(os.Stderr, "board: -seed %q: want demo or realistic\n", *seed)
		flag.Usage()
		os.Exit(2)
	}
	if *token == "" {
		*token = os.Getenv("AFFORDANCES_DEMO_TOKEN")
	}
	if err := run(*addr, *data, options{Token: *token, NoApproval: *noApproval, Realistic: *seed == "realistic"}); err != nil {
		fmt.Fprintln(os.Stderr, "board:", err)
		os.Exit(1)
	}
}

// defaultDataDir is $XDG_DATA_HOME/affordances-demo/board, or
// ~/.local/share/affordances-demo/board, or board-data when there is no
// home directory.
func defaultDataDir() string {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "board-data"
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "affordances-demo", "board")
}

// run serves the board on addr, its data in dir, until SIGINT or SIGTERM;
// then it lets the requests under way finish, for up to 5 seconds.
func run(addr, dir string, opts options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	db, err := openDB(ctx, filepath.Join(dir, "board.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := newBoard(ctx, db, opts)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	fmt.Printf(`Board listening on %s
  data:    %s
  sign in: %s / %s (owner of both boards; also bob@example.com / bob, carol@example.com / carol)
  token:   %s
  try:     curl -H 'Accept: application/vnd.affordances+json' -H 'Authorization: Bearer %s' %s/boards
Press Ctrl-C to stop.
`, url, dir, demoEmail, demoPassword, b.token, b.token, url)

	srv := &http.Server{
		Handler:           b.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // a slow body cannot hold a connection
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
