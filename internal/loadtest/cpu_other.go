//go:build !linux

package loadtest

import (
	"syscall"
	"time"
)

// processCPU needs Linux's process CPU clocks; elsewhere the benchmarks
// over HTTP are skipped.
func processCPU(pid int) (time.Duration, error) { return 0, errNoCPUClock }

func dieWithParent() *syscall.SysProcAttr { return nil }
