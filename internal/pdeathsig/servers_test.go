package pdeathsig_test

import (
	"bufio"
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/affordances/affordances-go/internal/browsertest"
	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/pdeathsig"
	"github.com/affordances/affordances-go/internal/servicetest"
)

// helperEnv, set, has TestServersDieWithTestBinaryHelper start its
// servers.
const helperEnv = "AFFORDANCES_PDEATHSIG_HELPER"

// TestServersDieWithTestBinary: every process a test binary started
// (Redis; PostgreSQL, its helpers and the backend of a client;
// `affordances demo`; Chromium with a page open, its children and its
// crash handlers) is gone soon after the binary dies without stopping
// them, killed with SIGKILL or by the panic of its -test.timeout (issue
// 24). A zombie counts as gone.
//
// One test here rather than one in each package that starts servers, so
// that one helper binary holds a server of each kind, started as tests
// start them: servicetest's Redis and PostgreSQL, demotest's `affordances
// demo`, and browsertest's Chromium, which chromedp starts with a
// Pdeathsig of its own.
func TestServersDieWithTestBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has a parent-death signal")
	}
	if testing.Short() {
		t.Skip("starts Redis, PostgreSQL, an affordances demo and Chromium")
	}
	t.Run("SIGKILL", func(t *testing.T) {
		h := startHelper(t, "all", 5*time.Minute)
		if err := h.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		h.wait()
		h.checkGone(t, "redis-server", "postgres", "affordances", "chromium")
	})
	// The panic of -test.timeout ends the binary as any exit does; one
	// server, quick to start, shows it, and the test waits for the
	// timeout no longer than it must.
	t.Run("timeout", func(t *testing.T) {
		const timeout = 10 * time.Second
		h := startHelper(t, "redis", timeout)
		if out := h.wait(); !strings.Contains(out, "panic: test timed out") {
			t.Errorf("the helper ended without the panic of its -test.timeout %v:\n%s", timeout, out)
		}
		h.checkGone(t, "redis-server")
	})
}

// TestServersDieWithTestBinaryHelper is the test binary that
// TestServersDieWithTestBinary kills. It starts a Redis and, when
// $AFFORDANCES_PDEATHSIG_HELPER is "all", one server of every other kind,
// prints every process it started (see started) as a line "pid <pid>
// <start time> <name>", then "ready", and waits to be killed.
func TestServersDieWithTestBinaryHelper(t *testing.T) {
	kinds := os.Getenv(helperEnv)
	if kinds == "" {
		t.Skip("run by TestServersDieWithTestBinary")
	}
	if os.Getenv("TMPDIR") == "" {
		t.Fatal("the helper needs a $TMPDIR of its own")
	}
	servicetest.StartRedis(t)
	if kinds == "all" {
		startTheOthers(t)
	}
	for _, p := range started(os.Getenv("TMPDIR"), os.Getpid()) {
		fmt.Printf("pid %d %d %s\n", p.pid, p.start, p.name)
	}
	fmt.Println("ready")
	select {} // until killed
}

// startTheOthers starts a PostgreSQL with a client, `affordances demo`,
// and Chromium with a page of the demo open.
func startTheOthers(t *testing.T) {
	pg := servicetest.StartPostgres(t)
	db, err := sql.Open("pgx", pg.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err != nil { // a backend of its own
		t.Fatal(err)
	}
	demo := demotest.Start(t, nil)
	b := browsertest.Start(t)
	page, err := b.NewPage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.Navigate(t.Context(), demo.URL); err != nil {
		t.Fatal(err)
	}
}

// A helper is a running TestServersDieWithTestBinaryHelper.
type helper struct {
	cmd   *exec.Cmd
	tmp   string      // its $TMPDIR and $XDG_CONFIG_HOME, where its servers keep their files
	procs []proc      // the processes it printed
	lines chan string // its stdout and stderr, closed at their end
	out   strings.Builder
	ended bool
}

// startHelper runs this test binary again as the helper, starting kinds
// of servers ("all" or "redis"), with a -test.timeout of timeout, and
// returns once it printed "ready". It skips
// when the helper skipped, and fails when it ended before it was ready.
// Whatever the helper started and is still running when the test ends is
// killed then.
func startHelper(t *testing.T, kinds string, timeout time.Duration) *helper {
	t.Helper()
	// A short path: Chromium's and PostgreSQL's Unix-domain sockets go
	// under it, and a socket's path may have 107 bytes. PostgreSQL, run
	// as the user postgres when this test runs as root, reaches its files
	// through it.
	tmp, err := os.MkdirTemp("", "pd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &helper{tmp: tmp, lines: make(chan string, 100)}
	h.cmd = exec.Command(os.Args[0], "-test.run=^TestServersDieWithTestBinaryHelper$", "-test.v", "-test.timeout="+timeout.String())
	// Chromium's crash handlers, which are not its children, name
	// $XDG_CONFIG_HOME.
	h.cmd.Env = append(os.Environ(), helperEnv+"="+kinds, "TMPDIR="+h.tmp, "XDG_CONFIG_HOME="+h.tmp)
	pdeathsig.Set(h.cmd)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	h.cmd.Stdout, h.cmd.Stderr = w, w
	err = h.cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	go func() {
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
	}()
	t.Cleanup(func() { // before tmp's removal
		if !h.ended {
			h.cmd.Process.Kill()
			h.wait()
		}
		kill(h.survivors())
	})
	for line := range h.lines {
		h.out.WriteString(line + "\n")
		if line == "ready" {
			return h
		}
		var p proc
		if _, err := fmt.Sscanf(line, "pid %d %d %s", &p.pid, &p.start, &p.name); err == nil {
			h.procs = append(h.procs, p)
		}
	}
	out := h.wait()
	if strings.Contains(out, "--- SKIP: TestServersDieWithTestBinaryHelper") {
		t.Skipf("the helper skipped:\n%s", out)
	}
	t.Fatalf("the helper ended before its servers were ready (-test.timeout %v):\n%s", timeout, out)
	return nil
}

// wait waits for the helper to end and returns all it wrote. A process it
// started may hold its output open: wait reads on only until 5 s pass
// without a line.
func (h *helper) wait() string {
	h.cmd.Wait()
	h.ended = true
	for {
		select {
		case line, ok := <-h.lines:
			if !ok {
				return h.out.String()
			}
			h.out.WriteString(line + "\n")
		case <-time.After(5 * time.Second):
			return h.out.String()
		}
	}
}

// checkGone fails the test unless the helper printed a process of each
// name and, within 30 seconds, all it printed and every other process
// that names its temporary directory (such as a Chromium child started
// after the helper looked) are gone.
func (h *helper) checkGone(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if !slices.ContainsFunc(h.procs, func(p proc) bool { return p.name == name }) {
			t.Errorf("the helper's processes: got no %s among %v, want one; it wrote:\n%s", name, h.procs, h.out.String())
		}
	}
	start := time.Now()
	deadline := start.Add(30 * time.Second)
	for {
		left := h.survivors()
		if len(left) == 0 {
			t.Logf("the %d processes the helper started were gone %v after it ended: %v", len(h.procs), time.Since(start).Round(time.Millisecond), h.procs)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the helper ended, %d of the %d processes it started still run: got %v, want none", len(left), len(h.procs), left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// survivors returns the processes of the helper that still run: those it
// printed, and those whose command line names its temporary directory.
func (h *helper) survivors() []proc {
	var left []proc
	for _, p := range h.procs {
		if now, err := stat(p.pid); err == nil && now.running() && now.start == p.start {
			left = append(left, p)
		}
	}
	for _, p := range naming(h.tmp) {
		if !slices.ContainsFunc(left, func(q proc) bool { return q.pid == p.pid }) {
			left = append(left, p)
		}
	}
	return left
}

// kill kills procs, each unless its pid now names another process.
func kill(procs []proc) {
	for _, p := range procs {
		if now, err := stat(p.pid); err == nil && now.start == p.start {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

// A proc is a process, as /proc/<pid>/stat describes it.
type proc struct {
	pid, ppid int
	start     uint64 // since boot, in clock ticks: with pid, which process
	state     byte   // R, S, Z...
	name      string // the executable's name, at most 15 bytes
}

func (p proc) String() string { return fmt.Sprintf("%d %s", p.pid, p.name) }

// running reports whether p is neither a zombie nor dead.
func (p proc) running() bool { return p.state != 'Z' && p.state != 'X' }

// stat reads /proc/<pid>/stat.
func stat(pid int) (proc, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, err
	}
	// The name, in parentheses, may hold spaces and parentheses: the
	// fields from the third (state) on follow its last ')'.
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	fields := strings.Fields(s[end+1:])
	if open < 0 || len(fields) < 20 {
		return proc{}, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	p := proc{pid: pid, name: s[open+1 : end], state: fields[0][0]}
	p.ppid, err = strconv.Atoi(fields[1])
	if err == nil {
		p.start, err = strconv.ParseUint(fields[19], 10, 64) // the 22nd field
	}
	return p, err
}

// processes returns every process of the system that it could read.
func processes() []proc {
	entries, _ := os.ReadDir("/proc")
	var procs []proc
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if p, err := stat(pid); err == nil {
				procs = append(procs, p)
			}
		}
	}
	return procs
}

// started returns the running processes that process pid started: those
// whose parent is pid, or whose parent's parent is, and so on, and those
// whose command line names dir, pid's temporary directory (they may have
// left the tree, as Chromium's crash handlers do).
func started(dir string, pid int) []proc {
	children := map[int][]proc{}
	for _, p := range processes() {
		children[p.ppid] = append(children[p.ppid], p)
	}
	var found []proc
	for next := []int{pid}; len(next) > 0; {
		pid, next = next[0], next[1:]
		for _, c := range children[pid] {
			if c.running() {
				found = append(found, c)
			}
			next = append(next, c.pid)
		}
	}
	for _, p := range naming(dir) {
		if !slices.ContainsFunc(found, func(q proc) bool { return q.pid == p.pid }) {
			found = append(found, p)
		}
	}
	return found
}

// naming returns the running processes whose command line holds dir.
func naming(dir string) []proc {
	var found []proc
	for _, p := range processes() {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
		if p.running() && bytes.Contains(cmdline, []byte(dir)) {
			found = append(found, p)
		}
	}
	return found
}
