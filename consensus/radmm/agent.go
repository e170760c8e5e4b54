package radmm

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/edgeadmm"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Agent is agent i of the randomized edge-activation ADMM: it holds its
// primal block x_i in R^n and, for every incident edge e = {i, j}, the
// edge variable z_e and the edge dual y_e: the values if it owns the edge
// (i < j), else copies of the owner's values. It runs two exchange phases
// per round when the graph has edges (see the package documentation).
type Agent struct {
	id   int
	n    int
	cfg  Config
	l    *edgeadmm.Local // f_i with its prox or step tau_i
	proc graph.EdgeProcess

	nb   []edge    // incident edges, ascending by neighbour id
	sign []float64 // sign[k] = nb[k].sign
	x    []float64 // x_i
	z    []float64 // z[k*n:(k+1)*n] is z_e of edge nb[k]
	y    []float64 // y[k*n:(k+1)*n] is y_e of edge nb[k], oriented lo -> hi
	// ver[k] is the version of z_e and y_e of edge nb[k]: the round t+1
	// of the owner's last write (0 before one); acked[k], at the owner,
	// is the version the reader last reported.
	ver, acked []int64
	xj         []float64 // x_j received this round, per edge
	v          []float64 // scratch: Lambda_i
	w          []float64 // scratch: prox centre or gradient
	kg         []float64 // gradient scratch of Report
	xs         []float64 // phase-0 send buffer: x_i
	// sb is the phase-1 payload, one frame for all present neighbours: for
	// each incident edge k in order, (z_e, y_e, version) (2n+1 values) if
	// the agent owns it, else its copy's version (1 value), from sbOff[k].
	sb       []float64
	sbOff    []int
	ms       []consensus.Msg
	ex       []int
	hasEdges bool // the graph has an edge: every agent runs phase 1

	round int  // rounds completed
	phase int  // phase of the current round whose Receive comes next
	sent  bool // Send(round, phase) has been called
	out   consensus.Outbox
}

// edge is the agent's view of an incident edge {i, j}.
type edge struct {
	j int
	// sign is s_ij = +1 if i < j (i is the edge's lower endpoint, y_e is
	// lambda_{e,i}) and -1 otherwise (lambda_{e,i} = -y_e).
	sign float64
	// present: the edge is in the round's draw; live: present and the
	// neighbour's message arrived.
	present, live bool
	// off and plen: the edge's offset in the neighbour's phase-1 payload
	// and that payload's length (see Agent.sb).
	off, plen int
}

// owner reports whether the agent writes the edge's z_e and y_e (it is
// the edge's lower endpoint).
func (b *edge) owner() bool { return b.sign > 0 }

var _ consensus.Agent = (*Agent)(nil)

// NewAgent returns agent id of the run with configuration cfg over graph g
// and edge process proc, with local objective f_i = f and initial point
// x_0 = x0 (copied); z_e = 0 and y_e = 0 on every incident edge.
// MethodExact fails if f has no exact prox (objective.ProxOf);
// MethodLinearized with the default tau fails if f has no positive finite
// smoothness constant.
func NewAgent(cfg Config, id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (*Agent, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, fmt.Errorf("radmm: agent %d: config: %w", id, err)
	}
	l, err := edgeadmm.AgentLocal(cfg.Method, cfg.Tau, cfg.Seed, id, g, proc, f, x0)
	if err != nil {
		return nil, fmt.Errorf("radmm: %w", err)
	}
	n := f.Dim()
	nbrs := g.Neighbors(id)
	d := len(nbrs)
	a := &Agent{
		id:       id,
		n:        n,
		cfg:      cfg,
		l:        l,
		proc:     proc,
		nb:       make([]edge, d),
		x:        append([]float64(nil), x0...),
		z:        make([]float64, d*n),
		y:        make([]float64, d*n),
		xj:       make([]float64, d*n),
		ver:      make([]int64, d),
		acked:    make([]int64, d),
		v:        make([]float64, n),
		w:        make([]float64, n),
		kg:       make([]float64, n),
		xs:       make([]float64, n),
		sbOff:    make([]int, d),
		hasEdges: len(g.Edges) > 0,
		ms:       make([]consensus.Msg, 0, d),
		ex:       make([]int, 0, d),
	}
	a.sign = make([]float64, d)
	for k, j := range nbrs {
		a.nb[k] = edge{j: j, sign: graph.Sign(id, j)}
		a.sign[k] = a.nb[k].sign
		a.sbOff[k], _ = g.EdgeLayout(id, j, 2*n+1)
		a.nb[k].off, a.nb[k].plen = g.EdgeLayout(j, id, 2*n+1)
	}
	_, size := g.EdgeLayout(id, -1, 2*n+1)
	a.sb = make([]float64, size)
	return a, nil
}

// ID implements consensus.Agent.
func (a *Agent) ID() int { return a.id }

// Phases implements consensus.Agent: 2 when the graph has an edge (phase
// 1 carries the owners' edge variables), 1 otherwise.
func (a *Agent) Phases(int) int {
	if a.hasEdges {
		return 2
	}
	return 1
}

// X returns a copy of x_i.
func (a *Agent) X() []float64 { return append([]float64(nil), a.x...) }

// Tau returns the agent's step tau_i (0 for MethodExact).
func (a *Agent) Tau() float64 { return a.l.Tau }

// EdgeZ returns a copy of the agent's z_e, e = {i, j} (the owner's value
// or the reader's copy), or nil if j is not a neighbour.
func (a *Agent) EdgeZ(j int) []float64 { return a.edgeBlock(a.z, j) }

// EdgeY returns a copy of the agent's edge dual y_e, e = {i, j} (the
// owner's value or the reader's copy), oriented from the lower endpoint
// (y_e = lambda_{e,min(i,j)}), or nil if j is not a neighbour.
func (a *Agent) EdgeY(j int) []float64 { return a.edgeBlock(a.y, j) }

// EdgeVersion returns the version of the agent's z_e and y_e, e = {i, j}:
// the round t+1 of the owner's last write (0 before one), or -1 if j is
// not a neighbour.
func (a *Agent) EdgeVersion(j int) int64 {
	for k := range a.nb {
		if a.nb[k].j == j {
			return a.ver[k]
		}
	}
	return -1
}

// Lambda returns Lambda_i = sum_{e = {i,j}} s_ij y_e^(i), the agent's
// aggregate dual.
func (a *Agent) Lambda() []float64 {
	a.lambda(a.v)
	return append([]float64(nil), a.v...)
}

func (a *Agent) edgeBlock(v []float64, j int) []float64 {
	for k := range a.nb {
		if a.nb[k].j == j {
			return append([]float64(nil), v[k*a.n:(k+1)*a.n]...)
		}
	}
	return nil
}

// lambda writes Lambda_i = sum_k s_k y_k into dst.
func (a *Agent) lambda(dst []float64) { Lambda(dst, a.y, a.sign) }
