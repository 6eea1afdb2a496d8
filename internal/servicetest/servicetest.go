// Package servicetest starts throwaway servers for tests, as
// net/http/httptest starts HTTP servers: a Redis or a PostgreSQL on a
// loopback port of its own, stopped when the test ends, or killed with the
// test binary should it die first (killed, or by the panic of its
// -timeout). Without the server's program the test
// skips, or fails when AFFORDANCES_CHECK is set (make check), where
// nothing may skip; under go test -short (make test) it skips.
package servicetest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/affordances/affordances-go/internal/pdeathsig"
)

// A Redis is a redis-server process of one test.
type Redis struct {
	// Addr is its host:port on loopback.
	Addr string
	t    testing.TB
	cmd  *exec.Cmd
	port int
	// dir is the directory of its append-only file, "" for none.
	dir string
}

// StartRedis starts redis-server on a free loopback port, with nothing
// kept on disk, and stops it when the test ends.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	return startRedis(t, "")
}

// StartDurableRedis is [StartRedis] with an append-only file in a
// directory of the test's, synced before each write is answered: a
// [Redis.Restart] starts it with every key it had, as a Redis run with
// persistence keeps its keys across a restart.
func StartDurableRedis(t testing.TB) *Redis {
	t.Helper()
	return startRedis(t, t.TempDir())
}

func startRedis(t testing.TB, dir string) *Redis {
	t.Helper()
	short(t, "Redis")
	path, err := exec.LookPath("redis-server")
	if err != nil {
		missing(t, "redis-server")
	}
	r := &Redis{t: t, port: freePort(t), dir: dir}
	r.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port))
	r.start(path)
	t.Cleanup(r.Stop)
	return r
}

func (r *Redis) start(path string) {
	r.t.Helper()
	args := []string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", ""}
	if r.dir != "" {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always", "--dir", r.dir)
	} else {
		args = append(args, "--appendonly", "no", "--dir", r.t.TempDir())
	}
	r.cmd = exec.Command(path, args...)
	pdeathsig.Set(r.cmd)
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("servicetest: starting redis-server: %v", err)
	}
	go func() { // drain its log, so it never blocks on a full pipe
		sc := bufio.NewScanner(out)
		for sc.Scan() {
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := r.ping()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("servicetest: redis-server did not answer on %s: %v", r.Addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ping reports whether the server answers PING: it listens, and has
// loaded its append-only file (until then it answers -LOADING).
func (r *Redis) ping() error {
	c, err := net.DialTimeout("tcp", r.Addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING: %q", line)
	}
	return nil
}

// Stop kills the server (a test of what happens when Redis goes down).
func (r *Redis) Stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		r.cmd.Process.Kill()
		r.cmd.Wait()
		r.cmd = nil
	}
}

// Restart starts the server again on the same port: empty, or for a
// [StartDurableRedis] with the keys it had.
func (r *Redis) Restart() {
	r.t.Helper()
	r.Stop()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		r.t.Fatal(err)
	}
	r.start(path)
}

// short skips the test under go test -short (make test), which starts no
// server.
func short(t testing.TB, server string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: no %s (make check starts one)", server)
	}
}

func missing(t testing.TB, program string) {
	t.Helper()
	if os.Getenv("AFFORDANCES_CHECK") != "" {
		t.Fatalf("servicetest: %s is not installed: make check should have installed it (make deps)", program)
	}
	t.Skipf("servicetest: %s is not installed; make check installs it", program)
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(fmt.Errorf("servicetest: %w", err))
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
