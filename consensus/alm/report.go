package alm

import (
	"github.com/consim/consim/consensus"
)

// Report implements consensus.Agent, in the units of f: the agents run on
// sigma f (Config.Scale) with duals y, so the duals of f are y / sigma.
// Its Measures are those of Measures: the squared norm of agent i's block of
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
		GradEvals: a.gradEvals,
		Measures:  []float64{a.kktSq(), a.dualSq() / (a.cfg.Scale * a.cfg.Scale), a.resets},
	}
	if a.cfg.ReportDuals {
		rep.EdgeDuals = make([]consensus.EdgeDual, len(a.nb))
		for k := range a.nb {
			y := append([]float64(nil), a.y[k*a.n:(k+1)*a.n]...)
			for l := range y {
				y[l] /= a.cfg.Scale
			}
			rep.EdgeDuals[k] = consensus.EdgeDual{Peer: a.nb[k].j, Y: y, Version: a.ver[k]}
		}
	}
	return rep
}

// Measures declares what the agents report in consensus.Report.Measures,
// in this order:
//
//	kkt       sqrt(sum_i ||dist(0, grad_i f(x) + (E[A]^T y)_i + N_X(x_i))||^2)
//	dual_norm ||y|| = sqrt(sum_i share_i), share_i = sum of ||y_ij||^2 over
//	          the edges agent i owns (i < j), so each edge dual counts once
//	resets    the dual safeguard resets: 1/N per global reset at every
//	          agent, 1 per edge reset at the edge's owner
func Measures() []consensus.Measure {
	return []consensus.Measure{
		{Name: consensus.MeasureKKT, Reduce: consensus.ReduceNorm, Doc: "norm of the box-KKT residual with the expected constraint matrix"},
		{Name: consensus.MeasureDualNorm, Reduce: consensus.ReduceNorm, Doc: "||y||, the duals of f"},
		{Name: consensus.MeasureResets, Reduce: consensus.ReduceSum, Doc: "dual safeguard resets"},
	}
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
