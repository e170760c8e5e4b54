//go:build !linux

package proc

import "time"

// threadClockStart is when the process started, as far as
// ThreadCPUTime knows.
var threadClockStart = time.Now()

// ThreadCPUTime is the calling thread's CPU time where the system reports
// it; here it falls back to the wall time since the process started,
// which holds only on an otherwise idle machine.
func ThreadCPUTime() time.Duration { return time.Since(threadClockStart) }
