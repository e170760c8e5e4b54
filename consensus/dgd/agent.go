package dgd

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Agent is agent i of DGD, holding x_i; one exchange phase per round.
type Agent struct {
	p         Params
	id, round int
	mixer     *gossip.Mixer
	o         *gossip.Oracle
	x, mix, d []float64 // x_i, sum_j w_ij x_j, gradient
}

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id over graph g and edge process proc with local
// objective f (nil for pure gossip) and initial point x0 (copied).
func NewAgent(p Params, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (*Agent, error) {
	p, err := p.check(id, g, proc, f, x0)
	if err != nil {
		return nil, fmt.Errorf("dgd: agent %d: %w", id, err)
	}
	n := len(x0)
	return &Agent{p: p, id: id, mixer: gossip.NewMixer(p.Mixing, id, g, proc), o: gossip.NewOracle(p.Gradient, p.Seed, f),
		x: append([]float64(nil), x0...), mix: make([]float64, n), d: make([]float64, n)}, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: one exchange per round.
func (a *Agent) Phases(int) int { return 1 }

// Send implements consensus.Agent: it computes row i of W(zeta_t) and
// sends x_i to the present neighbours, expecting their x_j.
func (a *Agent) Send(t, _ int) consensus.Outbox { return a.mixer.Send(t, a.x) }

// Receive implements consensus.Agent: x_i <- sum_j w_ij x_j - alpha_t g_i,
// with x_i in place of a missing x_j. Products are rounded (float64) before
// they are added, so that no platform fuses them and all get the same bits.
func (a *Agent) Receive(t, _ int, in consensus.Inbox) error {
	if t != a.round {
		return fmt.Errorf("dgd: agent %d: receive of round %d, expected round %d", a.id, t, a.round)
	}
	a.o.Grad(t, a.id, a.x, a.d)
	if err := a.mixer.Mix(a.x, in, a.mix); err != nil {
		return fmt.Errorf("dgd: agent %d: round %d: %w", a.id, t, err)
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
	return consensus.Report{ID: a.id, Round: a.round, X: append([]float64(nil), a.x...), GradEvals: a.o.Evals}
}
