package alm

import (
	"fmt"
	"math/rand/v2"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Agent is agent i of the decentralized ALM: it holds its primal block x_i,
// its proximal center z_i and, for every incident edge {i, j}, the edge
// dual y_ij in R^n (oriented lower -> higher endpoint): the value itself
// if i owns the edge (i < j), else a copy of the owner's value. It runs
// the per-agent form of section 6.1 as a consensus.Agent.
//
// A round t has two phases when the graph has edges (one, or two on the
// rounds that check the global safeguard, when it has none):
//
//	phase 0: send x_i to every neighbour j with {i,j} in E0 or in E1 and E2,
//	         receive x_j from the same set (both endpoints compute the same
//	         draws); then the owner o of each edge {o,u} in E0 whose x_u
//	         arrived writes y_ou <- y_ou + eta (x_o - x_u) (and, for
//	         SafeguardEdge, the reset);
//	phase 1: for every edge in E0 or E1 the owner sends (y_ou, version)
//	         to u, and u replaces its copy with it (u sends back the
//	         version of its copy, which keeps the exchange symmetric; an
//	         agent sends one payload, all its edges' parts, to all); on
//	         the rounds that check the global safeguard, the same phase
//	         all-reduces the owners' ||y_ou||^2 and every agent zeroes
//	         every y (value and copy) if ||y|| >= M_y;
//	last:    the primal step on x_i and the smoothing step on z_i, with
//	         s_ij y_ij from the owner's value or the copy.
//
// Single writer. Each edge dual has one writer, its owner, and one value
// sequence y_ou(t): a round's dual step is applied once, by the owner, iff
// the owner received x_u; the reader u never updates it, it only copies
// the owner's value when the phase-1 message arrives. Without loss the
// copy arrives in the round it is written, so both endpoints use
// y_{t+1} = y_t + eta A(zeta0) x_t in the primal step of round t, with the
// same bits as the matrix form (Reference): the owner computes
// y + eta (x_o - x_u), the old replicated update of the reader,
// y + (-eta)(x_u - x_o), has the same bits, and the copy is exact. With
// loss the iteration is Algorithm 2 with a delayed dual at the reader:
//
//	x_u uses y_ou(t + 1 - d_t),  d_t >= 0 the rounds since u's last copy,
//
// and the owner's update of round t is the paper's step when x_u arrived
// and y_ou(t+1) = y_ou(t) (the edge left out of zeta0) when it did not. So
// asymmetric loss delays the dual at one endpoint, it never forks it: the
// two endpoints never hold different values of the same version, and
// sum_i (A^T y)_i = sum_e (y_e - copy_e) vanishes as soon as the copies
// catch up (at the next phase-1 message that arrives), instead of keeping
// the accumulated difference of two replicas for the rest of the run.
// No protocol over lossy links can keep the two endpoints' values equal
// at every moment (the last message before any instant may be lost: the
// two generals problem); what this one guarantees is that they never hold
// different values of the same version, so a difference is always a
// delay of the reader, never a second dual. Versions are the round t+1 of
// the owner's last write (consensus.EdgeDual.Version); observe.DualDrift
// compares equal versions and counts the delayed copies apart. The price
// is the second phase: one more frame per agent and one more message
// latency per round than a protocol whose endpoints update replicas.
//
// Dropouts: a lost message removes from the round only the terms that
// need its content. A missing x_j (phase 0) skips the penalty term of edge
// {i,j} at i and, at the owner, the dual step (as if the edge were absent
// from zeta0); a missing copy (phase 1) leaves the reader's copy at its
// older value. The y term s_ij y_ij of an edge in E1 is always applied, by
// both endpoints, so A(zeta1)^T y keeps the paper's structure (every row's
// two entries cancel in sum_i) up to the reader's delay, and a point where
// x_i = x_j on every edge and the primal step is stationary stays so under
// any loss. An agent that stops for good leaves its edges' duals at their
// last value: its neighbours keep that multiplier's force.
type Agent struct {
	cfg  Config
	id   int
	n    int
	invN float64 // 1/N of f = (1/N) sum_i f_i
	wf   float64 // sigma/N: the weight of grad f_i in the scaled objective sigma f
	// myScaled is sigma M_y: the safeguard threshold on the duals of
	// sigma f, which are sigma times the duals of f that M_y is given in.
	myScaled float64
	f        objective.Local
	box      objective.Box
	proc     graph.EdgeProcess

	nb []neighbor // incident edges, ascending by neighbour id
	x  []float64  // x_i
	z  []float64  // z_i
	// y[k*n:(k+1)*n] is y_{i,nb[k].j}: the value if nb[k].owner, else the
	// copy of the owner's value received last; ver[k] is its version.
	y   []float64
	ver []int64
	// acked[k], for an owned edge, is the version of the reader's copy in
	// its latest phase-1 message (0 before one arrives).
	acked []int64
	xj    []float64 // xj[k*n:(k+1)*n] is x_{nb[k].j} received this round
	// hasEdges: the graph has an edge, so every agent runs phase 1.
	hasEdges bool
	g        []float64 // gradient scratch of the primal step
	kg       []float64 // gradient scratch of Report

	pcg *rand.PCG
	rng *rand.Rand

	// Outbox buffers, valid until the next Send.
	xs []float64
	// ys is the phase-1 payload, one frame for all neighbours: for each
	// incident edge k in order, (y, version) (n+1 values) if the agent
	// owns it, else the copy's version (1 value); yoff[k] is edge k's
	// offset in it.
	ys     []float64
	yoff   []int
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
	// owner: i < j, agent i writes y_ij and sends it to j in phase 1.
	owner bool
	// off and plen: edge {i,j}'s offset in j's phase-1 payload, and that
	// payload's length (see Agent.ys), from j's neighbours in g.
	off, plen int

	// Draws of the current round: {i,j} in E0, E1, E2.
	e0, e1, e2 bool
	// drop: x_j was expected this round and did not arrive.
	drop bool
}

// expected reports whether x_j is needed this round.
func (b *neighbor) expected() bool { return b.e0 || (b.e1 && b.e2) }

// pushed reports whether the owner sends y_ij in phase 1 of this round:
// when it may have written it (E0) or the reader needs it (E1).
func (b *neighbor) pushed() bool { return b.e0 || b.e1 }

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id of the run with configuration cfg over graph g
// and edge process proc, with local objective f_i = f, feasible box box and
// initial point x_0 = z_0 = x0 (copied); y_0 = 0.
func NewAgent(cfg Config, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, box objective.Box, x0 []float64) (*Agent, error) {
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
		ver:      make([]int64, len(nbrs)),
		acked:    make([]int64, len(nbrs)),
		hasEdges: len(g.Edges) > 0,
		yoff:     make([]int, len(nbrs)),
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
		a.nb[k] = neighbor{j: j, s: graph.Sign(id, j), p: g.P(id, j), owner: id < j}
		a.yoff[k], _ = g.EdgeLayout(id, j, n+1)
		a.nb[k].off, a.nb[k].plen = g.EdgeLayout(j, id, n+1)
	}
	_, size := g.EdgeLayout(id, -1, n+1)
	a.ys = make([]float64, size)
	return a, nil
}

// checkPoint validates an initial point against the objective and the box.
func checkPoint(f objective.Local, box objective.Box, x0 []float64) error {
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

// Phases implements consensus.Agent: 2 when the graph has an edge (phase
// 1 carries the owners' duals) or on the rounds that check the global
// safeguard, 1 otherwise.
func (a *Agent) Phases(t int) int {
	if a.hasEdges || a.cfg.checksGlobal(t) {
		return 2
	}
	return 1
}

// X returns a copy of x_i.
func (a *Agent) X() []float64 { return append([]float64(nil), a.x...) }

// Z returns a copy of z_i.
func (a *Agent) Z() []float64 { return append([]float64(nil), a.z...) }

// Dual returns a copy of the agent's y_ij (the owner's value, or the
// reader's copy of it) and whether {i, j} is an incident edge.
func (a *Agent) Dual(j int) ([]float64, bool) {
	for k := range a.nb {
		if a.nb[k].j == j {
			return append([]float64(nil), a.y[k*a.n:(k+1)*a.n]...), true
		}
	}
	return nil, false
}
