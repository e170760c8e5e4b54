//go:build !unix

package async_test

import "time"

// processCPU is 0 where getrusage is not available: the benchmarks then
// report no CPU time.
func processCPU() time.Duration { return 0 }
