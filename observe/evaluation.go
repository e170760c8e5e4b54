package observe

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
)

// Evaluated returns the Metrics of a run measured by its own
// registry.Evaluator: e, its evaluation of the reports reps of one round,
// in the metric columns of the same names, GradEvals summed over the
// agents, DualDrift NaN, the consensus error NaN when a report holds a
// non-finite value (so that the round counts as divergence whatever the
// evaluator computed, see Diverged), and the values of the evaluator's
// columns cols in Extra, in order.
func Evaluated(e registry.Evaluation, cols []consensus.Measure, reps []consensus.Report) (Metrics, error) {
	if len(e.Values) != len(cols) {
		return Metrics{}, fmt.Errorf("observe: evaluation has %d values, its columns %d", len(e.Values), len(cols))
	}
	m := Metrics{ConsensusErr: e.ConsensusErr, ObjValue: e.ObjValue, OptGap: e.OptGap,
		DistToOpt: e.DistToOpt, Feasibility: e.Feasibility, DualDrift: math.NaN()}
	if !Finite(reps) {
		m.ConsensusErr = math.NaN()
	}
	for _, r := range reps {
		if r.X != nil {
			m.Round = r.Round
		}
		m.GradEvals += r.GradEvals
	}
	for k, c := range cols {
		m.Extra = append(m.Extra, Named{Name: c.Name, Value: e.Values[k]})
	}
	return m, nil
}
