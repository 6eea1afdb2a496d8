package loadtest

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"
)

// processCPU returns the CPU time process pid has spent, all its threads,
// user and system: what /proc/<pid>/stat reports as utime and stime, in
// clock ticks (10 ms), read instead from the process's CPU clock
// (clock_getcpuclockid(3): the same sum_exec_runtime, in nanoseconds), so
// that a batch of a few milliseconds is measured as well as a long one.
func processCPU(pid int) (time.Duration, error) {
	// MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) of the kernel's
	// include/linux/posix-timers.h.
	const cpuclockSched = 2
	clock := uintptr(^pid)<<3 | cpuclockSched
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clock, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, fmt.Errorf("loadtest: the CPU clock of process %d: %w", pid, errno)
	}
	return time.Duration(ts.Nano()), nil
}
