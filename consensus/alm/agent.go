package alm

import (
	"fmt"
	"math/rand/v2"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/problem"
	"github.com/consim/consim/graph"
)

// Agent is agent i of the decentralized ALM: it holds its primal block x_i,
// its proximal center z_i and a replica of the dual y_ij in R^n of every
// incident edge {i, j} (the other replica is held by j), and runs the
// per-agent form of section 6.1 as a consensus.Agent.
//
// A round t has one exchange phase, plus a reduce phase on the rounds the
// global safeguard is checked:
//
//	phase 0: send x_i to every neighbour j with {i,j} in E0 or in E1 and E2,
//	         receive x_j from the same set (both endpoints compute the same
//	         draws); then the dual step and, for SafeguardEdge, the reset;
//	phase 1: all-reduce of the DualSq shares; reset y if ||y|| >= M_y;
//	last:    the primal step on x_i and the smoothing step on z_i.
//
// Dropouts: if x_j does not arrive by the deadline, agent i skips all of
// edge {i,j}'s terms this round (the dual update of y_ij and its primal
// terms). The two replicas of y_ij may then drift apart, since j may have
// received x_i and updated its replica; nothing re-synchronises them.
type Agent struct {
	cfg  Config
	id   int
	n    int
	invN float64 // 1/N of f = (1/N) sum_i f_i
	wf   float64 // sigma/N: the weight of grad f_i in the scaled objective sigma f
	// myScaled is sigma M_y: the safeguard threshold on the duals of
	// sigma f, which are sigma times the duals of f that M_y is given in.
	myScaled float64
	f        problem.Local
	box      problem.Box
	proc     graph.EdgeProcess

	nb []neighbor // incident edges, ascending by neighbour id
	x  []float64  // x_i
	z  []float64  // z_i
	y  []float64  // y[k*n:(k+1)*n] is the replica of y_{i,nb[k].j}
	xj []float64  // xj[k*n:(k+1)*n] is x_{nb[k].j} received this round
	g  []float64  // gradient scratch of the primal step
	kg []float64  // gradient scratch of Report

	pcg *rand.PCG
	rng *rand.Rand

	// Outbox buffers, valid until the next Send.
	xs     []float64
	msgs   []consensus.Msg
	expect []int
	reduce []float64

	round int  // rounds completed
	phase int  // phase of the current round whose Receive comes next
	sent  bool // Send(round, phase) has been called

	resets    float64
	gradEvals int64
}

// neighbor is the agent's view of an incident edge {i, j}.
type neighbor struct {
	j int
	s float64 // s_ij = graph.Sign(i, j)
	p float64 // p_ij

	// Draws of the current round: {i,j} in E0, E1, E2.
	e0, e1, e2 bool
	// drop: x_j was expected this round and did not arrive.
	drop bool
}

// expected reports whether x_j is needed this round.
func (b *neighbor) expected() bool { return b.e0 || (b.e1 && b.e2) }

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id of the run with configuration cfg over graph g
// and edge process proc, with local objective f_i = f, feasible box box and
// initial point x_0 = z_0 = x0 (copied); y_0 = 0.
func NewAgent(cfg Config, id int, g *graph.Graph, proc graph.EdgeProcess, f problem.Local, box problem.Box, x0 []float64) (*Agent, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("alm: agent %d: config: %w", id, err)
	}
	if g == nil || proc == nil || f == nil {
		return nil, fmt.Errorf("alm: agent %d: graph, edge process and objective are required", id)
	}
	if id < 0 || id >= g.N {
		return nil, fmt.Errorf("alm: agent id %d: must be in [0, %d)", id, g.N)
	}
	if err := checkPoint(f, box, x0); err != nil {
		return nil, fmt.Errorf("alm: agent %d: %w", id, err)
	}
	n := f.Dim()
	nbrs := g.Neighbors(id)
	a := &Agent{
		cfg:      cfg,
		id:       id,
		n:        n,
		invN:     1 / float64(g.N),
		wf:       cfg.Scale / float64(g.N),
		myScaled: cfg.Scale * cfg.My,
		f:        f,
		box:      box,
		proc:     proc,
		nb:       make([]neighbor, len(nbrs)),
		x:        append([]float64(nil), x0...),
		z:        append([]float64(nil), x0...),
		y:        make([]float64, len(nbrs)*n),
		xj:       make([]float64, len(nbrs)*n),
		g:        make([]float64, n),
		kg:       make([]float64, n),
		pcg:      rand.NewPCG(0, 0),
		xs:       make([]float64, n),
		msgs:     make([]consensus.Msg, 0, len(nbrs)),
		expect:   make([]int, 0, len(nbrs)),
		reduce:   make([]float64, 1),
	}
	a.rng = rand.New(a.pcg)
	for k, j := range nbrs {
		a.nb[k] = neighbor{j: j, s: graph.Sign(id, j), p: g.P(id, j)}
	}
	return a, nil
}

// checkPoint validates an initial point against the objective and the box.
func checkPoint(f problem.Local, box problem.Box, x0 []float64) error {
	if !(box.Lo <= box.Hi) {
		return fmt.Errorf("box [%v, %v]: lower bound must not exceed upper bound", box.Lo, box.Hi)
	}
	n := f.Dim()
	if n < 1 {
		return fmt.Errorf("objective dimension %d: must be at least 1", n)
	}
	if len(x0) != n {
		return fmt.Errorf("initial point has length %d, objective dimension is %d", len(x0), n)
	}
	for k, v := range x0 {
		if !(v >= box.Lo && v <= box.Hi) {
			return fmt.Errorf("initial point x0[%d] = %v is outside the box [%v, %v]", k, v, box.Lo, box.Hi)
		}
	}
	return nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: 2 on the rounds that check the global
// safeguard, 1 otherwise.
func (a *Agent) Phases(t int) int {
	if a.cfg.checksGlobal(t) {
		return 2
	}
	return 1
}

// X returns a copy of x_i.
func (a *Agent) X() []float64 { return append([]float64(nil), a.x...) }

// Z returns a copy of z_i.
func (a *Agent) Z() []float64 { return append([]float64(nil), a.z...) }

// Dual returns a copy of the agent's replica of y_ij and whether {i, j} is
// an incident edge.
func (a *Agent) Dual(j int) ([]float64, bool) {
	for k := range a.nb {
		if a.nb[k].j == j {
			return append([]float64(nil), a.y[k*a.n:(k+1)*a.n]...), true
		}
	}
	return nil, false
}
