//go:build linux

package proc

import (
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD, which the syscall package does
// not name.
const rusageThread = 1

// ThreadCPUTime is the user + system CPU time of the calling OS thread.
// It times one goroutine's work while others run in the same process, if
// that goroutine is locked to its thread (runtime.LockOSThread) between
// the readings.
func ThreadCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
