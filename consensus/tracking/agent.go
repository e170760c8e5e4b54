package tracking

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Agent is agent i of DIGing: it holds x_i, the gradient tracker y_i and
// its last gradient g_i^t, and runs one exchange phase per round carrying
// [x_i, y_i] (see the package documentation).
type Agent struct {
	p         Params
	id, round int
	g         *graph.Graph
	proc      graph.EdgeProcess
	o         *oracle
	n         int
	xy        []float64 // [x_i, y_i]
	mix       []float64 // sum_j w_ij [x_j, y_j]
	gr, gnew  []float64 // g_i^t and g_i^{t+1}
	w         []float64 // w_ij(zeta_t) of the k-th neighbour, 0 if absent
	wii       float64
	out       consensus.Outbox
}

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id over graph g and edge process proc with local
// objective f and initial point x0 (copied); y_i^0 = g_i^0, the gradient
// of f at x0 (with the samples of round 0 under GradientStochastic).
func NewAgent(p Params, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (*Agent, error) {
	if err := p.check(id, g, proc, f, x0); err != nil {
		return nil, fmt.Errorf("tracking: agent %d: %w", id, err)
	}
	n := len(x0)
	a := &Agent{p: p, id: id, g: g, proc: proc, o: newOracle(p, f), n: n, xy: make([]float64, 2*n),
		mix: make([]float64, 2*n), gr: make([]float64, n), gnew: make([]float64, n), w: make([]float64, g.Degree(id))}
	copy(a.xy, x0)
	a.o.grad(0, id, x0, a.gr)
	copy(a.xy[n:], a.gr)
	return a, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: one exchange per round.
func (a *Agent) Phases(int) int { return 1 }

// X returns a copy of x_i.
func (a *Agent) X() []float64 { return append([]float64(nil), a.xy[:a.n]...) }

// Y returns a copy of y_i.
func (a *Agent) Y() []float64 { return append([]float64(nil), a.xy[a.n:]...) }

// Send implements consensus.Agent: it computes row i of W(zeta_t) and
// sends [x_i, y_i] to the present neighbours, expecting their [x_j, y_j].
func (a *Agent) Send(t, _ int) consensus.Outbox {
	a.wii = a.p.Weights.Row(a.g, a.proc, t, edgeDraw, a.id, a.w)
	a.out.Msgs, a.out.Expect = a.out.Msgs[:0], a.out.Expect[:0]
	for k, j := range a.g.Neighbors(a.id) {
		if a.w[k] > 0 {
			a.out.Msgs = append(a.out.Msgs, consensus.Msg{From: a.id, To: j, Round: t, Data: a.xy})
			a.out.Expect = append(a.out.Expect, j)
		}
	}
	return a.out
}

// Receive implements consensus.Agent:
//
//	x_i <- sum_j w_ij x_j - alpha y_i
//	y_i <- sum_j w_ij y_j + g_i(x_i new) - g_i(x_i old),
//
// with [x_i, y_i] in place of a missing [x_j, y_j]. Products are rounded
// (float64) before they are added, so no platform fuses them.
func (a *Agent) Receive(t, _ int, in consensus.Inbox) error {
	if t != a.round {
		return fmt.Errorf("tracking: agent %d: receive of round %d, expected round %d", a.id, t, a.round)
	}
	for l, v := range a.xy {
		a.mix[l] = float64(a.wii * v)
	}
	for k, j := range a.g.Neighbors(a.id) {
		xy := a.xy // stands in for a missing [x_j, y_j]
		if a.w[k] == 0 {
			continue
		} else if len(in.Msgs) > 0 && in.Msgs[0].From == j {
			xy, in.Msgs = in.Msgs[0].Data, in.Msgs[1:]
		}
		if len(xy) != 2*a.n {
			return fmt.Errorf("tracking: agent %d: round %d: [x_%d, y_%d] has %d values, want %d", a.id, t, j, j, len(xy), 2*a.n)
		}
		for l, v := range xy {
			a.mix[l] += float64(a.w[k] * v)
		}
	}
	if len(in.Msgs) > 0 {
		return fmt.Errorf("tracking: agent %d: round %d: unexpected message from agent %d", a.id, t, in.Msgs[0].From)
	}
	x, y := a.xy[:a.n], a.xy[a.n:]
	for l := range x {
		x[l] = a.mix[l] - float64(a.p.Alpha*y[l])
	}
	a.o.grad(t+1, a.id, x, a.gnew)
	for l := range y {
		y[l] = a.mix[a.n+l] + a.gnew[l] - a.gr[l]
	}
	a.gr, a.gnew = a.gnew, a.gr
	a.round++
	return nil
}

// Report implements consensus.Agent: the round count, a copy of x_i and
// the oracle calls (full gradients, or stochastic samples), including the
// one of y_i^0.
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: a.X(), GradEvals: a.o.evals}
}
