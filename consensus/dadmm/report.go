package dadmm

import "github.com/consim/consim/consensus"

// Report implements consensus.Agent: X = x_i, GradEvals the stochastic
// gradient samples drawn so far, and the Measures ||(1/N) grad f_i(x_i) +
// a_i||^2 (with the full local gradient) and ||a_i||^2.
func (a *Agent) Report() consensus.Report {
	return consensus.Report{
		ID:        a.id,
		Round:     a.round,
		X:         a.X(),
		GradEvals: a.gradEvals,
		Measures:  []float64{a.kktSq(), sq(a.a)},
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

// kktSq returns ||(1/N) grad f_i(x_i) + a_i||^2.
func (a *Agent) kktSq() float64 {
	g := a.kg
	a.f.Grad(a.x, g)
	var s float64
	for l := range g {
		r := float64(g[l]*a.invN) + a.a[l]
		s += float64(r * r)
	}
	return s
}

// sq returns ||v||^2.
func sq(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += float64(x * x)
	}
	return s
}
