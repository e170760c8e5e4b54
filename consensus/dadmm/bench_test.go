package dadmm

import (
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
)

// BenchmarkRound measures one lockstep round of 8 agents on a least-squares
// problem (n = 20, m = 100) over a random graph with p = 0.7.
func BenchmarkRound(b *testing.B) {
	p := lsProblem(b, 8, 20, 100, 10, 0.01, 1)
	g := randomGraph(b, 8, 0.3, 0.7, 1)
	x0 := startPoints(8, 20, 1, 2)
	for _, method := range []string{MethodExact, MethodLinearized} {
		b.Run(method, func(b *testing.B) {
			as := make([]consensus.Agent, 8)
			for i := range as {
				a, err := NewAgent(Config{Method: method, C: 0.1, Tau: 1}, i, g, graph.Bernoulli{G: g, Seed: 1}, p.Locals[i], x0[i])
				if err != nil {
					b.Fatal(err)
				}
				as[i] = a
			}
			drv, err := lockstep.New(as)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for r := range b.N {
				if err := drv.Round(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
