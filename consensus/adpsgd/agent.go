package adpsgd

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Agent is agent i of AD-PSGD.
type Agent struct {
	id      int
	p       Params
	f       objective.Local
	x, xhat []float64 // x_i; the iterate the running computation read
	g, old  []float64 // the computed gradient; x_i before an average
	oracle  *gossip.Oracle
	pair    exchange.Pair
	steps   int64 // u: the agent's gradient steps
	updates int64
	msgs    [1]consensus.AsyncMsg
	used    [1]consensus.AsyncUse
}

var _ consensus.AsyncAgent = (*Agent)(nil)

// NewAgent returns agent id with parameters p on graph g, objective f
// and initial point x0 (copied).
func NewAgent(p Params, id int, g *graph.Graph, f objective.Local, x0 []float64) (*Agent, error) {
	switch {
	case g == nil || f == nil:
		return nil, fmt.Errorf("adpsgd: agent %d: a graph and an objective are required", id)
	case id < 0 || id >= g.N:
		return nil, fmt.Errorf("adpsgd: agent id %d: must be in [0, %d)", id, g.N)
	case len(x0) == 0 || len(x0) != f.Dim():
		return nil, fmt.Errorf("adpsgd: agent %d: initial point has %d values, the objective's dimension is %d", id, len(x0), f.Dim())
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("adpsgd: agent %d: %w", id, err)
	}
	n := len(x0)
	return &Agent{id: id, p: p, f: f, x: append([]float64(nil), x0...), xhat: make([]float64, n),
		g: make([]float64, n), old: make([]float64, n), oracle: gossip.NewOracle(p.Gradient, p.Seed, f),
		pair: exchange.New(id, g.Neighbors(id), p.Seed)}, nil
}

// ID implements consensus.AsyncAgent.
func (a *Agent) ID() int { return a.id }

// X returns x_i (shared: read only, valid until the next call).
func (a *Agent) X() []float64 { return a.x }

// Counts returns the agent's exchanges so far.
func (a *Agent) Counts() exchange.Counts { return a.pair.Counts }

// Start implements consensus.AsyncAgent: the first computation starts
// at x_0.
func (a *Agent) Start() consensus.AsyncOut { return a.compute(consensus.AsyncOut{}) }

// compute starts a computation at the current iterate: xhat_i <- x_i,
// and the clock runs for its compute time.
func (a *Agent) compute(out consensus.AsyncOut) consensus.AsyncOut {
	copy(a.xhat, a.x)
	out.Arm = true
	return out
}

// OnTick implements consensus.AsyncAgent: the gradient at xhat_i, on the
// samples of the agent's u-th step (gossip.Oracle with t = u), is done;
// the agent opens an exchange, or steps alone without neighbours.
func (a *Agent) OnTick(float64) (consensus.AsyncOut, error) {
	if a.pair.IsOpen() {
		return consensus.AsyncOut{}, fmt.Errorf("computation done while an exchange is open")
	}
	a.oracle.Grad(int(a.steps), a.id, a.xhat, a.g)
	if _, ok := a.pair.Open(); ok {
		a.msgs[0] = a.pair.Request(a.x)
		return consensus.AsyncOut{Msgs: a.msgs[:]}, nil
	}
	return a.step(nil, nil), nil
}

// OnMessage implements consensus.AsyncAgent. A request from i, unless
// the agent's own exchange is open (then it is refused), sets x_j <-
// (x_j + x_i)/2 and answers with the x_j before; a reply sets x_i <-
// (x_i + x_j)/2 - alpha_u g_i; a refusal x_i <- x_i - alpha_u g_i. After
// either the next computation starts.
func (a *Agent) OnMessage(_ float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	arr, err := a.pair.Arrive(m, len(a.x))
	switch {
	case err != nil:
		return consensus.AsyncOut{}, err
	case arr == exchange.Busy:
		a.msgs[0] = a.pair.Refuse(m)
		return consensus.AsyncOut{Msgs: a.msgs[:]}, nil
	case arr == exchange.Request:
		copy(a.old, a.x)
		for l, v := range m.Data {
			a.x[l] = 0.5 * (a.x[l] + v)
		}
		a.updates++
		a.msgs[0], a.used[0] = a.pair.Reply(m, a.old), consensus.UseOf(m)
		return consensus.AsyncOut{Msgs: a.msgs[:], Updated: true, Used: a.used[:]}, nil
	case arr == exchange.Replied:
		a.used[0] = consensus.UseOf(m)
		return a.step(m.Data, a.used[:]), nil
	}
	return a.step(nil, nil), nil
}

// OnLost implements consensus.AsyncAgent: the request's link was absent;
// the agent steps without averaging.
func (a *Agent) OnLost(_ float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	if err := a.pair.Return(m); err != nil {
		return consensus.AsyncOut{}, err
	}
	return a.step(nil, nil), nil
}

// step sets x_i <- (x_i + xj)/2 - alpha_u g_i (x_i - alpha_u g_i when xj
// is nil) and starts the next computation.
func (a *Agent) step(xj []float64, used []consensus.AsyncUse) consensus.AsyncOut {
	alpha := a.p.stepAt(a.steps)
	for l := range a.x {
		v := a.x[l]
		if xj != nil {
			v = 0.5 * (v + xj[l])
		}
		a.x[l] = v - float64(alpha*a.g[l])
	}
	a.steps++
	a.updates++
	return a.compute(consensus.AsyncOut{Updated: true, Used: used})
}

// Report implements consensus.AsyncAgent: x_i, its updates, the samples
// drawn and the exchange measures.
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: int(a.updates), X: append([]float64(nil), a.x...), GradEvals: a.oracle.Evals, Measures: a.pair.Measures()}
}
