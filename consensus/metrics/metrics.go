// Package metrics computes the global measures of a decentralized run from
// the agents' reports of one round: consensus error, objective value and
// optimality gap at the average iterate, the expected constraint violation
// (feasibility), and the algorithms' own declared measures reduced over
// the agents (ReduceMeasures).
//
// metrics is pure math: no I/O, no goroutines, no clocks. It may import
// consensus, objective and graph; it must not import node,
// coordinator, scenarios or cmd.
package metrics

import (
	"errors"
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Metrics are the global measures of a run after Round completed rounds.
// With x_i the primal block of agent i and xbar = (1/N) sum_i x_i:
type Metrics struct {
	// Round is the number of completed rounds the reports describe.
	Round int
	// ConsensusErr is (1/N) sum_i ||x_i - xbar||^2.
	ConsensusErr float64
	// ConsensusErrRel is ConsensusErr / ((1/N) sum_i ||x_i||^2), and 0
	// when every x_i is 0 (then ConsensusErr is 0 as well).
	ConsensusErrRel float64
	// ObjValue is f(xbar) = (1/N) sum_i f_i(xbar); NaN without a problem.
	ObjValue float64
	// OptGap is f(xbar) - f*; NaN without a problem or when f* is NaN.
	OptGap float64
	// DistToOpt is ||xbar - x*||; NaN when x* is unknown.
	DistToOpt float64
	// Feasibility is ||E[A] x|| = sqrt(sum_{edges {i,j}} p_ij^2 ||x_i - x_j||^2),
	// the violation of the expected consensus constraint.
	Feasibility float64
	// GradEvals is sum_i GradEvals_i, the first-order oracle calls in the
	// algorithm's own unit (see consensus.Report).
	GradEvals int64
	// Extra are the algorithm's own declared measures, reduced as declared
	// (ReduceMeasures), in declaration order.
	Extra []Named
	// DualDrift is sum_{edges {i,j}} ||y_ij^(i) - y_ij^(j)||^2, the
	// disagreement of the two replicas of each edge dual at the same
	// version (see Drift); NaN when the reports carry no edge duals.
	DualDrift float64
}

// Measure returns the metrics of the reports reps of one round, where
// reps[i] is agent i's report and g is the run's graph (len(reps) must be
// g.N). A report with a nil X stands for an agent that has departed: the
// measures then run over the remaining agents (N is their number, xbar
// their mean, Feasibility over the edges between them); at least one
// must remain. p may be nil, in which case ObjValue, OptGap and DistToOpt are NaN.
// Measure reads only p.Value, p.FStar and p.XStar, and g.N and g.Edges.
// Sums run in ascending agent (and edge) order, so the result is
// deterministic. A NaN in the reports propagates to the measures it enters.
func Measure(p *objective.Problem, g *graph.Graph, reps []consensus.Report) (Metrics, error) {
	if err := check(p, g, reps); err != nil {
		return Metrics{}, err
	}
	first := firstPresent(reps)
	n := 0
	for _, r := range reps {
		if r.X != nil {
			n++
		}
	}
	dim := len(reps[first].X)
	inv := 1 / float64(n)

	xbar := make([]float64, dim)
	for _, r := range reps {
		for k, v := range r.X {
			xbar[k] += v
		}
	}
	for k := range xbar {
		xbar[k] *= inv
	}

	m := Metrics{Round: reps[first].Round, ObjValue: math.NaN(), OptGap: math.NaN(), DistToOpt: math.NaN(), DualDrift: math.NaN()}
	var spread, mass float64
	for _, r := range reps {
		if r.X == nil {
			continue
		}
		for k, v := range r.X {
			d := v - xbar[k]
			spread += float64(d * d)
			mass += float64(v * v)
		}
		m.GradEvals += r.GradEvals
	}
	m.ConsensusErr = spread * inv
	if mass != 0 {
		m.ConsensusErrRel = spread / mass
	}

	var feas float64
	for _, e := range g.Edges {
		if reps[e.I].X == nil || reps[e.J].X == nil {
			continue
		}
		feas += float64(e.P * e.P * sqDist(reps[e.I].X, reps[e.J].X))
	}
	m.Feasibility = math.Sqrt(feas)
	if d, ok := DualDrift(reps); ok {
		m.DualDrift = d.Sum
	}

	if p != nil {
		m.ObjValue = p.Value(xbar)
		m.OptGap = m.ObjValue - p.FStar
		if len(p.XStar) > 0 {
			m.DistToOpt = math.Sqrt(sqDist(xbar, p.XStar))
		}
	}
	return m, nil
}

// check validates the inputs of Measure.
func check(p *objective.Problem, g *graph.Graph, reps []consensus.Report) error {
	if g == nil {
		return errors.New("metrics: nil graph")
	}
	if len(reps) == 0 {
		return errors.New("metrics: no reports")
	}
	if len(reps) != g.N {
		return fmt.Errorf("metrics: %d reports for a graph of %d agents", len(reps), g.N)
	}
	first := firstPresent(reps)
	if first < 0 {
		return errors.New("metrics: every agent has departed (all reports have a nil x)")
	}
	round, dim := reps[first].Round, len(reps[first].X)
	if dim == 0 {
		return fmt.Errorf("metrics: agent %d reports an empty x", first)
	}
	for i, r := range reps {
		switch {
		case r.ID != i:
			return fmt.Errorf("metrics: report %d comes from agent %d: reports must be indexed by agent id", i, r.ID)
		case r.X == nil:
			continue // departed
		}
		switch {
		case r.Round != round:
			return fmt.Errorf("metrics: agent %d reports round %d, agent %d round %d: reports must be of one round", i, r.Round, first, round)
		case len(r.X) != dim:
			return fmt.Errorf("metrics: agent %d reports x of length %d, agent %d of length %d", i, len(r.X), first, dim)
		}
	}
	for _, e := range g.Edges {
		if e.I < 0 || e.J < 0 || e.I >= len(reps) || e.J >= len(reps) {
			return fmt.Errorf("metrics: edge {%d,%d} is outside agents 0..%d", e.I, e.J, len(reps)-1)
		}
	}
	if p != nil && len(p.XStar) > 0 && len(p.XStar) != dim {
		return fmt.Errorf("metrics: x* has length %d, reports have %d", len(p.XStar), dim)
	}
	return nil
}

// firstPresent returns the index of the first report with an x, or -1.
func firstPresent(reps []consensus.Report) int {
	for i, r := range reps {
		if r.X != nil {
			return i
		}
	}
	return -1
}

// sqDist returns ||a - b||^2 for slices of equal length.
func sqDist(a, b []float64) float64 {
	var s float64
	for k := range a {
		d := a[k] - b[k]
		s += float64(d * d)
	}
	return s
}
