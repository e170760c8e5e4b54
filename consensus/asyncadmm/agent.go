package asyncadmm

import (
	"fmt"
	"math"
	"slices"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/consensus/radmm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// DefaultRho is the default penalty rho, radmm's.
const DefaultRho = radmm.DefaultRho

// Agent is agent i of the asynchronous ADMM.
type Agent struct {
	id   int
	rho  float64
	invN float64
	prox objective.ProxOperator
	nb   []int     // neighbours, ascending
	sign []float64 // s_ij of edge k
	x    []float64 // x_i
	xp   []float64 // x_i+, the x-step of the open exchange
	z, y []float64 // z_e and y_e of incident edge k at [k*n, (k+1)*n)
	lam  []float64 // scratch: Lambda_i
	v    []float64 // scratch: the prox centre
	pair exchange.Pair
	upd  int64
	msgs [1]consensus.AsyncMsg
	used [1]consensus.AsyncUse
}

var _ consensus.AsyncAgent = (*Agent)(nil)

// NewAgent returns agent id with penalty rho on graph g, with the run
// seed (of its neighbour draws), objective f, which must have an exact
// prox, and initial point x0 (copied); z_e = y_e = 0.
func NewAgent(id int, g *graph.Graph, seed uint64, rho float64, f objective.Local, x0 []float64) (*Agent, error) {
	switch {
	case g == nil || f == nil:
		return nil, fmt.Errorf("asyncadmm: agent %d: a graph and an objective are required", id)
	case id < 0 || id >= g.N:
		return nil, fmt.Errorf("asyncadmm: agent id %d: must be in [0, %d)", id, g.N)
	case len(x0) == 0 || len(x0) != f.Dim():
		return nil, fmt.Errorf("asyncadmm: agent %d: initial point has %d values, the objective's dimension is %d", id, len(x0), f.Dim())
	case !(rho > 0) || math.IsInf(rho, 0):
		return nil, fmt.Errorf("asyncadmm: agent %d: rho = %v: must be positive and finite", id, rho)
	}
	prox, err := objective.ProxOf(f)
	if err != nil {
		return nil, fmt.Errorf("asyncadmm: agent %d: %w", id, err)
	}
	n, nb := len(x0), g.Neighbors(id)
	a := &Agent{id: id, rho: rho, invN: 1 / float64(g.N), prox: prox, nb: nb, sign: make([]float64, len(nb)),
		x: append([]float64(nil), x0...), xp: make([]float64, n), z: make([]float64, len(nb)*n), y: make([]float64, len(nb)*n),
		lam: make([]float64, n), v: make([]float64, n), pair: exchange.New(id, nb, seed)}
	for k, j := range nb {
		a.sign[k] = graph.Sign(id, j)
	}
	return a, nil
}

// ID implements consensus.AsyncAgent.
func (a *Agent) ID() int { return a.id }

// X returns x_i (shared: read only, valid until the next call).
func (a *Agent) X() []float64 { return a.x }

// Edge returns copies of the agent's z_e and y_e of edge {i, j}, nil if
// j is not a neighbour.
func (a *Agent) Edge(j int) (z, y []float64) {
	k, ok := slices.BinarySearch(a.nb, j)
	if !ok {
		return nil, nil
	}
	n := len(a.x)
	return append([]float64(nil), a.z[k*n:(k+1)*n]...), append([]float64(nil), a.y[k*n:(k+1)*n]...)
}

// Counts returns the agent's exchanges so far.
func (a *Agent) Counts() exchange.Counts { return a.pair.Counts }

// Start implements consensus.AsyncAgent: the Poisson clock starts.
func (a *Agent) Start() consensus.AsyncOut { return consensus.AsyncOut{Arm: true} }

// xStep writes the exact x-step from the current edge variables into dst.
func (a *Agent) xStep(dst []float64) {
	radmm.Lambda(a.lam, a.y, a.sign)
	radmm.ExactX(a.prox, a.lam, a.z, len(a.nb), a.rho, a.invN, a.v, dst)
}

// OnTick implements consensus.AsyncAgent: the clock runs on and, unless
// its own exchange is open, the agent activates the edge to a neighbour
// drawn with probability 1/d_i: it takes its x-step into x_i+ and sends
// it.
func (a *Agent) OnTick(float64) (consensus.AsyncOut, error) {
	out := consensus.AsyncOut{Arm: true}
	if _, ok := a.pair.Open(); ok {
		a.xStep(a.xp)
		a.msgs[0] = a.pair.Request(a.xp)
		out.Msgs = a.msgs[:]
	}
	return out, nil
}

// OnMessage implements consensus.AsyncAgent. A request from i with x_i+,
// unless the agent's own exchange is open (then it is refused): x_j <-
// its x-step, the edge's z_e and y_e step, and the reply carries x_j. A
// reply with x_j+: x_i <- x_i+ and the same edge step. A refusal
// discards x_i+.
func (a *Agent) OnMessage(_ float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	arr, err := a.pair.Arrive(m, len(a.x))
	switch {
	case err != nil:
		return consensus.AsyncOut{}, err
	case arr == exchange.Busy:
		a.msgs[0] = a.pair.Refuse(m)
		return consensus.AsyncOut{Msgs: a.msgs[:]}, nil
	case arr == exchange.Request:
		a.xStep(a.x)
		if err := a.edgeStep(m.From, m.Data); err != nil {
			return consensus.AsyncOut{}, err
		}
		a.msgs[0] = a.pair.Reply(m, a.x)
		return a.updated(m, a.msgs[:]), nil
	case arr == exchange.Replied:
		copy(a.x, a.xp)
		if err := a.edgeStep(m.From, m.Data); err != nil {
			return consensus.AsyncOut{}, err
		}
		return a.updated(m, nil), nil
	}
	return consensus.AsyncOut{}, nil
}

// edgeStep applies the step of edge {i, j} with j's new x_j.
func (a *Agent) edgeStep(j int, xj []float64) error {
	k, ok := slices.BinarySearch(a.nb, j)
	if !ok {
		return fmt.Errorf("agent %d is not a neighbour", j)
	}
	n := len(a.x)
	xlo, xhi := a.x, xj
	if a.sign[k] < 0 {
		xlo, xhi = xj, a.x
	}
	radmm.EdgeStep(a.z[k*n:(k+1)*n], a.y[k*n:(k+1)*n], xlo, xhi, a.rho)
	return nil
}

func (a *Agent) updated(m consensus.AsyncMsg, msgs []consensus.AsyncMsg) consensus.AsyncOut {
	a.upd++
	a.used[0] = consensus.UseOf(m)
	return consensus.AsyncOut{Msgs: msgs, Updated: true, Used: a.used[:]}
}

// OnLost implements consensus.AsyncAgent: the request's link was absent;
// x_i+ is discarded.
func (a *Agent) OnLost(_ float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	return consensus.AsyncOut{}, a.pair.Return(m)
}

// Report implements consensus.AsyncAgent: x_i, its updates and the
// exchange measures.
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: int(a.upd), X: append([]float64(nil), a.x...), Measures: a.pair.Measures()}
}
