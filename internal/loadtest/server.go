package loadtest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances/affordances-go/internal/pdeathsig"
)

// The environment of a server process that [Start] runs: the name of what
// it serves and where.
const (
	serveEnv = "AFFORDANCES_LOADTEST_SERVE"
	addrEnv  = "AFFORDANCES_LOADTEST_ADDR"
)

// ProfileEnv names a directory where each server process that [Start]
// runs writes its CPU profile, <name>.cpu.prof (spaces, slashes and colons
// as _), when it is stopped: where the CPU time over HTTP goes.
//
//	AFFORDANCES_LOADTEST_CPUPROFILE=/tmp go test -run '^$' -bench HTTP -cpu 1 .
//	go tool pprof -top /tmp/site.cpu.prof
const ProfileEnv = "AFFORDANCES_LOADTEST_CPUPROFILE"

// Main runs the tests of a package whose benchmarks start servers with
// [Start]. In a process that Start began, it serves what serve returns for
// the server's name on the address Start chose, until Start's process ends
// or stops it, and never returns. Otherwise it runs m, stops every server
// started, and returns m's exit code. A TestMain calls
// os.Exit(loadtest.Main(m, serve)).
func Main(m *testing.M, serve func(name string) (http.Handler, error)) int {
	if name, ok := os.LookupEnv(serveEnv); ok {
		serveAndExit(name, serve)
	}
	code := m.Run()
	stopAll()
	return code
}

// serveAndExit is the life of a server process [Start] began.
func serveAndExit(name string, serve func(name string) (http.Handler, error)) {
	if dir := os.Getenv(ProfileEnv); dir != "" {
		file := filepath.Join(dir, strings.Map(func(r rune) rune {
			if r == '/' || r == ' ' || r == ':' {
				return '_'
			}
			return r
		}, name)+".cpu.prof")
		f, err := os.Create(file)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadtest: %s: %v\n", ProfileEnv, err)
			os.Exit(1)
		}
	}
	// The process that started this one holds its stdin open: when that
	// ends, so does this.
	go func() {
		io.Copy(io.Discard, os.Stdin)
		pprof.StopCPUProfile()
		os.Exit(0)
	}()
	h, err := serve(name)
	if err == nil {
		err = Serve(os.Getenv(addrEnv), h)
	}
	fmt.Fprintf(os.Stderr, "loadtest: serving %q: %v\n", name, err)
	os.Exit(1)
}

// Serve serves h at addr as the servers of the benchmarks do: an
// [http.Server] with the timeouts of the demo command's (a production
// server's), which costs a deadline per request.
func Serve(addr string, h http.Handler) error {
	srv := &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	return srv.ListenAndServe()
}

// A Server is a server process of a benchmark, on loopback.
type Server struct {
	// URL is where it listens: http://127.0.0.1:port.
	URL string
	// Pinned is the CPU it runs on, -1 when it was not pinned to one.
	Pinned int

	cmd    *exec.Cmd
	stdin  io.Closer
	stderr bytes.Buffer
	done   chan struct{}
}

var started struct {
	sync.Mutex
	servers []*Server
}

// Start runs this test binary again, as a server of what the serve
// function of [Main] returns for name; see [StartCommand].
func Start(name string) (*Server, error) {
	return StartCommand([]string{serveEnv + "=" + name}, os.Args[0], "-test.run=^$")
}

// StartCommand runs the command name with args as a server: on a free
// loopback port, which it finds in $AFFORDANCES_LOADTEST_ADDR (and which
// args may name as {addr}), with env added to this process's environment
// and GOMAXPROCS=1, pinned to one CPU (the last this process may use) with
// taskset(1) when there is more than one and taskset is installed. It
// returns once the server accepts connections. [Main] stops it when the
// tests end, if [Server.Stop] has not; should this process die first,
// the server dies with it ([pdeathsig.Set]).
func StartCommand(env []string, name string, args ...string) (*Server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args = expand(args, "{addr}", addr)
	s := &Server{URL: "http://" + addr, Pinned: -1, done: make(chan struct{})}
	if cpu, ok := lastCPU(); ok {
		if taskset, err := exec.LookPath("taskset"); err == nil {
			args = append([]string{"-c", strconv.Itoa(cpu), name}, args...)
			name, s.Pinned = taskset, cpu
		}
	}
	s.cmd = exec.Command(name, args...)
	s.cmd.Env = append(append(os.Environ(), env...), addrEnv+"="+addr, "GOMAXPROCS=1")
	s.cmd.Stderr = &s.stderr
	pdeathsig.Set(s.cmd)
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	s.stdin = stdin
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		s.cmd.Wait()
		close(s.done)
	}()
	started.Lock()
	started.servers = append(started.servers, s)
	started.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("loadtest: %s exited before listening: %s", strings.Join(s.cmd.Args, " "), s.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("loadtest: %s did not listen on %s within 60 s: %s", strings.Join(s.cmd.Args, " "), addr, s.stderr.String())
		}
	}
}

// expand returns args with every old replaced by new in each.
func expand(args []string, old, new string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, old, new)
	}
	return out
}

// CPU returns the CPU time the server's process has spent so far, user and
// system, all its threads: the sum of utime and stime of /proc/<pid>/stat,
// read at nanosecond resolution (see [processCPU]).
func (s *Server) CPU() (time.Duration, error) {
	select {
	case <-s.done:
		return 0, fmt.Errorf("loadtest: %s exited: %s", strings.Join(s.cmd.Args, " "), s.stderr.String())
	default:
	}
	return processCPU(s.cmd.Process.Pid)
}

// Stop ends the server's process and waits for it: a process of [Start]
// ends on its own when its stdin closes, any other is killed after 2 s.
func (s *Server) Stop() {
	s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(2 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// stopAll stops every server at once: a process built with the race
// detector takes a second to exit.
func stopAll() {
	started.Lock()
	defer started.Unlock()
	var wg sync.WaitGroup
	for _, s := range started.servers {
		wg.Go(s.Stop)
	}
	wg.Wait()
	started.servers = nil
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// lastCPU returns the highest-numbered CPU this process may run on, when
// it may run on more than one.
func lastCPU() (int, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		list, ok := strings.CutPrefix(line, "Cpus_allowed_list:")
		if !ok {
			continue
		}
		list = strings.TrimSpace(list)
		if !strings.ContainsAny(list, ",-") {
			return 0, false // one CPU
		}
		last := list[strings.LastIndexAny(list, ",-")+1:]
		cpu, err := strconv.Atoi(last)
		return cpu, err == nil
	}
	return 0, false
}
