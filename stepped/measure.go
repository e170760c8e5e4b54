package stepped

import (
	"fmt"
	"math"
	"sort"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/metrics"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Measures describes what Measure computes besides the agents' reports.
type Measures struct {
	// Graph is the run's graph (for the feasibility); required.
	Graph *graph.Graph
	// Local returns agent i's objective f_i; nil leaves ObjValue, OptGap
	// and DistToOpt NaN.
	Local func(i int) objective.Local
	// FStar is the optimal value f* (NaN if unknown) and XStar the
	// minimiser x* (nil if unknown).
	FStar float64
	XStar []float64
	// Decls are the algorithm's declared measures, reduced as declared.
	Decls []consensus.Measure
}

// partial is one worker's share of the measures.
type partial struct {
	sumX      []float64
	spread    float64
	mass      float64
	feas      float64
	obj       float64
	gradEvals int64
	decl      []float64
	round     int
}

// Measure returns the metrics.Metrics of the agents' current state, as
// metrics.Measure and metrics.ReduceMeasures define them over every
// agent's Report, computed in two passes on the workers: each worker
// reduces its block of agents to partial sums, and the partial sums are
// combined in worker order. With x_i the agents' blocks and
// xbar = (1/N) sum_i x_i:
//
//	pass 1: sum_i x_i, sum_i GradEvals_i, the declared measures' terms;
//	pass 2: sum_i ||x_i - xbar||^2, sum_i ||x_i||^2, sum_i f_i(xbar) / N,
//	        sum over the edges {i, j} with i in the block of
//	        p_ij^2 ||x_i - x_j||^2.
//
// The values agree with metrics.Measure to rounding (the sums are taken in
// another order); DualDrift is NaN. The caller's work is O(W dim), not
// O(N). Every agent is taken as present (the engine has no departures).
func (e *Engine) Measure(m Measures) (metrics.Metrics, error) {
	if m.Graph == nil || m.Graph.N != len(e.agents) {
		return metrics.Metrics{}, fmt.Errorf("stepped: measure: the graph must have the engine's %d agents", len(e.agents))
	}
	n := len(e.agents)
	w := len(e.blocks)
	parts := make([]partial, w)
	xs := make([][]float64, n)
	err := e.parallel(func(k, lo, hi int) error {
		p := &parts[k]
		p.decl = make([]float64, len(m.Decls))
		for d, dc := range m.Decls {
			switch dc.Reduce {
			case consensus.ReduceMax:
				p.decl[d] = math.Inf(-1)
			case consensus.ReduceMin:
				p.decl[d] = math.Inf(1)
			}
		}
		for i := lo; i < hi; i++ {
			r := e.agents[i].Report()
			if len(r.X) == 0 {
				return fmt.Errorf("stepped: measure: agent %d reports an empty x", i)
			}
			if p.sumX == nil {
				p.sumX = make([]float64, len(r.X))
				p.round = r.Round
			}
			if len(r.X) != len(p.sumX) || r.Round != p.round {
				return fmt.Errorf("stepped: measure: agent %d reports round %d with x of length %d, agent %d round %d length %d",
					i, r.Round, len(r.X), lo, p.round, len(p.sumX))
			}
			if len(r.Measures) != len(m.Decls) {
				return fmt.Errorf("stepped: measure: agent %d reports %d measures, its algorithm declares %d", i, len(r.Measures), len(m.Decls))
			}
			xs[i] = r.X
			for l, v := range r.X {
				p.sumX[l] += v
			}
			p.gradEvals += r.GradEvals
			for d, dc := range m.Decls {
				v := r.Measures[d]
				switch dc.Reduce {
				case consensus.ReduceMax:
					p.decl[d] = math.Max(p.decl[d], v)
				case consensus.ReduceMin:
					p.decl[d] = math.Min(p.decl[d], v)
				default:
					p.decl[d] += v
				}
			}
		}
		return nil
	})
	if err != nil {
		return metrics.Metrics{}, err
	}
	dim := len(parts[0].sumX)
	out := metrics.Metrics{Round: parts[0].round, ObjValue: math.NaN(), OptGap: math.NaN(), DistToOpt: math.NaN(), DualDrift: math.NaN()}
	xbar := make([]float64, dim)
	for k := range parts {
		p := &parts[k]
		if len(p.sumX) != dim || p.round != out.Round {
			return metrics.Metrics{}, fmt.Errorf("stepped: measure: agent %d reports round %d with x of length %d, agent 0 round %d length %d",
				e.blocks[k][0], p.round, len(p.sumX), out.Round, dim)
		}
		for l, v := range p.sumX {
			xbar[l] += v
		}
		out.GradEvals += p.gradEvals
	}
	inv := 1 / float64(n)
	for l := range xbar {
		xbar[l] *= inv
	}
	edges := m.Graph.Edges
	err = e.parallel(func(k, lo, hi int) error {
		p := &parts[k]
		for i := lo; i < hi; i++ {
			for l, v := range xs[i] {
				d := v - xbar[l]
				p.spread += float64(d * d)
				p.mass += float64(v * v)
			}
			if m.Local != nil {
				p.obj += m.Local(i).Value(xbar)
			}
		}
		// Edges are sorted by I: the block's edges are a contiguous run.
		a := sort.Search(len(edges), func(q int) bool { return edges[q].I >= lo })
		for q := a; q < len(edges) && edges[q].I < hi; q++ {
			ed := edges[q]
			var s float64
			xi, xj := xs[ed.I], xs[ed.J]
			for l := range xi {
				d := xi[l] - xj[l]
				s += float64(d * d)
			}
			p.feas += float64(ed.P * ed.P * s)
		}
		return nil
	})
	if err != nil {
		return metrics.Metrics{}, err
	}
	var spread, mass, feas, obj float64
	decl := make([]float64, len(m.Decls))
	for d, dc := range m.Decls {
		switch dc.Reduce {
		case consensus.ReduceMax:
			decl[d] = math.Inf(-1)
		case consensus.ReduceMin:
			decl[d] = math.Inf(1)
		}
	}
	for k := range parts {
		p := &parts[k]
		spread += p.spread
		mass += p.mass
		feas += p.feas
		obj += p.obj
		for d, dc := range m.Decls {
			switch dc.Reduce {
			case consensus.ReduceMax:
				decl[d] = math.Max(decl[d], p.decl[d])
			case consensus.ReduceMin:
				decl[d] = math.Min(decl[d], p.decl[d])
			default:
				decl[d] += p.decl[d]
			}
		}
	}
	out.ConsensusErr = spread * inv
	if mass != 0 {
		out.ConsensusErrRel = spread / mass
	}
	out.Feasibility = math.Sqrt(feas)
	if m.Local != nil {
		out.ObjValue = obj * inv
		out.OptGap = out.ObjValue - m.FStar
		if len(m.XStar) == dim {
			var s float64
			for l, v := range xbar {
				d := v - m.XStar[l]
				s += float64(d * d)
			}
			out.DistToOpt = math.Sqrt(s)
		}
	}
	for d, dc := range m.Decls {
		v := decl[d]
		switch dc.Reduce {
		case consensus.ReduceMean:
			v /= float64(n)
		case consensus.ReduceNorm:
			v = math.Sqrt(v)
		}
		out.Extra = append(out.Extra, metrics.Named{Name: dc.Name, Value: v})
	}
	return out, nil
}
