//go:build !unix

package bench

import "time"

// cpuTime is zero where the process CPU time is not read: Cost.CPU stays
// zero.
func cpuTime() time.Duration { return 0 }
