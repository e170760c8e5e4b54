package penalty

import (
	"fmt"
	"math"

	"github.com/consim/consim/problems/constrlogistic"
)

// EAGConfig configures a run of the extra anchored gradient method.
type EAGConfig struct {
	// Iters is the number of EAG iterations.
	Iters int
	// X0 is the primal start (copied); the multipliers start at 0.
	X0 []float64
	// R is a Lipschitz constant of the KKT operator G (see KKTLipschitz).
	R float64
	// Alpha0 is alpha_0; 0 means 0.618/R, the choice Yoon and Ryu
	// recommend for EAG-V.
	Alpha0 float64
	// Shards as in Alg2Config (the full-gradient summation order).
	Shards []int
	// Every records every Every-th iteration (and the start and the last).
	Every int
	// Objective evaluates F(x) for the trace; nil means fbar + psi.
	Objective func(x []float64) float64
}

// KKTLipschitz returns lf + ||A||_2, a Lipschitz constant of the KKT
// operator G(x, lambda) = (grad fbar(x) + A^T lambda, -(A x - b)) of affine
// constraints when grad fbar is lf-Lipschitz: the Jacobian of G is
// [[H, A^T], [-A, 0]] with ||H|| <= lf.
func KKTLipschitz(lf float64, c *constrlogistic.Linear) float64 { return lf + c.SpectralNorm() }

// EAGStep returns alpha_{k+1} of EAG-V (Yoon and Ryu 2021, Theorem 2):
//
//	alpha_{k+1} = alpha_k/(1 - alpha_k^2 R^2) (1 - (k+2)^2/((k+1)(k+3)) alpha_k^2 R^2).
func EAGStep(alpha float64, k int, r float64) float64 {
	a2 := alpha * alpha * r * r
	fk := float64(k)
	return alpha / (1 - a2) * (1 - (fk+2)*(fk+2)/((fk+1)*(fk+3))*a2)
}

// RunEAG runs EAG-V (Yoon and Ryu 2021, "Accelerated algorithms for smooth
// convex-concave minimax problems with O(1/k^2) rate on squared gradient
// norm", with the parameters of its Theorem 2: beta_k = 1/(k+2), alpha_0 =
// cfg.Alpha0 and alpha_{k+1} from EAGStep) on the saddle problem of the
// Lagrangian
//
//	min_x max_{lambda >= 0} fbar(x) + psi(x) + lambda^T c(x),
//
// whose KKT operator is G(x, lambda) = (grad fbar(x) + grad c(x) lambda,
// -c(x)). With z = (x, lambda) and anchor z_0, iteration k is
//
//	w         = z_k + beta_k (z_0 - z_k)
//	z_{k+1/2} = J_k(w - alpha_k G(z_k))
//	z_{k+1}   = J_k(w - alpha_k G(z_{k+1/2}))
//
// where J_k = (prox_{alpha_k psi}, proj_{lambda >= 0}) is the resolvent of
// the nonsmooth part (psi and the sign constraint on lambda); without it
// this is EAG exactly. Each iteration evaluates G twice, i.e. 2s component
// gradients. The trace records the primal block x_k.
func RunEAG(f constrlogistic.FiniteSum, c constrlogistic.Constraints, psi constrlogistic.Regularizer, cfg EAGConfig) (Trace, []float64, error) {
	n, m, s := f.Dim(), c.Len(), f.Len()
	if len(cfg.X0) != n {
		return Trace{}, nil, fmt.Errorf("penalty: EAG: x0 has length %d, want %d", len(cfg.X0), n)
	}
	if !(cfg.R > 0) || cfg.Iters < 1 {
		return Trace{}, nil, fmt.Errorf("penalty: EAG: need R > 0 and Iters >= 1 (R = %g, Iters = %d)", cfg.R, cfg.Iters)
	}
	if err := validShards(cfg.Shards, s); err != nil {
		return Trace{}, nil, err
	}
	alpha := cfg.Alpha0
	if alpha == 0 {
		alpha = 0.618 / cfg.R
	}
	if !(alpha > 0 && alpha*cfg.R < 1) {
		return Trace{}, nil, fmt.Errorf("penalty: EAG: alpha_0 R = %g, want in (0, 1)", alpha*cfg.R)
	}
	obj := cfg.Objective
	if obj == nil {
		obj = objectiveFunc(f.Value, psi)
	}
	x0 := append([]float64(nil), cfg.X0...)
	l0 := make([]float64, m)
	x := append([]float64(nil), x0...)
	l := make([]float64, m)
	xh, lh := make([]float64, n), make([]float64, m)
	wx, wl := make([]float64, n), make([]float64, m)
	gx, gl := make([]float64, n), make([]float64, m)
	part := make([]float64, n)
	cv := make([]float64, m)
	invS := 1 / float64(s)
	// oper writes G(x, lambda) into (gx, gl).
	oper := func(x, l []float64) {
		constrlogistic.SumGrad(f, cfg.Shards, x, gx, part)
		for j := range gx {
			gx[j] *= invS
		}
		c.AddJacT(x, l, 1, gx)
		c.Eval(x, gl)
		for i := range gl {
			gl[i] = -gl[i]
		}
	}
	// resolvent writes J(w - alpha G) into (ox, ol).
	resolvent := func(ox, ol []float64, alpha float64) {
		for j := range ox {
			ox[j] = wx[j] - alpha*gx[j]
		}
		psi.Prox(ox, alpha, ox)
		for i := range ol {
			ol[i] = math.Max(wl[i]-alpha*gl[i], 0)
		}
	}
	rec := recorder{every: cfg.Every, last: cfg.Iters}
	tr := Trace{Method: "EAG-V (Yoon-Ryu Thm 2)"}
	tr.Records = append(tr.Records, Record{Objective: obj(x), Violation: constrlogistic.Violation(c, x, cv)})
	var evals int64
	for k := 0; k < cfg.Iters; k++ {
		beta := 1 / float64(k+2)
		for j := range wx {
			wx[j] = x[j] + beta*(x0[j]-x[j])
		}
		for i := range wl {
			wl[i] = l[i] + beta*(l0[i]-l[i])
		}
		oper(x, l)
		resolvent(xh, lh, alpha)
		oper(xh, lh)
		resolvent(x, l, alpha)
		evals += 2 * int64(s)
		alpha = EAGStep(alpha, k, cfg.R)
		if rec.want(k + 1) {
			tr.Records = append(tr.Records, Record{Iter: k + 1, GradEvals: evals,
				Objective: obj(x), Violation: constrlogistic.Violation(c, x, cv)})
		}
	}
	return tr, x, nil
}
