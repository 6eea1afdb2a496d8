// Package demotest starts the demo sites for tests, on loopback ports,
// ready when its functions return and stopped when the test ends: the shop
// in the test's own process ([Shop]), or as a process of its own, which
// dies with the test binary should that die first: `affordances demo`
// ([Start]) or the task board, examples/board ([StartBoard]). [ShopData]
// gives a copy of the shop's database seeded once per test binary, as
// [Shop] uses. [Parallel] bounds how many tests that start demos run at
// once. [Entries] serves a one-page site whose graph is as large as asked.
package demotest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/affordances/affordances-go/examples/shop"
	"github.com/affordances/affordances-go/internal/pdeathsig"
	"github.com/affordances/affordances-go/mcpbridge"
)

// Shop opens a demo shop with opts and serves its handler, wrapped in wrap
// when wrap is not nil, until the test ends; then it closes the shop, and
// an error closing it fails the test. When opts names neither a DataDir
// nor a Database, the shop's SQLite file is a copy, in a directory of the
// test's, of one seeded once per test binary, so a test pays for copying a
// file rather than for the migrations and the seed's inserts. opts may be
// nil.
func Shop(t testing.TB, opts *shop.Options, wrap func(http.Handler) http.Handler) (*shop.Shop, *httptest.Server) {
	t.Helper()
	var o shop.Options
	if opts != nil {
		o = *opts
	}
	if o.DataDir == "" && o.Database == "" {
		o.DataDir = ShopData(t)
	}
	s, err := shop.Open(t.Context(), &o)
	if err != nil {
		t.Fatalf("shop.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("shop: Close: %v", err)
		}
	})
	return s, serve(t, s.Handler(), wrap)
}

func serve(t testing.TB, h http.Handler, wrap func(http.Handler) http.Handler) *httptest.Server {
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// shopSeed is the seeded shop's database, made once: the bytes of its
// SQLite file.
var shopSeed = sync.OnceValues(func() ([]byte, error) {
	return seed("shop.db", func(dir string) (func() error, error) {
		s, err := shop.Open(context.Background(), &shop.Options{DataDir: dir})
		if err != nil {
			return nil, err
		}
		return s.Close, nil
	})
})

// seed opens a demo in a new directory with open, closes it, and returns
// its SQLite file, file.
func seed(file string, open func(dir string) (close func() error, err error)) ([]byte, error) {
	dir, err := os.MkdirTemp("", "demotest-seed-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	closeDemo, err := open(dir)
	if err != nil {
		return nil, err
	}
	if err := closeDemo(); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, file))
}

// ShopData returns a new directory of the test's holding a copy of the
// demo shop's database as seeded (its DataDir, or `affordances demo`'s
// --data), seeded once per test binary.
func ShopData(t testing.TB) string {
	t.Helper()
	return fromSeed(t, shopSeed, "shop.db")
}

// fromSeed writes the seeded database into a new directory of the test's
// as file, and returns the directory.
func fromSeed(t testing.TB, seeded func() ([]byte, error), file string) string {
	t.Helper()
	db, err := seeded()
	if err != nil {
		t.Fatalf("seeding the demo: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), db, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// MaxParallel is how many tests that called [Parallel] run at once in a
// test binary, whatever -test.parallel says: each starts demos, and on a
// small machine running the other packages' tests beside, more at once
// only make each slower, up to the test timeout.
const MaxParallel = 3

var slots = make(chan struct{}, MaxParallel)

// Parallel is t.Parallel for a test that starts demos: it then waits for
// one of [MaxParallel] slots, held until the test ends. A test that calls
// it must not run parallel subtests (they could wait for tests that wait
// for a slot).
func Parallel(t *testing.T) {
	t.Helper()
	t.Parallel()
	slots <- struct{}{}
	t.Cleanup(func() { <-slots })
}

// build returns a func that builds the program of the package pkg, named
// name, once per test binary, and returns its path.
func build(name, pkg string) func() (string, error) {
	return sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "demotest-"+name+"-")
		if err != nil {
			return "", err
		}
		bin := filepath.Join(dir, name)
		out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
		return bin, nil
	})
}

var (
	command = build("affordances", "github.com/affordances/affordances-go/cmd/affordances")
	board   = build("board", "github.com/affordances/affordances-go/examples/board")
)

// Command returns the path of the affordances command, built once per test
// binary. Under go test -short (make test), which starts no process of the
// demo's, the test skips.
func Command(t testing.TB) string {
	t.Helper()
	return built(t, command)
}

// built returns the path of the program bin builds. Under go test -short,
// the test skips.
func built(t testing.TB, bin func() (string, error)) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no demo process (make check runs them)")
	}
	path, err := bin()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// A Process is one demo process: `affordances demo` or the task board.
type Process struct {
	URL  string // http://127.0.0.1:port
	t    testing.TB
	bin  func() (string, error)
	args []string
	env  []string
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs `affordances demo args... --addr 127.0.0.1:port` on a free
// loopback port, with env added to the test's environment and HOME a
// directory of the test's, and returns once it listens; the test fails
// when it exits first or does not listen within a minute. The process is
// killed when the test ends, or when the test binary dies (killed, or by
// the panic of its -timeout) if that comes first.
func Start(t testing.TB, env []string, args ...string) *Process {
	t.Helper()
	return start(t, command, env, append([]string{"demo"}, args...))
}

// StartBoard is [Start] for the task board, examples/board, built once
// per test binary: `board -data DIR args... -addr 127.0.0.1:port`, DIR a
// new directory of the test's (an -data in args wins).
func StartBoard(t testing.TB, env []string, args ...string) *Process {
	t.Helper()
	return start(t, board, env, append([]string{"-data", t.TempDir()}, args...))
}

func start(t testing.TB, bin func() (string, error), env, args []string) *Process {
	t.Helper()
	p := &Process{t: t, bin: bin, env: append(append(os.Environ(), "HOME="+t.TempDir()), env...)}
	t.Cleanup(p.Kill)
	// The port is free when picked, but another process may take it before
	// the demo listens on it (a browser, another test's server): then the
	// demo tries another, up to five times.
	for try := 1; ; try++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		p.URL, p.args = "http://"+addr, append(slices.Clone(args), "--addr", addr)
		err = p.launch()
		if err == nil {
			return p
		}
		if !errors.Is(err, errAddrInUse) || try == 5 {
			t.Fatal(err)
		}
	}
}

// errAddrInUse is what launch's error wraps when the process could not
// listen on its port: another process has it.
var errAddrInUse = errors.New("the port was taken")

// Restart starts the process again, with the same arguments, after
// [Process.Kill], and returns once it listens.
func (p *Process) Restart() {
	p.t.Helper()
	if err := p.launch(); err != nil {
		p.t.Fatal(err)
	}
}

// launch starts the process and returns once it listens, or why it does
// not: it exited (wrapping errAddrInUse when its port was taken), or it
// did not listen within a minute.
func (p *Process) launch() error {
	bin := built(p.t, p.bin)
	p.cmd = exec.Command(bin, p.args...)
	pdeathsig.Set(p.cmd)
	p.cmd.Env = p.env
	var stderr bytes.Buffer
	p.cmd.Stderr = &stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := p.cmd.Start(); err != nil {
		return err
	}
	p.done = make(chan struct{})
	listening := make(chan bool, 1)
	cmd, done := p.cmd, p.done
	go func() {
		sc := bufio.NewScanner(out)
		listened := false
		for sc.Scan() {
			if !listened && strings.Contains(sc.Text(), "listening on") {
				listened = true
				listening <- true
			}
		}
		if !listened {
			listening <- false
		}
		cmd.Wait()
		close(done)
	}()
	select {
	case ok := <-listening:
		if !ok {
			<-p.done
			p.cmd = nil
			err := fmt.Errorf("%s %s exited: %s", filepath.Base(bin), strings.Join(p.args, " "), stderr.String())
			if strings.Contains(stderr.String(), "address already in use") {
				err = fmt.Errorf("%w: %w", errAddrInUse, err)
			}
			return err
		}
	case <-time.After(time.Minute):
		return fmt.Errorf("%s %s did not listen within a minute: %s", filepath.Base(bin), strings.Join(p.args, " "), stderr.String())
	}
	return nil
}

// Kill ends the process with SIGKILL: no shutdown, no flush. It does
// nothing when the process is not running.
func (p *Process) Kill() {
	if p.cmd != nil && p.cmd.Process != nil {
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		p.cmd = nil
	}
}

// Demo opens a demo shop with opts and serves it as `affordances demo`
// does: at an origin known before it starts (a loopback port of its
// own), so that it is its own OAuth authorization server, with its /mcp
// behind OAuth; wrap, when not nil, wraps the whole. opts may be nil.
func Demo(t testing.TB, opts *shop.Options, wrap func(http.Handler) http.Handler) (*shop.Shop, *httptest.Server) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var o shop.Options
	if opts != nil {
		o = *opts
	}
	o.Origin, o.MCP = "http://"+l.Addr().String(), "/mcp"
	if o.DataDir == "" && o.Database == "" {
		o.DataDir = ShopData(t)
	}
	s, err := shop.Open(t.Context(), &o)
	if err != nil {
		l.Close()
		t.Fatalf("shop.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("shop: Close: %v", err)
		}
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.OAuth().Protect(mcpbridge.Handler(s.Handler(), nil)))
	mux.Handle("/", s.Handler())
	var h http.Handler = mux
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return s, srv
}
