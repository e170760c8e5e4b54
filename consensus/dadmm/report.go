package dadmm

import "github.com/consim/consim/consensus"

// Report implements consensus.Agent: X = x_i, KKTSq = ||(1/N) grad f_i(x_i)
// + a_i||^2 with the full local gradient, DualSq = ||a_i||^2, GradEvals the
// stochastic gradient samples drawn so far. Resets is always 0.
func (a *Agent) Report() consensus.Report {
	return consensus.Report{
		ID:        a.id,
		Round:     a.round,
		X:         a.X(),
		KKTSq:     a.kktSq(),
		DualSq:    sq(a.a),
		GradEvals: a.gradEvals,
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
