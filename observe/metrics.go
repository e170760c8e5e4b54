package observe

import (
	"errors"
	"fmt"

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
// must remain. p may be nil, in which case ObjValue, OptGap and DistToOpt
// are NaN. Measure reads only p.Locals, p.FStar and p.XStar, and g.N and
// g.Edges. Sums run in ascending agent (and edge) order, in chunks (see
// Chunk), so the result is deterministic and the same as a Measurement's
// computed by several goroutines. A NaN in the reports propagates to the
// measures it enters.
func Measure(p *objective.Problem, g *graph.Graph, reps []consensus.Report) (Metrics, error) {
	if g != nil && len(reps) != g.N {
		if len(reps) == 0 {
			return Metrics{}, errors.New("observe: no reports")
		}
		return Metrics{}, fmt.Errorf("observe: %d reports for a graph of %d agents", len(reps), g.N)
	}
	m, err := NewMeasurement(g, ProblemObjective(p), nil)
	if err != nil {
		return Metrics{}, err
	}
	if err := measureAll(m, reps); err != nil {
		return Metrics{}, err
	}
	out := m.Metrics()
	if d, ok := DualDrift(reps); ok {
		out.DualDrift = d.Sum
	}
	return out, nil
}

// measureAll runs the steps of m over reps on the calling goroutine.
func measureAll(m *Measurement, reps []consensus.Report) error {
	for i, r := range reps {
		if err := m.Add(i, r); err != nil {
			return err
		}
	}
	if err := m.Mean(); err != nil {
		return err
	}
	for c := range m.Chunks() {
		m.Spread(c)
	}
	return nil
}
