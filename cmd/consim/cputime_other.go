//go:build !unix

package main

import "time"

// processStart is when the process started, as far as this package knows.
var processStart = time.Now()

// cpuTime is the process's CPU time where the system reports it; here it
// falls back to the wall time since the process started.
func cpuTime() time.Duration { return time.Since(processStart) }
