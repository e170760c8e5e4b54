package observe

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
)

// DefaultDivergeBound is far above any measure of a run that is
// converging on a problem of sane scale, and far below overflow.
const DefaultDivergeBound = 1e50

// Diverged returns an error naming the measure by which m shows a
// diverged run, or nil: a NaN consensus error or feasibility (the iterates
// hold NaN or Inf), an infinite objective, or one of the three beyond
// bound in absolute value (bound 0 means DefaultDivergeBound). An unknown
// objective (NaN without a problem) is not divergence. Every engine ends
// its run as diverged by this test.
func Diverged(m Metrics, bound float64) error {
	if bound == 0 {
		bound = DefaultDivergeBound
	}
	for _, q := range []struct {
		name string
		v    float64
		nan  bool // NaN means divergence
	}{
		{"consensus_err", m.ConsensusErr, true},
		{"feasibility", m.Feasibility, true},
		{"obj_value", m.ObjValue, false},
	} {
		switch {
		case math.IsNaN(q.v) && q.nan:
			return fmt.Errorf("%s is NaN", q.name)
		case math.IsInf(q.v, 0) || math.Abs(q.v) > bound:
			return fmt.Errorf("%s = %g is beyond %g", q.name, q.v, bound)
		}
	}
	return nil
}

// Finite reports whether every value of every report's X is finite: the
// divergence test of a run measured by a registry.Evaluator (Evaluated).
func Finite(reps []consensus.Report) bool {
	for _, r := range reps {
		for _, v := range r.X {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}
