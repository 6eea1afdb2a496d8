package loadtest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// statCPU returns utime plus stime of /proc/<pid>/stat, in ticks of
// USER_HZ (100 a second on Linux).
func statCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command's name, in parentheses, may hold spaces: the fields
	// counted from 3 (state) start after its closing parenthesis.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("loadtest: /proc/%d/stat: too few fields", pid)
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime (14) and stime (15)
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("loadtest: /proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100), nil
}

// TestServerCPU: a server started in its own process, on one core, counts
// the CPU time its requests spent, as /proc/<pid>/stat does, finer; and it
// serves files, as the demo's baseline does.
func TestServerCPU(t *testing.T) {
	s, err := Start("burn")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	before, err := s.CPU()
	if err != nil {
		t.Skip(err)
	}
	res, err := http.Get(s.URL + "/?ms=300")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	after, err := s.CPU()
	if err != nil {
		t.Fatal(err)
	}
	// The handler spins until the process spent 300 ms of CPU, however
	// busy the machine: the count is that, and a little more.
	if spent := after - before; spent < 50*time.Millisecond || spent > 400*time.Millisecond {
		t.Errorf("the server spent %v of CPU on a request that spins for 300 ms", spent)
	}
	stat, err := statCPU(s.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if d := after - stat; d < -20*time.Millisecond || d > 20*time.Millisecond {
		t.Errorf("CPU clock %v, /proc/<pid>/stat %v: more than two ticks apart", after, stat)
	}
	if s.Pinned >= 0 {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("Cpus_allowed_list:\t%d\n", s.Pinned); !strings.Contains(string(status), want) {
			t.Errorf("pinned to CPU %d, but its status has no %q", s.Pinned, want)
		}
	}

	dir := t.TempDir()
	if err := os.WriteFile(dir+"/graph.json", []byte(`{"v":"0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := Start("files:" + dir)
	if err != nil {
		t.Fatal(err)
	}
	defer files.Stop()
	res, err = http.Post(files.URL+"/graph.json", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || string(b) != `{"v":"0"}` {
		t.Errorf("POST of a file: got %d %q", res.StatusCode, b)
	}
}
