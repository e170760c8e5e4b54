package zosplm

import (
	"fmt"
	"math"

	"github.com/consim/consim/objective"
)

// ALMParams are the parameters of the ZO-ALM baseline.
type ALMParams struct {
	// Step is the base primal step eta_0; outer iteration k uses
	// eta_k = Step / (1 + rho_k G2 Step), so the step follows the
	// penalty's curvature rho_k ||grad h||^2 <= rho_k G2.
	Step float64
	// G2 is the bound of ||grad h||^2 used by the step rule.
	G2 float64
	// Rho0, RhoGrowth and RhoMax set the penalty: rho_0 = Rho0,
	// rho_{k+1} = min(RhoGrowth rho_k, RhoMax).
	Rho0, RhoGrowth, RhoMax float64
	// Gamma is the weight of the subproblem's proximal term
	// (gamma/2)||x - xbar_k||^2 (f is weakly convex; the term makes the
	// subproblem strongly convex, as in Li et al.'s nonconvex case).
	Gamma float64
	// Inner is the number of inner iterations per outer iteration.
	Inner int
	// Estimator is the gradient estimator (the same as ZO-SPLM's).
	Estimator Estimator
}

// DefaultALMParams is the documented default rule for n variables, with
// L = LfRule(n) = 4n: eta_0 = 0.9/L, G2 = L, rho_0 = 1/L, growth 2 up to
// 10, gamma = 0.05 L, 5 inner iterations, DefaultEstimator. eta_0 stays
// below 1/(L_f + gamma), the subproblem's smoothness at rho = 0; the other
// values were chosen by a sweep at n = 50 with the same budget as
// ZO-SPLM's (fewest iterations to eps = 1).
func DefaultALMParams(n int) ALMParams {
	L := LfRule(n)
	return ALMParams{Step: 0.9 / L, G2: L, Rho0: 1 / L, RhoGrowth: 2, RhoMax: 10, Gamma: 0.05 * L, Inner: 5, Estimator: DefaultEstimator()}
}

// Validate checks the parameters.
func (p ALMParams) Validate() error {
	for _, v := range []struct {
		name string
		v    float64
	}{{"step", p.Step}, {"rho0", p.Rho0}, {"rho max", p.RhoMax}} {
		if !(v.v > 0) || math.IsInf(v.v, 0) {
			return fmt.Errorf("zosplm: alm: %s = %g, want 0 < %s < inf", v.name, v.v, v.name)
		}
	}
	switch {
	case !(p.G2 >= 0) || math.IsInf(p.G2, 0):
		return fmt.Errorf("zosplm: alm: G2 = %g, want >= 0", p.G2)
	case !(p.Gamma >= 0) || math.IsInf(p.Gamma, 0):
		return fmt.Errorf("zosplm: alm: gamma = %g, want >= 0", p.Gamma)
	case !(p.RhoGrowth >= 1) || math.IsInf(p.RhoGrowth, 0):
		return fmt.Errorf("zosplm: alm: rho growth = %g, want >= 1", p.RhoGrowth)
	case p.RhoMax < p.Rho0:
		return fmt.Errorf("zosplm: alm: rho max = %g < rho0 = %g", p.RhoMax, p.Rho0)
	case p.Inner < 1:
		return fmt.Errorf("zosplm: alm: inner = %d, want >= 1", p.Inner)
	}
	return p.Estimator.Validate()
}

// ALM is the ZO-ALM baseline: a zeroth-order inexact augmented Lagrangian
// method after Li, Chen, Liu, Lu and Xu (AAAI 2022), whose equality
// constraints are relaxed to inequalities with the classical augmented
// term. Outer iteration k approximately solves
//
//	min_{x in X} Psi_k(x) = f(x) + sum_j psi(h_j(x); lambda_kj, rho_k) + (gamma/2)||x - xbar_k||^2,
//	psi(h; lambda, rho) = (max(0, lambda + rho h)^2 - lambda^2) / (2 rho),
//
// by Inner projected steps x <- proj_X(x - eta_k G) with G the estimate
// of eq. (3) of f + sum_j psi_j (OpComposite) plus the estimated (or
// exact) gradient of the proximal term, then sets
//
//	lambda_{k+1} = max(0, lambda_k + rho_k h(x)),  rho_{k+1} = min(sigma rho_k, rho_max),  xbar_{k+1} = x.
//
// What we had to assume: Li et al. solve the subproblem with an
// accelerated proximal coordinate method on a coordinate-wise estimator
// and a stopping rule on its accuracy; we use the same mini-batch sphere
// estimator as ZO-SPLM and a fixed inner count, so that one iteration
// costs k + 1 calls for every method, and count every inner step as an
// iteration. The step rule and the values of DefaultALMParams are ours.
type ALM struct {
	*core
	prm     ALMParams
	x, xbar []float64
	lam     []float64
	rho     float64
	inner   int
	w, yrho []float64
}

var _ Method = (*ALM)(nil)

// NewALM returns the ZO-ALM agent at x0 (in X) with lambda = 0.
func NewALM(id int, box objective.Box, m int, x0 []float64, prm ALMParams, seed uint64) (*ALM, error) {
	if err := prm.Validate(); err != nil {
		return nil, err
	}
	if err := checkX0(x0, box); err != nil {
		return nil, err
	}
	c, err := newCore(id, len(x0), m, box, prm.Estimator, seed)
	if err != nil {
		return nil, err
	}
	a := &ALM{core: c, prm: prm, x: append([]float64(nil), x0...), xbar: append([]float64(nil), x0...),
		lam: make([]float64, m), rho: prm.Rho0, w: make([]float64, len(x0)), yrho: make([]float64, 2*m)}
	c.meth = a
	c.dualSq = func() float64 { return sumSq(a.lam) }
	return a, nil
}

// Name implements Method.
func (a *ALM) Name() string { return "ZO-ALM" }

// X implements Method.
func (a *ALM) X() []float64 { return a.x }

// MeasureDual implements Method: the multiplier estimate
// max(0, lambda + rho h(x)) of the current subproblem, the one whose
// stationarity the inner steps drive to zero.
func (a *ALM) MeasureDual(hx, y []float64) {
	for j := range y {
		y[j] = math.Max(0, a.lam[j]+a.rho*hx[j])
	}
}

func (a *ALM) point() []float64 { return a.x }

// values closes an outer iteration when its inner steps are done: the
// multiplier update needs h at the last inner iterate, which is x_t.
func (a *ALM) values(_ int, v []float64) error {
	if a.inner < a.prm.Inner {
		return nil
	}
	for j := range a.lam {
		a.lam[j] = math.Max(0, a.lam[j]+a.rho*v[1+j])
	}
	a.rho = math.Min(a.rho*a.prm.RhoGrowth, a.prm.RhoMax)
	copy(a.xbar, a.x)
	a.inner = 0
	return nil
}

func (a *ALM) spec() (int, []float64, []float64) {
	copy(a.yrho, a.lam)
	for j := range a.lam {
		a.yrho[a.m+j] = a.rho
	}
	if a.prm.Estimator.ExactProx || a.prm.Gamma == 0 {
		return OpComposite, a.yrho, nil
	}
	for i := range a.w {
		a.w[i] = a.x[i] - a.xbar[i]
	}
	return OpComposite, a.yrho, a.w
}

func (a *ALM) step(_ int, g []float64) error {
	n := a.n
	eta := a.prm.Step / (1 + a.rho*a.prm.G2*a.prm.Step)
	withW := !(a.prm.Estimator.ExactProx || a.prm.Gamma == 0)
	for i := range n {
		gi := g[i]
		if withW {
			gi += a.prm.Gamma * g[n+i]
		} else {
			gi += a.prm.Gamma * (a.x[i] - a.xbar[i])
		}
		a.x[i] -= eta * gi
	}
	a.project(a.x)
	a.inner++
	return nil
}
