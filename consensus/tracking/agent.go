package tracking

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Agent is agent i of DIGing: it holds x_i, the gradient tracker y_i and
// its last gradient g_i^t, and runs one exchange phase per round carrying
// [x_i, y_i] (see the package documentation).
type Agent struct {
	p         Params
	id, round int
	mixer     *gossip.Mixer
	o         *gossip.Oracle
	n         int
	xy        []float64 // [x_i, y_i]
	mix       []float64 // sum_j w_ij [x_j, y_j]
	gr, gnew  []float64 // g_i^t and g_i^{t+1}
}

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id over graph g and edge process proc with local
// objective f and initial point x0 (copied); y_i^0 = g_i^0, the gradient
// of f at x0 (with the samples of round 0 under GradientStochastic).
func NewAgent(p Params, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (*Agent, error) {
	p, err := p.check(id, g, proc, f, x0)
	if err != nil {
		return nil, fmt.Errorf("tracking: agent %d: %w", id, err)
	}
	n := len(x0)
	a := &Agent{p: p, id: id, mixer: gossip.NewMixer(p.Mixing, id, g, proc), o: gossip.NewOracle(p.Gradient, p.Seed, f), n: n,
		xy: make([]float64, 2*n), mix: make([]float64, 2*n), gr: make([]float64, n), gnew: make([]float64, n)}
	copy(a.xy, x0)
	a.o.Grad(0, id, x0, a.gr)
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
func (a *Agent) Send(t, _ int) consensus.Outbox { return a.mixer.Send(t, a.xy) }

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
	if err := a.mixer.Mix(a.xy, in, a.mix); err != nil {
		return fmt.Errorf("tracking: agent %d: round %d: %w", a.id, t, err)
	}
	x, y := a.xy[:a.n], a.xy[a.n:]
	for l := range x {
		x[l] = a.mix[l] - float64(a.p.Step*y[l])
	}
	a.o.Grad(t+1, a.id, x, a.gnew)
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
	return consensus.Report{ID: a.id, Round: a.round, X: a.X(), GradEvals: a.o.Evals}
}
