package async_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/consim/consim/async"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/pairwise"
	"github.com/consim/consim/graph"
)

// BenchmarkGossip runs randomized pairwise gossip (dimension 1, unit
// Poisson clocks, exponential latencies of mean 0.1, links present with
// p = 0.9) on a torus of N = side^2 agents in simulated time, and reports
// the engine's events per second of wall time and of the process's CPU
// time (the figure a loaded machine does not halve), and the heap the run holds
// per agent (agents, ports, graph, event queue and messages in flight,
// measured after a collection once the run is warm). One iteration is
// one unit of simulated time: about N ticks and 2.6 N events.
//
//	go test ./async -run '^$' -bench Gossip -benchtime 10x
func BenchmarkGossip(b *testing.B) {
	for _, side := range []int{32, 100, 317} {
		b.Run(fmt.Sprintf("N=%d", side*side), func(b *testing.B) {
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			g, err := graph.Grid(side, side, true)
			if err != nil {
				b.Fatal(err)
			}
			if g, err = g.WithUniformP(0.9); err != nil {
				b.Fatal(err)
			}
			agents := make([]consensus.AsyncAgent, g.N)
			for i := range agents {
				a, err := pairwise.NewAgent(i, g, 1, []float64{float64(i % 7)})
				if err != nil {
					b.Fatal(err)
				}
				agents[i] = a
			}
			eng, err := async.New(agents, async.Options{
				Clock: async.Clock{Dist: async.Dist{Kind: async.DistExponential, Mean: 1}, Seed: 1},
				Link:  async.Link{Graph: g, Process: graph.Bernoulli{G: g, Seed: 1}.Specialize(), Slot: 1, Latency: async.Dist{Kind: async.DistExponential, Mean: 0.1}, Seed: 1},
			})
			if err != nil {
				b.Fatal(err)
			}
			if err := eng.Run(2); err != nil { // warm: queue and message slots at their steady size
				b.Fatal(err)
			}
			var after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&after)
			start := eng.Counters().Events
			cpu := processCPU()
			b.ResetTimer()
			for k := range b.N {
				if err := eng.Run(3 + float64(k)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			events := eng.Counters().Events - start
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			if used := processCPU() - cpu; used > 0 {
				b.ReportMetric(float64(events)/used.Seconds(), "events/cpu-s")
			}
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(g.N), "B/agent")
			runtime.KeepAlive(agents)
		})
	}
}
