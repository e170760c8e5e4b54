//go:build !unix

package proc

import "time"

// processStart is when the process started, as far as this package knows.
var processStart = time.Now()

// CPUTime is the process's CPU time where the system reports it; here it
// falls back to the wall time since the process started.
func CPUTime() time.Duration { return time.Since(processStart) }
