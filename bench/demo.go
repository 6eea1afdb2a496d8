package bench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/affordances/affordances-go/examples/board"
	"github.com/affordances/affordances-go/examples/shop"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Sites returns the demo sites the bench runs on, in report order, in a
// new slice.
func Sites() []string { return []string{"shop", "board"} }

// passwords are the seeded users' passwords: each demo's password is the
// part of the email before the @.
func password(email string) string {
	name, _, _ := strings.Cut(email, "@")
	return name
}

// StartDemo starts a fresh demo of site ("shop" or "board") on a loopback
// port of its own, with the seeded data and nothing else, and signs in as
// the seeded user as ("" for nobody) through the site's sign-in form. Both
// run with human-verified confirmation off ([shop.Options.NoApproval],
// [board.Options.NoApproval]).
// The returned stop closes the server and the database and removes the
// data; it must be called once d is no longer used.
//
// Every demo starts from a copy of one database seeded once per process,
// rather than running the migrations and the seed's inserts each time.
func StartDemo(ctx context.Context, site, as string) (d *Demo, stop func(), err error) {
	seeded, ok := templates[site]
	if !ok {
		return nil, nil, fmt.Errorf("bench: no demo site %q (the sites are %s)", site, strings.Join(Sites(), ", "))
	}
	db, err := seeded()
	if err != nil {
		return nil, nil, fmt.Errorf("bench: seed %s: %w", site, err)
	}
	dir, err := os.MkdirTemp("", "affordances-bench-"+site+"-")
	if err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	var closers []func() error
	stop = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		os.RemoveAll(dir)
	}
	defer func() {
		if err != nil {
			stop()
			stop = nil
		}
	}()
	path := filepath.Join(dir, site+".db")
	if err := os.WriteFile(path, db, 0o600); err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	base := "http://" + l.Addr().String()
	h, closeSite, err := openSite(ctx, site, dir, base)
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	closers = append(closers, closeSite)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	go srv.Serve(l)
	closers = append(closers, srv.Close)
	// Read-only, as the checks only read: query_only refuses any write.
	rdb, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		return nil, nil, fmt.Errorf("bench: open %s: %w", path, err)
	}
	closers = append(closers, rdb.Close)
	d = &Demo{Site: site, URL: base, DB: rdb}
	if as != "" {
		if d.Session, err = signIn(ctx, base, as); err != nil {
			return nil, nil, fmt.Errorf("bench: %s: sign in as %s: %w", site, as, err)
		}
	}
	return d, stop, nil
}

// openSite opens the demo site in dir, its database already there, for
// the origin base.
func openSite(ctx context.Context, site, dir, base string) (http.Handler, func() error, error) {
	quiet := slog.New(slog.DiscardHandler)
	switch site {
	case "shop":
		// The bench measures what an agent perceives, not consent: its
		// confirm is the person's, so the shop places an order on
		// confirm: true alone, as demo --no-approval does, where by default
		// the person approves it on the shop's approval page.
		s, err := shop.Open(ctx, &shop.Options{DataDir: dir, Origin: base, Logger: quiet, NoApproval: true})
		if err != nil {
			return nil, nil, fmt.Errorf("bench: %w", err)
		}
		return s.Handler(), s.Close, nil
	case "board":
		// Likewise, the board deletes a board on confirm: true alone.
		b, err := board.Open(ctx, &board.Options{DataDir: dir, Origin: base, Logger: quiet, NoApproval: true})
		if err != nil {
			return nil, nil, fmt.Errorf("bench: %w", err)
		}
		return b.Handler(), b.Close, nil
	}
	return nil, nil, fmt.Errorf("bench: no demo site %q", site)
}

// templates seed each site's database once, in a directory of their own,
// and return the file's bytes. The file is named as the site names it in
// its DataDir (shop.db, board.db), which is how StartDemo's copy is found.
var templates = map[string]func() ([]byte, error){
	"shop":  sync.OnceValues(func() ([]byte, error) { return seed("shop") }),
	"board": sync.OnceValues(func() ([]byte, error) { return seed("board") }),
}

func seed(site string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "affordances-bench-seed-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// Closing the site checkpoints its write-ahead log into the file.
	_, closeSite, err := openSite(context.Background(), site, dir, "http://127.0.0.1")
	if err != nil {
		return nil, err
	}
	if err := closeSite(); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, site+".db"))
}

// signIn posts the sign-in form of the site at base as a person's browser
// does (same Origin, urlencoded fields naming the signIn action) and
// returns the session cookie the answer sets.
func signIn(ctx context.Context, base, email string) (*http.Cookie, error) {
	form := url.Values{"_action": {"signIn"}, "email": {email}, "password": {password(email)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := noRedirects.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	for _, c := range resp.Cookies() {
		if c.Name == "sid" && c.Value != "" {
			return &http.Cookie{Name: c.Name, Value: c.Value}, nil
		}
	}
	return nil, fmt.Errorf("the form answered %s without a session cookie: %.200s", resp.Status, body)
}

// noRedirects is the bench's HTTP client: it reads every answer as it
// comes, a redirect included.
var noRedirects = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}
