//go:build unix

package proc

import (
	"syscall"
	"time"
)

// CPUTime is the process's user + system CPU time, so that times per
// iteration hold on a machine shared with other jobs.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
