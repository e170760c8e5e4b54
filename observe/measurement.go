package observe

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Objective is what the optimality measures need of a problem: the
// objective f(x) = (1/L) sum_{l < L} f_l(x), its optimal value f* (NaN if
// unknown) and a minimiser x* (nil if unknown).
type Objective struct {
	L     int
	Local func(l int) objective.Local
	FStar float64
	XStar []float64
}

// ProblemObjective is p's Objective; nil for a nil p.
func ProblemObjective(p *objective.Problem) *Objective {
	if p == nil {
		return nil
	}
	return &Objective{L: len(p.Locals), Local: func(l int) objective.Local { return p.Locals[l] }, FStar: p.FStar, XStar: p.XStar}
}

// Measurement computes the Metrics of one round's reports in steps that
// several goroutines may share, chunk by chunk (see Chunk), with the bits
// of Measure whatever the split:
//
//	Add(i, report of agent i)   for every agent, ascending within a chunk
//	Mean()
//	Spread(c)                   for every chunk c < Chunks()
//	Metrics()
//
// The calls of one step for distinct chunks may run at once; each step
// starts after the previous one has returned. Reports with a nil X stand
// for departed agents and take no part, as in Measure.
type Measurement struct {
	g     *graph.Graph
	obj   *Objective
	decls []consensus.Measure

	xs    [][]float64
	c1    []firstPass
	c2    []secondPass
	edges [][2]int // edges[c]: the range of g.Edges Spread(c) takes
	n     int      // agents present
	xbar  []float64
	m     Metrics
}

// firstPass is one chunk's sum_i x_i and counts.
type firstPass struct {
	present   int
	first     int // the chunk's first present agent
	round     int
	sum       []float64
	gradEvals int64
	decl      []float64
}

// secondPass is one chunk's terms around xbar.
type secondPass struct {
	spread, mass, obj, feas float64
}

// NewMeasurement starts the measurement of the reports of g's agents,
// against obj (nil: ObjValue, OptGap and DistToOpt are NaN), with the
// algorithm's declared measures decls (reduced into Metrics.Extra).
func NewMeasurement(g *graph.Graph, obj *Objective, decls []consensus.Measure) (*Measurement, error) {
	if g == nil {
		return nil, errors.New("observe: nil graph")
	}
	for _, e := range g.Edges {
		if e.I < 0 || e.J < 0 || e.I >= g.N || e.J >= g.N {
			return nil, fmt.Errorf("observe: edge {%d,%d} is outside agents 0..%d", e.I, e.J, g.N-1)
		}
	}
	m := &Measurement{
		g: g, obj: obj, decls: decls,
		xs: make([][]float64, g.N),
		c1: make([]firstPass, chunks(g.N)),
		c2: make([]secondPass, chunks(max(g.N, objLen(obj)))),
	}
	for c := range m.c1 {
		m.c1[c].decl = declInit(decls)
	}
	m.edges = edgeChunks(g.Edges, len(m.c2))
	return m, nil
}

// edgeChunks splits the edges, sorted by I as graph.New sorts them, into
// nc ranges, range c holding the edges whose I is in agent chunk c; edges
// in another order all go to chunk 0.
func edgeChunks(edges []graph.Edge, nc int) [][2]int {
	r := make([][2]int, nc)
	if !slices.IsSortedFunc(edges, func(a, b graph.Edge) int { return a.I - b.I }) {
		r[0] = [2]int{0, len(edges)}
		return r
	}
	lo := 0
	for c := range r {
		hi := sort.Search(len(edges), func(k int) bool { return edges[k].I >= (c+1)*Chunk })
		if c == nc-1 {
			hi = len(edges)
		}
		r[c] = [2]int{lo, hi}
		lo = hi
	}
	return r
}

// objLen is the number of local objectives of obj, 0 for nil.
func objLen(obj *Objective) int {
	if obj == nil {
		return 0
	}
	return obj.L
}

// Chunks is the number of chunks of agents (and of the problem's local
// objectives, when it has more) that Spread takes.
func (m *Measurement) Chunks() int { return len(m.c2) }

// Add takes agent i's report r into its chunk's sums: x_i, GradEvals_i
// and the declared measures. The agents of one chunk must come in
// ascending order.
func (m *Measurement) Add(i int, r consensus.Report) error {
	c := &m.c1[i/Chunk]
	switch {
	case r.ID != i:
		return fmt.Errorf("observe: report %d comes from agent %d: reports must be indexed by agent id", i, r.ID)
	case r.X == nil:
		return nil // departed
	case c.present == 0 && len(r.X) == 0:
		return fmt.Errorf("observe: agent %d reports an empty x", i)
	case c.present == 0:
		c.first, c.round, c.sum = i, r.Round, make([]float64, len(r.X))
	case r.Round != c.round:
		return fmt.Errorf("observe: agent %d reports round %d, agent %d round %d: reports must be of one round", i, r.Round, c.first, c.round)
	case len(r.X) != len(c.sum):
		return fmt.Errorf("observe: agent %d reports x of length %d, agent %d of length %d", i, len(r.X), c.first, len(c.sum))
	}
	if len(m.decls) > 0 {
		if err := declAdd(c.decl, m.decls, i, r); err != nil {
			return err
		}
	}
	m.xs[i] = r.X
	addTo(c.sum, r.X)
	c.present++
	c.gradEvals += r.GradEvals
	return nil
}

// Mean combines the chunks' sums into xbar = (1/N) sum_i x_i over the N
// agents present, and checks that every chunk describes the same round
// with x of one length.
func (m *Measurement) Mean() error {
	var first *firstPass
	for c := range m.c1 {
		p := &m.c1[c]
		if p.present == 0 {
			continue
		}
		if first == nil {
			first = p
			m.xbar = make([]float64, len(p.sum))
			m.m = Metrics{Round: p.round, ObjValue: math.NaN(), OptGap: math.NaN(), DistToOpt: math.NaN(), DualDrift: math.NaN()}
		}
		switch {
		case p.round != first.round:
			return fmt.Errorf("observe: agent %d reports round %d, agent %d round %d: reports must be of one round", p.first, p.round, first.first, first.round)
		case len(p.sum) != len(first.sum):
			return fmt.Errorf("observe: agent %d reports x of length %d, agent %d of length %d", p.first, len(p.sum), first.first, len(first.sum))
		}
		addTo(m.xbar, p.sum)
		m.n += p.present
		m.m.GradEvals += p.gradEvals
	}
	if first == nil {
		return errors.New("observe: every agent has departed (all reports have a nil x)")
	}
	if o := m.obj; o != nil && len(o.XStar) > 0 && len(o.XStar) != len(m.xbar) {
		return fmt.Errorf("observe: x* has length %d, reports have %d", len(o.XStar), len(m.xbar))
	}
	inv := 1 / float64(m.n)
	for k := range m.xbar {
		m.xbar[k] *= inv
	}
	return nil
}

// Spread computes chunk c's terms around xbar: sum_i ||x_i - xbar||^2,
// sum_i ||x_i||^2 and sum_l f_l(xbar) over the chunk's agents (and the
// problem's local objectives of the same indices), and the terms
// p_ij^2 ||x_i - x_j||^2 of the feasibility over the edges {i, j} with i
// in the chunk and both agents present.
func (m *Measurement) Spread(c int) {
	lo, hi := c*Chunk, (c+1)*Chunk
	p := &m.c2[c]
	for _, x := range m.xs[min(lo, len(m.xs)):min(hi, len(m.xs))] {
		if x != nil {
			p.spread, p.mass = spreadTerms(p.spread, p.mass, x, m.xbar)
		}
	}
	if m.obj != nil {
		for l := lo; l < min(hi, m.obj.L); l++ {
			p.obj += m.obj.Local(l).Value(m.xbar)
		}
	}
	r := m.edges[c]
	for _, e := range m.g.Edges[r[0]:r[1]] {
		xi, xj := m.xs[e.I], m.xs[e.J]
		if xi == nil || xj == nil {
			continue
		}
		p.feas += float64(e.P * e.P * sqDist(xi, xj))
	}
}

// Metrics combines the chunks into the measures (DualDrift NaN: Measure
// adds it from the reports' edge duals).
func (m *Measurement) Metrics() Metrics {
	out := m.m
	inv := 1 / float64(m.n)
	var spread, mass, obj, feas float64
	for c := range m.c2 {
		spread += m.c2[c].spread
		mass += m.c2[c].mass
		obj += m.c2[c].obj
		feas += m.c2[c].feas
	}
	out.ConsensusErr = spread * inv
	if mass != 0 {
		out.ConsensusErrRel = spread / mass
	}
	out.Feasibility = math.Sqrt(feas)
	if o := m.obj; o != nil {
		out.ObjValue = obj / float64(o.L)
		out.OptGap = out.ObjValue - o.FStar
		if len(o.XStar) > 0 {
			out.DistToOpt = math.Sqrt(sqDist(m.xbar, o.XStar))
		}
	}
	if len(m.decls) > 0 {
		acc := declInit(m.decls)
		for c := range m.c1 {
			declCombine(acc, m.decls, m.c1[c].decl)
		}
		out.Extra = declFinish(acc, m.decls, m.n)
	}
	return out
}
