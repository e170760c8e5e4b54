package alm

import (
	"github.com/consim/consim/consensus"
)

// Report implements consensus.Agent, in the units of f: the agents run on
// sigma f (Config.Scale) with duals y, so the duals of f are y / sigma.
// KKTSq is the squared norm of agent i's block of
// dist(0, grad f(x) + E[A]^T y/sigma + N_X(x)), computed from the full
// local gradient
//
//	g_i = (1/N) grad f_i(x_i) + sum_j s_ij p_ij y_ij / sigma
//
// coordinate by coordinate: |g_k| strictly inside the box, max(0, -g_k) at
// the lower bound, max(0, g_k) at the upper bound (0 when Lo = Hi).
func (a *Agent) Report() consensus.Report {
	rep := consensus.Report{
		ID:        a.id,
		Round:     a.round,
		X:         a.X(),
		KKTSq:     a.kktSq(),
		DualSq:    a.dualSq() / (a.cfg.Scale * a.cfg.Scale),
		Resets:    a.resets,
		GradEvals: a.gradEvals,
	}
	if a.cfg.ReportDuals {
		rep.EdgeDuals = make([]consensus.EdgeDual, len(a.nb))
		for k := range a.nb {
			y := append([]float64(nil), a.y[k*a.n:(k+1)*a.n]...)
			for l := range y {
				y[l] /= a.cfg.Scale
			}
			rep.EdgeDuals[k] = consensus.EdgeDual{Peer: a.nb[k].j, Y: y}
		}
	}
	return rep
}

// kktSq returns the agent's block of the squared box-KKT residual.
func (a *Agent) kktSq() float64 {
	n, g := a.n, a.kg
	a.f.Grad(a.x, g)
	for l := range g {
		g[l] *= a.invN
	}
	for k := range a.nb {
		b := &a.nb[k]
		y := a.y[k*n : (k+1)*n]
		for l := range g {
			g[l] += b.s * b.p * y[l] / a.cfg.Scale
		}
	}
	return boxResidualSq(a.x, g, a.box.Lo, a.box.Hi)
}

// boxResidualSq returns ||dist(0, g + N_[lo,hi]^n(x))||^2 for x in the box.
func boxResidualSq(x, g []float64, lo, hi float64) float64 {
	var s float64
	for k, v := range g {
		var r float64
		switch atLo, atHi := x[k] <= lo, x[k] >= hi; {
		case atLo && atHi:
			r = 0
		case atLo:
			r = max(0, -v)
		case atHi:
			r = max(0, v)
		default:
			r = v
		}
		s += float64(r * r)
	}
	return s
}
