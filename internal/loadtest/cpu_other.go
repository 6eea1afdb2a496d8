//go:build !linux

package loadtest

import (
	"errors"
	"time"
)

var errNoCPUClock = errors.New("loadtest: no process CPU clock on this system")

// processCPU needs Linux's process CPU clocks; elsewhere the benchmarks
// over HTTP are skipped.
func processCPU(pid int) (time.Duration, error) { return 0, errNoCPUClock }
