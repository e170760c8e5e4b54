package choco

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Agent is agent i of CHOCO-gossip or CHOCO-SGD, holding x_i, its public
// copy xhat_i and its copies of its neighbours' xhat_j; one exchange phase
// per round.
type Agent struct {
	p         GossipParams
	step      func(t int) float64 // eta_t; nil for CHOCO-gossip
	id, round int
	g         *graph.Graph
	proc      graph.EdgeProcess
	o         *gossip.Oracle // nil for CHOCO-gossip
	c         *compressor
	nbrs      []int

	x, xhat          []float64
	half, diff, q, d []float64
	acc              []float64
	whole            []float64 // xhat_i^{t+1} and the marker: a whole copy
	w                []float64 // w_ij(zeta_t) of the k-th neighbour, 0 if absent

	hat []([]float64) // hat[k]: this agent's copy of neighbour k's xhat
	// mine[k]: hat[k] is neighbour k's xhat; theirs[k]: neighbour k's copy
	// of xhat_i is; sentWhole[k]: this round's message to k is a whole
	// copy.
	mine, theirs, sentWhole []bool

	msgs []consensus.Msg
	out  consensus.Outbox
}

var _ consensus.Agent = (*Agent)(nil)

// NewGossipAgent returns agent id of CHOCO-gossip over graph g and edge
// process proc, starting at x0 (copied).
func NewGossipAgent(p GossipParams, id int, g *graph.Graph, proc graph.EdgeProcess, x0 []float64) (*Agent, error) {
	if err := p.check(id, g, proc, nil, x0); err != nil {
		return nil, fmt.Errorf("choco: agent %d: %w", id, err)
	}
	return newAgent(p, nil, nil, id, g, proc, x0)
}

// NewAgent returns agent id of CHOCO-SGD over graph g and edge process
// proc with local objective f (nil: a zero gradient) and initial point x0
// (copied).
func NewAgent(p Params, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (*Agent, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("choco: agent %d: %w", id, err)
	}
	if err := p.GossipParams.check(id, g, proc, f, x0); err != nil {
		return nil, fmt.Errorf("choco: agent %d: %w", id, err)
	}
	return newAgent(p.GossipParams, p.StepAt, gossip.NewOracle(p.Gradient, p.Seed, f), id, g, proc, x0)
}

func newAgent(p GossipParams, step func(int) float64, o *gossip.Oracle, id int, g *graph.Graph, proc graph.EdgeProcess, x0 []float64) (*Agent, error) {
	c, err := newCompressor(p)
	if err != nil {
		return nil, fmt.Errorf("choco: agent %d: %w", id, err)
	}
	n, deg := len(x0), g.Degree(id)
	a := &Agent{p: p, step: step, id: id, g: g, proc: proc, o: o, c: c, nbrs: g.Neighbors(id),
		x: append([]float64(nil), x0...), xhat: make([]float64, n),
		half: make([]float64, n), diff: make([]float64, n), q: make([]float64, n), d: make([]float64, n),
		acc: make([]float64, n), whole: make([]float64, n+1), w: make([]float64, deg),
		hat: make([][]float64, deg), mine: make([]bool, deg), theirs: make([]bool, deg), sentWhole: make([]bool, deg)}
	for k := range a.hat {
		a.hat[k] = make([]float64, n) // xhat_j^0 = 0
		a.mine[k], a.theirs[k] = true, true
	}
	return a, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: one exchange per round.
func (a *Agent) Phases(int) int { return 1 }

// Send implements consensus.Agent: it takes the local step x_i^{t+1/2},
// publishes q_i^t = Q(x_i^{t+1/2} - xhat_i^t) into xhat_i, and sends q_i^t
// (in Q's compact encoding) to the present neighbours whose copy of
// xhat_i is current, and the whole xhat_i^{t+1} to the others.
func (a *Agent) Send(t, _ int) consensus.Outbox {
	a.p.Mixing.Graph().Row(a.g, a.proc, t, gossip.EdgeDraw, a.id, a.w)
	if a.step != nil {
		a.o.Grad(t, a.id, a.x, a.d)
		halfStep(a.x, a.d, a.step(t), a.half)
	} else {
		copy(a.half, a.x)
	}
	enc := publish(a.c, t, a.id, a.half, a.xhat, a.diff, a.q)
	copy(a.whole, a.xhat)
	a.msgs, a.out.Expect = a.msgs[:0], a.out.Expect[:0]
	for k, j := range a.nbrs {
		a.sentWhole[k] = false
		if a.w[k] == 0 {
			// Neither q reaches the other end: both copies fall behind.
			a.mine[k], a.theirs[k] = false, false
			continue
		}
		m := consensus.Msg{From: a.id, To: j, Round: t, Data: a.q, Enc: enc}
		if !a.theirs[k] {
			m = consensus.Msg{From: a.id, To: j, Round: t, Data: a.whole}
			a.sentWhole[k], a.theirs[k] = true, true
		}
		a.msgs = append(a.msgs, m)
		a.out.Expect = append(a.out.Expect, j)
	}
	a.out.Msgs = a.msgs
	return a.out
}

// Receive implements consensus.Agent: it adds each q_j^t to its copy of
// xhat_j (or takes a whole copy), then x_i <- x_i^{t+1/2} + gamma sum_j
// w_ij (xhat_j^{t+1} - xhat_i^{t+1}) over the present neighbours whose copy
// is current, in ascending j.
func (a *Agent) Receive(t, _ int, in consensus.Inbox) error {
	if t != a.round {
		return fmt.Errorf("choco: agent %d: receive of round %d, expected round %d", a.id, t, a.round)
	}
	n := len(a.x)
	clear(a.acc)
	for k, j := range a.nbrs {
		if a.w[k] == 0 {
			continue
		}
		if len(in.Msgs) == 0 || in.Msgs[0].From != j {
			// Missing at the deadline: this copy is stale, and so may be
			// j's copy of xhat_i.
			a.mine[k], a.theirs[k] = false, false
			continue
		}
		data := in.Msgs[0].Data
		in.Msgs = in.Msgs[1:]
		switch len(data) {
		case n + 1:
			if a.mine[k] && !a.sentWhole[k] {
				a.theirs[k] = false // j reset the edge: answer with a whole copy
			}
			copy(a.hat[k], data[:n])
			a.mine[k] = true
		case n:
			if a.mine[k] {
				for l, v := range data {
					a.hat[k][l] += v
				}
			}
		default:
			return fmt.Errorf("choco: agent %d: round %d: message of agent %d has %d values, want %d (q) or %d (a whole copy)", a.id, t, j, len(data), n, n+1)
		}
		if a.mine[k] {
			addEdge(a.acc, a.w[k], a.hat[k], a.xhat)
		}
	}
	if len(in.Msgs) > 0 {
		return fmt.Errorf("choco: agent %d: round %d: unexpected message from agent %d", a.id, t, in.Msgs[0].From)
	}
	gossipStep(a.x, a.half, a.acc, a.p.Gamma)
	a.round++
	return nil
}

// Report implements consensus.Agent: the round count, a copy of x_i and
// the oracle calls (stochastic samples, or full gradients; 0 for
// CHOCO-gossip).
func (a *Agent) Report() consensus.Report {
	r := consensus.Report{ID: a.id, Round: a.round, X: append([]float64(nil), a.x...)}
	if a.o != nil {
		r.GradEvals = a.o.Evals
	}
	return r
}
