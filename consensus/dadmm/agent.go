package dadmm

import (
	"fmt"
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/edgeadmm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Agent is agent i of a decentralized ADMM: it holds its primal block x_i
// and its dual a_i in R^n, and runs one exchange phase per round (see the
// package documentation for the round's order and the dropout rule).
type Agent struct {
	exchange

	cfg Config
	l   *edgeadmm.Local // f_i with its prox or step tau_i

	x  []float64 // x_i
	a  []float64 // a_i
	v  []float64 // scratch: prox centre or gradient
	kg []float64 // gradient scratch of Report
}

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id of the run with configuration cfg over graph g
// and edge process proc, with local objective f_i = f and initial point
// x_0 = x0 (copied); a_0 = 0. MethodExact fails if f has no exact prox
// (objective.ProxOf); MethodLinearized with the default tau fails if f has
// no positive finite smoothness constant.
func NewAgent(cfg Config, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (*Agent, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("dadmm: agent %d: config: %w", id, err)
	}
	l, err := edgeadmm.AgentLocal(cfg.Method, cfg.Tau, cfg.Seed, id, g, proc, f, x0)
	if err != nil {
		return nil, fmt.Errorf("dadmm: %w", err)
	}
	n := f.Dim()
	return &Agent{
		exchange: newExchange(id, n, g, proc),
		cfg:      cfg,
		l:        l,
		x:        append([]float64(nil), x0...),
		a:        make([]float64, n),
		v:        make([]float64, n),
		kg:       make([]float64, n),
	}, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: one exchange phase per round.
func (a *Agent) Phases(int) int { return 1 }

// X returns a copy of x_i.
func (a *Agent) X() []float64 { return append([]float64(nil), a.x...) }

// Dual returns a copy of a_i.
func (a *Agent) Dual() []float64 { return append([]float64(nil), a.a...) }

// Tau returns the agent's step tau_i (0 for MethodExact).
func (a *Agent) Tau() float64 { return a.l.Tau }
