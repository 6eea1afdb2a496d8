package servicetest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/affordances/affordances-go/internal/pdeathsig"
)

// A Postgres is a PostgreSQL server of one test: a fresh cluster in a
// temporary directory, listening on loopback only, with no password (trust)
// for the user postgres. Durability is off (fsync, synchronous commit):
// the tests kill clients, never the server.
type Postgres struct {
	// Addr is its host:port on loopback.
	Addr string
	dir  string
	cmd  *exec.Cmd
	dbs  atomic.Int64
}

// StartPostgres runs initdb and postgres (Debian's, under
// /usr/lib/postgresql/<version>/bin) on a free loopback port, and stops the
// server and removes its files when the test ends. Run as root (CI), the
// server runs as the system user postgres, which it refuses to run without.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	p, err := startPostgres(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	return p
}

var shared struct {
	sync.Mutex
	pg *Postgres
}

// SharedPostgres is [StartPostgres] for a whole test binary: the first
// call starts the server, later calls return it, and [Main] stops it.
// Tests take a database of their own from it with [Postgres.NewDatabase].
func SharedPostgres(t testing.TB) *Postgres {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.pg == nil {
		p, err := startPostgres(t)
		if err != nil {
			t.Fatal(err)
		}
		shared.pg = p
	}
	return shared.pg
}

// Main runs the tests of a package that uses [SharedPostgres] and stops
// the shared server after them: func TestMain(m *testing.M) {
// os.Exit(servicetest.Main(m)) }.
func Main(m *testing.M) int {
	code := m.Run()
	shared.Lock()
	defer shared.Unlock()
	if shared.pg != nil {
		shared.pg.stop()
		shared.pg = nil
	}
	return code
}

func startPostgres(t testing.TB) (*Postgres, error) {
	short(t, "PostgreSQL")
	bin := postgresBin()
	if bin == "" {
		missing(t, "postgresql")
	}
	dir, err := os.MkdirTemp("", "servicetest-pg-")
	if err != nil {
		return nil, err
	}
	p := &Postgres{dir: dir}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			p.stop()
			return nil, fmt.Errorf("servicetest: running as root, PostgreSQL needs the user postgres: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			p.stop()
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	pdeathsig.Set(initdb)
	if out, err := initdb.CombinedOutput(); err != nil {
		p.stop()
		return nil, fmt.Errorf("servicetest: initdb: %w\n%s", err, out)
	}
	port := freePort(t)
	p.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var log syncBuffer
	// TCP on loopback only, no Unix-domain socket: its path, under a
	// test's temporary directory, can pass the 107 bytes it may have.
	p.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-h", "127.0.0.1", "-k", "",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300")
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	// Its backends and helpers exit when it does: they watch it.
	pdeathsig.Set(p.cmd)
	p.cmd.Stdout, p.cmd.Stderr = &log, &log
	if err := p.cmd.Start(); err != nil {
		p.cmd = nil
		p.stop()
		return nil, fmt.Errorf("servicetest: starting postgres: %w", err)
	}
	db, err := sql.Open("pgx", p.url("postgres"))
	if err != nil {
		p.stop()
		return nil, err
	}
	defer db.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			return p, nil
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("servicetest: postgres did not answer on %s: %w\n%s", p.Addr, err, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A syncBuffer is a server's log, written by its pipes and read on failure.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// NewDatabase creates an empty database and returns its URL, for the pgx
// driver and for [github.com/jackc/pgx/v5] alike.
func (p *Postgres) NewDatabase(t testing.TB) string {
	t.Helper()
	return p.createDatabase(t, "")
}

// CopyDatabase creates a database that is a copy of the one at from, made by
// [Postgres.NewDatabase] or CopyDatabase on this server, and returns its
// URL. Nothing may stay connected to the original: PostgreSQL waits up to 5
// seconds for its sessions to end, then refuses.
func (p *Postgres) CopyDatabase(t testing.TB, from string) string {
	t.Helper()
	u, err := url.Parse(from)
	name := strings.TrimPrefix(u.Path, "/")
	if err != nil || u.Host != p.Addr || name == "" || strings.Contains(name, "/") {
		t.Fatalf("servicetest: copy database: %s is not a database of this server", from)
	}
	return p.createDatabase(t, name)
}

// createDatabase creates a new database, a copy of template when it is not
// "", and returns its URL.
func (p *Postgres) createDatabase(t testing.TB, template string) string {
	t.Helper()
	name := "test" + strconv.FormatInt(p.dbs.Add(1), 10)
	db, err := sql.Open("pgx", p.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if _, err := db.Exec(create); err != nil {
		t.Fatalf("servicetest: create database: %v", err)
	}
	return p.url(name)
}

func (p *Postgres) url(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", p.Addr, db)
}

// stop stops the server and removes its files.
func (p *Postgres) stop() {
	defer os.RemoveAll(p.dir)
	if p.cmd != nil && p.cmd.Process != nil {
		p.cmd.Process.Signal(syscall.SIGQUIT) // immediate shutdown
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-done
		}
	}
}

// postgresBin is the bin directory of the newest PostgreSQL Debian
// installed, or "".
func postgresBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(dirs[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(dirs[j]))))
		return vi < vj
	})
	if len(dirs) == 0 {
		return ""
	}
	return filepath.Dir(dirs[len(dirs)-1])
}
