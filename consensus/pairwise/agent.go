package pairwise

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/graph"
)

// Agent is agent i of randomized pairwise gossip.
type Agent struct {
	id      int
	x, old  []float64 // x_i; x_i before a step, sent in a reply
	pair    exchange.Pair
	updates int64
	msgs    [1]consensus.AsyncMsg
	used    [1]consensus.AsyncUse
}

var _ consensus.AsyncAgent = (*Agent)(nil)

// NewAgent returns agent id on graph g with the run seed (of its
// neighbour draws) and initial point x0 (copied).
func NewAgent(id int, g *graph.Graph, seed uint64, x0 []float64) (*Agent, error) {
	switch {
	case g == nil:
		return nil, fmt.Errorf("pairwise: agent %d: a graph is required", id)
	case id < 0 || id >= g.N:
		return nil, fmt.Errorf("pairwise: agent id %d: must be in [0, %d)", id, g.N)
	case len(x0) == 0:
		return nil, fmt.Errorf("pairwise: agent %d: empty initial point", id)
	}
	return &Agent{id: id, x: append([]float64(nil), x0...), old: make([]float64, len(x0)),
		pair: exchange.New(id, g.Neighbors(id), seed)}, nil
}

// ID implements consensus.AsyncAgent.
func (a *Agent) ID() int { return a.id }

// X returns x_i (shared: read only, valid until the next call).
func (a *Agent) X() []float64 { return a.x }

// Counts returns the agent's exchanges so far.
func (a *Agent) Counts() exchange.Counts { return a.pair.Counts }

// Start implements consensus.AsyncAgent: the Poisson clock starts.
func (a *Agent) Start() consensus.AsyncOut { return consensus.AsyncOut{Arm: true} }

// OnTick implements consensus.AsyncAgent: the clock runs on, and unless
// its own exchange is open, the agent sends x_i to a neighbour drawn
// from P_i.
func (a *Agent) OnTick(float64) (consensus.AsyncOut, error) {
	out := consensus.AsyncOut{Arm: true}
	if _, ok := a.pair.Open(); ok {
		a.msgs[0] = a.pair.Request(a.x)
		out.Msgs = a.msgs[:]
	}
	return out, nil
}

// OnMessage implements consensus.AsyncAgent. A request from i, unless
// the agent's own exchange is open (then it is refused), sets x_j <-
// (x_j + x_i)/2 and answers with the x_j before; a reply sets x_i <-
// (x_i + x_j)/2; a refusal ends the exchange with no step.
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
		a.average(m.Data)
		a.msgs[0] = a.pair.Reply(m, a.old)
		return a.step(m, a.msgs[:]), nil
	case arr == exchange.Replied:
		a.average(m.Data)
		return a.step(m, nil), nil
	}
	return consensus.AsyncOut{}, nil
}

// OnLost implements consensus.AsyncAgent: the request's link was absent;
// the exchange ends with no step.
func (a *Agent) OnLost(_ float64, m consensus.AsyncMsg) (consensus.AsyncOut, error) {
	return consensus.AsyncOut{}, a.pair.Return(m)
}

// average sets x <- (x + y)/2: 0.5 (x + y) is the same number at both
// ends of an exchange, since x + y = y + x exactly.
func (a *Agent) average(y []float64) {
	for l, v := range y {
		a.x[l] = 0.5 * (a.x[l] + v)
	}
}

// step counts an update that used message m's values.
func (a *Agent) step(m consensus.AsyncMsg, msgs []consensus.AsyncMsg) consensus.AsyncOut {
	a.updates++
	a.used[0] = consensus.UseOf(m)
	return consensus.AsyncOut{Msgs: msgs, Updated: true, Used: a.used[:]}
}

// Report implements consensus.AsyncAgent: x_i, the updates and the
// exchange measures (exchange.Measures).
func (a *Agent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: int(a.updates), X: append([]float64(nil), a.x...), Measures: a.pair.Measures()}
}
