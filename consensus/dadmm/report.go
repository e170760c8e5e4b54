package dadmm

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/edgeadmm"
)

// Report implements consensus.Agent: X = x_i, GradEvals the stochastic
// gradient samples drawn so far, and the Measures ||(1/N) grad f_i(x_i) +
// a_i||^2 (with the full local gradient) and ||a_i||^2.
func (a *Agent) Report() consensus.Report {
	return consensus.Report{
		ID:        a.id,
		Round:     a.round,
		X:         a.X(),
		GradEvals: a.l.GradEvals,
		Measures:  []float64{a.l.KKTSq(a.x, a.a, a.kg), edgeadmm.Sq(a.a)},
	}
}

// Measures declares what the agents report in consensus.Report.Measures:
// kkt = sqrt(sum_i ||(1/N) grad f_i(x_i) + a_i||^2) and dual_norm =
// sqrt(sum_i ||a_i||^2).
func Measures() []consensus.Measure {
	return []consensus.Measure{
		{Name: consensus.MeasureKKT, Reduce: consensus.ReduceNorm, Doc: "norm of the KKT residual of the consensus problem"},
		{Name: consensus.MeasureDualNorm, Reduce: consensus.ReduceNorm, Doc: "norm of the agents' duals a_i"},
	}
}
