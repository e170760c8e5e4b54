package alm

import (
	"fmt"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// BenchmarkRound measures one round of agent work of an agent with 4
// neighbours, all edges present, edge safeguard: phase 0 (Send, Receive
// with the dual step) and phase 1 (Send of the agent's duals to the four
// readers, Receive of their versions, the primal step).
func BenchmarkRound(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			const deg = 4
			var edges []graph.Edge
			for j := 1; j <= deg; j++ {
				edges = append(edges, graph.Edge{I: 0, J: j, P: 1})
			}
			g, err := graph.New(deg+1, edges)
			if err != nil {
				b.Fatal(err)
			}
			q := quad(1, make([]float64, n), 0.1)
			cfg := Config{Steps: Steps{Eta: 0.01, Tau: 0.01, Rho: 1, Mu: 2, Beta: 0.001, My: 1e6}, Safeguard: SafeguardEdge}
			a, err := NewAgent(cfg, 0, g, graph.Bernoulli{G: g}, q, objective.Box{Lo: -1, Hi: 1}, make([]float64, n))
			if err != nil {
				b.Fatal(err)
			}
			in, acks := consensus.Inbox{}, consensus.Inbox{}
			for j := 1; j <= deg; j++ {
				data := make([]float64, n)
				for k := range data {
					data[k] = 0.01 * float64(j)
				}
				in.Msgs = append(in.Msgs, consensus.Msg{From: j, To: 0, Data: data})
				acks.Msgs = append(acks.Msgs, consensus.Msg{From: j, To: 0, Phase: 1, Data: []float64{0}})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for t := 0; t < b.N; t++ {
				a.Send(t, 0)
				for k := range in.Msgs {
					in.Msgs[k].Round = t
				}
				if err := a.Receive(t, 0, in); err != nil {
					b.Fatal(err)
				}
				a.Send(t, 1)
				for k := range acks.Msgs {
					acks.Msgs[k].Round = t
				}
				if err := a.Receive(t, 1, acks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
