package sim_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// BenchmarkZOSPLMWorkers is the wall time of one ZO-SPLM iteration at
// n = 50, k = 10,000 (the paper's Table 2 setting: 10,001 function
// evaluations per iteration) through the runtime, the server agent
// fanning its evaluations out to W oracle workers on the chan transport
// (W = 0: the server evaluates them in its own goroutine). One op is a
// run of 20 iterations; s/iter is its wall time per iteration and
// cpu-s/iter the process CPU time per iteration (all goroutines), start-up
// and the coordinator's measurement included. Compare the W as ratios
// within one run of the benchmark: on a shared machine the absolute
// figures move with the load.
func BenchmarkZOSPLMWorkers(b *testing.B) {
	const rounds = 20
	for _, w := range []int{0, 1, 2, 4} {
		b.Run(fmt.Sprintf("W=%d", w), func(b *testing.B) {
			src := fmt.Sprintf(`agents: 1
graph: {topology: complete}
problem: {kind: qcqp, n: 50, m: 1}
algorithm: {name: zo_splm, directions: 10000}
rounds: %d
metrics: {every: %d}
runtime: {transport: chan, workers: %d}
output: {dir: %s}
`, rounds, rounds, w, b.TempDir())
			s, err := scenarios.Parse([]byte(src), "bench.yaml")
			if err != nil {
				b.Fatal(err)
			}
			var wall time.Duration
			runs := 0
			c0 := processCPU()
			for b.Loop() {
				start := time.Now()
				if _, err := sim.Run(context.Background(), s, sim.Options{RunID: fmt.Sprintf("w%d-%d", w, runs)}); err != nil {
					b.Fatal(err)
				}
				wall += time.Since(start)
				runs++
			}
			b.ReportMetric(wall.Seconds()/float64(runs*rounds), "s/iter")
			b.ReportMetric((processCPU()-c0).Seconds()/float64(runs*rounds), "cpu-s/iter")
		})
	}
}
