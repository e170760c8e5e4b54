// Package null is the null algorithm of consim: agents that only exchange
// their iterates with their graph neighbours and average them. It carries
// no optimization, so a run of it measures the bare cost of the exchange,
// the baseline against which the primal-dual methods are benchmarked.
//
// null is pure like every consensus algorithm: no I/O, no goroutines, no
// clocks, no randomness. It imports consensus and graph only.
package null

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

// Agent i holds x_i in R^d. Each round has one phase: it sends x_i to
// every neighbour j in N_i, expects x_j from each, and updates
//
//	x_i <- (x_i + sum_{j in R} x_j) / (1 + |R|),
//
// where R is the set of neighbours whose message arrived and the sum runs
// in ascending j (so every run with the same arrivals is bit-identical).
type Agent struct {
	id    int
	nbrs  []int
	x     []float64
	sum   []float64
	msgs  []consensus.Msg
	round int
}

// NewAgent returns agent id of graph g with iterate x0 in R^d; a nil x0
// starts at zero. The agent keeps its own copy of x0.
func NewAgent(id int, g *graph.Graph, d int, x0 []float64) (*Agent, error) {
	switch {
	case g == nil:
		return nil, fmt.Errorf("null: agent %d: nil graph", id)
	case id < 0 || id >= g.N:
		return nil, fmt.Errorf("null: agent %d: ids of the graph are 0..%d", id, g.N-1)
	case d < 1:
		return nil, fmt.Errorf("null: agent %d: dimension %d: need at least 1", id, d)
	case x0 != nil && len(x0) != d:
		return nil, fmt.Errorf("null: agent %d: x0 has %d values, want d = %d", id, len(x0), d)
	}
	a := &Agent{id: id, nbrs: g.Neighbors(id), x: make([]float64, d), sum: make([]float64, d)}
	copy(a.x, x0)
	a.msgs = make([]consensus.Msg, len(a.nbrs))
	for k, j := range a.nbrs {
		a.msgs[k] = consensus.Msg{From: id, To: j, Data: a.x}
	}
	return a, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: one exchange per round.
func (a *Agent) Phases(int) int { return 1 }

// Send implements consensus.Agent: x_i to every neighbour, x_j expected
// from every neighbour. The outbox is reused from round to round.
func (a *Agent) Send(t, ph int) consensus.Outbox {
	for k := range a.msgs {
		a.msgs[k].Round, a.msgs[k].Phase = t, ph
	}
	return consensus.Outbox{Msgs: a.msgs, Expect: a.nbrs}
}

// Receive implements consensus.Agent: the average of x_i and the x_j
// that arrived.
func (a *Agent) Receive(t, ph int, in consensus.Inbox) error {
	copy(a.sum, a.x)
	for _, m := range in.Msgs {
		if len(m.Data) != len(a.x) {
			return fmt.Errorf("null: agent %d: round %d: message from agent %d has %d values, want %d", a.id, t, m.From, len(m.Data), len(a.x))
		}
		for i, v := range m.Data {
			a.sum[i] += v
		}
	}
	w := float64(1 + len(in.Msgs))
	for i, s := range a.sum {
		a.x[i] = s / w
	}
	a.round = t + 1
	return nil
}

// Report implements consensus.Agent: the round count and a copy of x_i.
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: append([]float64(nil), a.x...)}
}
