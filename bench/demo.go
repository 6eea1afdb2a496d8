package bench

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/pdeathsig"
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
// port of its own, with the seed of size and nothing else (the shop's
// [shop.Options.Seed], the board's -seed), keeps a copy of its database as
// seeded for [Task.Check], and signs in as the seeded user as ("" for
// nobody) through the site's sign-in form. Both run with human-verified
// confirmation off ([shop.Options.NoApproval], the board's -no-approval).
// The returned stop ends the demo and removes its data; it must be called
// once d is no longer used.
//
// The shop runs in this process, from a copy of a database seeded once per
// process and size rather than running the migrations and the seed's
// inserts each time. The board, a program of its own (examples/board), runs as a
// process, built once per process with go build: it needs the go command
// and this repository.
func StartDemo(ctx context.Context, site string, size Size, as string) (d *Demo, stop func(), err error) {
	if !slices.Contains(Sites(), site) {
		return nil, nil, fmt.Errorf("bench: no demo site %q (the sites are %s)", site, strings.Join(Sites(), ", "))
	}
	if !slices.Contains(Sizes(), size) {
		return nil, nil, fmt.Errorf("bench: no size %q (the sizes are demo, realistic)", size)
	}
	dir, err := os.MkdirTemp("", "affordances-bench-"+site+"-")
	if err != nil {
		return nil, nil, fmt.Errorf("bench: %w", err)
	}
	var closers []func() error
	cleanup := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		os.RemoveAll(dir)
	}
	defer func() {
		if err != nil { // a return of nil, nil, err has set stop to nil already
			cleanup()
		}
	}()
	var base string
	if site == "shop" {
		base, closers, err = startShop(ctx, dir, size)
	} else {
		base, closers, err = startBoard(ctx, dir, size)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("bench: %s: %w", site, err)
	}
	path, seeded := filepath.Join(dir, site+".db"), filepath.Join(dir, "seeded.db")
	if err := copyDB(ctx, path, seeded); err != nil {
		return nil, nil, fmt.Errorf("bench: %s: %w", site, err)
	}
	rdb, err := openReadOnly(path)
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, rdb.Close)
	sdb, err := openReadOnly(seeded)
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, sdb.Close)
	d = &Demo{Site: site, Size: size, URL: base, DB: rdb, seeded: sdb}
	if as != "" {
		if d.Session, err = signIn(ctx, base, as); err != nil {
			return nil, nil, fmt.Errorf("bench: %s: sign in as %s: %w", site, as, err)
		}
	}
	return d, cleanup, nil
}

// openReadOnly opens the SQLite file at path read-only, as the checks
// only read: query_only refuses any write.
func openReadOnly(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		return nil, fmt.Errorf("bench: open %s: %w", path, err)
	}
	return db, nil
}

// copyDB copies the SQLite database at path, which the demo has open, to
// a new file to: the demo's data as seeded, before the task runs, which
// [Task.Check] compares the end with.
func copyDB(ctx context.Context, path, to string) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		return fmt.Errorf("copy the seeded database: %w", err)
	}
	return nil
}

// startShop serves a copy of the shop seeded at size, its database in
// dir, on a loopback port, and returns its base URL and what closes it,
// in order.
func startShop(ctx context.Context, dir string, size Size) (string, []func() error, error) {
	db, err := shopSeeds[size]()
	if err != nil {
		return "", nil, fmt.Errorf("seed: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop.db"), db, 0o600); err != nil {
		return "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	base := "http://" + l.Addr().String()
	s, err := openShop(ctx, dir, base, size)
	if err != nil {
		l.Close()
		return "", nil, err
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	go srv.Serve(l)
	return base, []func() error{s.Close, srv.Close}, nil
}

// openShop opens the demo shop in dir, its database already there, for
// the origin base. The bench measures what an agent perceives, not
// consent: its confirm is the person's, so the shop places an order on
// confirm: true alone, as demo --no-approval does, where by default the
// person approves it on the shop's approval page. A new database is
// seeded at size.
func openShop(ctx context.Context, dir, base string, size Size) (*shop.Shop, error) {
	return shop.Open(ctx, &shop.Options{DataDir: dir, Origin: base, Logger: slog.New(slog.DiscardHandler), NoApproval: true, Seed: string(size)})
}

// shopSeeds seed the shop's database at each size once, in a directory of
// its own, and return the file's bytes.
var shopSeeds = map[Size]func() ([]byte, error){
	DemoSize:  sync.OnceValues(func() ([]byte, error) { return seedShop(DemoSize) }),
	Realistic: sync.OnceValues(func() ([]byte, error) { return seedShop(Realistic) }),
}

func seedShop(size Size) ([]byte, error) {
	dir, err := os.MkdirTemp("", "affordances-bench-seed-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s, err := openShop(context.Background(), dir, "http://127.0.0.1", size)
	if err != nil {
		return nil, err
	}
	// Closing the shop checkpoints its write-ahead log into the file.
	if err := s.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, "shop.db"))
}

// boardProgram is the task board's program, built once per process.
var boardProgram = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "affordances-bench-board-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "board")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/affordances/affordances-go/examples/board").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go build ./examples/board (the bench runs in this repository): %v\n%s", err, out)
	}
	return bin, nil
})

// startBoard runs the task board as a process of its own, its data in dir
// (board.db, seeded at size when it starts: -seed), on a loopback port it
// picks, with deleting a board needing no approval (-no-approval, as the
// shop's orders); it returns the board's base URL once it answers, and
// what kills it. The process dies with this one, should this die first.
func startBoard(ctx context.Context, dir string, size Size) (string, []func() error, error) {
	bin, err := boardProgram()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-data", dir, "-no-approval", "-seed", string(size))
	pdeathsig.Set(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	// The first line it prints says where it listens: "Board listening on
	// http://127.0.0.1:PORT".
	first, exited := make(chan string, 1), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		sc.Scan()
		first <- sc.Text()
		io.Copy(io.Discard, out)
		cmd.Wait()
		close(exited)
	}()
	kill := func() error {
		cmd.Process.Kill()
		<-exited
		return nil
	}
	fail := func(format string, args ...any) (string, []func() error, error) {
		kill()
		return "", nil, fmt.Errorf(format+": %s", append(args, strings.TrimSpace(stderr.String()))...)
	}
	var base string
	select {
	case line := <-first:
		var ok bool
		if _, base, ok = strings.Cut(line, " listening on "); !ok {
			return fail("the board said %q, not where it listens", line)
		}
	case <-time.After(time.Minute):
		return fail("the board did not listen within a minute")
	case <-ctx.Done():
		return fail("%v", ctx.Err())
	}
	if err := answers(ctx, base+"/boards"); err != nil {
		return fail("the board does not answer: %v", err)
	}
	return base, []func() error{kill}, nil
}

// answers waits until a GET of url answers 200, for up to 10 seconds.
func answers(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := noRedirects.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
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
