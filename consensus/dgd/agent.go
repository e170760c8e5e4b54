package dgd

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Agent is agent i of DGD, holding x_i; one exchange phase per round.
type Agent struct {
	p         Params
	id, round int
	g         *graph.Graph
	proc      graph.EdgeProcess
	o         *oracle
	x, mix, d []float64 // x_i, sum_j w_ij x_j, gradient
	w         []float64 // w_ij(zeta_t) of the k-th neighbour, 0 if absent
	wii       float64
	out       consensus.Outbox
}

// NewAgent returns agent id over graph g and edge process proc with local
// objective f (nil for pure gossip) and initial point x0 (copied).
func NewAgent(p Params, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (*Agent, error) {
	if err := p.check(id, g, proc, f, x0); err != nil {
		return nil, fmt.Errorf("dgd: agent %d: %w", id, err)
	}
	n := len(x0)
	return &Agent{p: p, id: id, g: g, proc: proc, o: newOracle(p, f), x: append([]float64(nil), x0...),
		mix: make([]float64, n), d: make([]float64, n), w: make([]float64, g.Degree(id))}, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: one exchange per round.
func (a *Agent) Phases(int) int { return 1 }

// Send implements consensus.Agent: it computes row i of W(zeta_t) and
// sends x_i to the present neighbours, expecting their x_j.
func (a *Agent) Send(t, _ int) consensus.Outbox {
	a.wii = a.p.Weights.Row(a.g, a.proc, t, edgeDraw, a.id, a.w)
	a.out.Msgs, a.out.Expect = a.out.Msgs[:0], a.out.Expect[:0]
	for k, j := range a.g.Neighbors(a.id) {
		if a.w[k] > 0 {
			a.out.Msgs = append(a.out.Msgs, consensus.Msg{From: a.id, To: j, Round: t, Data: a.x})
			a.out.Expect = append(a.out.Expect, j)
		}
	}
	return a.out
}

// Receive implements consensus.Agent: x_i <- sum_j w_ij x_j - alpha_t g_i,
// with x_i in place of a missing x_j. Products are rounded (float64) before
// they are added, so that no platform fuses them and all get the same bits.
func (a *Agent) Receive(t, _ int, in consensus.Inbox) error {
	if t != a.round {
		return fmt.Errorf("dgd: agent %d: receive of round %d, expected round %d", a.id, t, a.round)
	}
	a.o.grad(t, a.id, a.x, a.d)
	for l, v := range a.x {
		a.mix[l] = float64(a.wii * v)
	}
	for k, j := range a.g.Neighbors(a.id) {
		xj := a.x // stands in for a missing x_j
		if a.w[k] == 0 {
			continue
		} else if len(in.Msgs) > 0 && in.Msgs[0].From == j {
			xj, in.Msgs = in.Msgs[0].Data, in.Msgs[1:]
		}
		if len(xj) != len(a.x) {
			return fmt.Errorf("dgd: agent %d: round %d: x_%d has %d values, want %d", a.id, t, j, len(xj), len(a.x))
		}
		for l, v := range xj {
			a.mix[l] += float64(a.w[k] * v)
		}
	}
	if len(in.Msgs) > 0 {
		return fmt.Errorf("dgd: agent %d: round %d: unexpected message from agent %d", a.id, t, in.Msgs[0].From)
	}
	for l, alpha := 0, a.p.StepAt(t); l < len(a.x); l++ {
		a.x[l] = a.mix[l] - float64(alpha*a.d[l])
	}
	a.round++
	return nil
}

// Report implements consensus.Agent: the round count, a copy of x_i and
// the oracle calls (stochastic samples, or full gradients).
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: append([]float64(nil), a.x...), GradEvals: a.o.evals}
}
