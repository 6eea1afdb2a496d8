package loadtest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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
