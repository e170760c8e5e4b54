package admm

import (
	"math/rand/v2"

	"github.com/consim/consim/problems/portfolio"
)

// ComSVRADMM is com-SVR-ADMM, Algorithm 1 of Yu and Huang, for
//
//	min_{x,w} F(x) + R(w)  s.t.  A x + B w = 0,  with A = I, B = -I,
//
// the splitting of the paper's experiments (x = w, R carried by w). Outer
// iteration s:
//
//	x~ = x^0 = x~^{s-1}, w^0 = w~^{s-1}, lambda^0 = lambda~^{s-1} = -grad F(x~)
//	g(x~), grad F(x~)                                            (2m + n queries)
//	for k = 0..K-1:
//	  w^{k+1} = argmin_w R(w) - <lambda^k, w> + (rho/2)||x^k - w||^2
//	          = prox_{R/rho}(x^k + lambda^k/rho)
//	  g_hat   = eq. (9), mini-batch of N with replacement          (2N queries)
//	  v       = eq. (8), i and j uniform                            (4 queries)
//	  x^{k+1} = (x^k/eta - v - lambda^k + rho w^{k+1}) / (rho + 1/eta)
//	  lambda^{k+1} = lambda^k + rho (x^{k+1} - w^{k+1})
//	x~^s = (1/K) sum_{k=1}^K x^k,  w~^s = (1/K) sum_{k=1}^K w^k,
//	lambda~^s = -(A^T)^+ grad F(x~^s) = -grad F(x~^s).
//
// One outer iteration costs exactly 2m + n + K(2N + 4) oracle calls. The
// gradient grad F(x~^s) that defines lambda~^s is the one the next outer
// iteration evaluates in its step 5, so it is queried (and counted) once.
type ComSVRADMM struct {
	c   *OracleCounter
	reg Regularizer
	prm Params

	xt, wt []float64 // x~, w~
	est    *Estimator

	x, w, lam, z, xsum, wsum []float64
}

// NewComSVRADMM starts com-SVR-ADMM at x~^0 = w~^0 = x0.
func NewComSVRADMM(p portfolio.Composition, reg Regularizer, x0 []float64, prm Params) (*ComSVRADMM, error) {
	if err := prm.validate(true, true); err != nil {
		return nil, err
	}
	c, err := checkStart(p, reg, x0)
	if err != nil {
		return nil, err
	}
	d := p.Dims()
	vec := func() []float64 { return make([]float64, d.D) }
	a := &ComSVRADMM{
		c: c, reg: reg, prm: prm,
		xt: vec(), wt: vec(), est: NewEstimator(c),
		x: vec(), w: vec(), lam: vec(), z: vec(), xsum: vec(), wsum: vec(),
	}
	copy(a.xt, x0)
	copy(a.wt, x0)
	return a, nil
}

// Name returns "com-SVR-ADMM".
func (a *ComSVRADMM) Name() string { return "com-SVR-ADMM" }

// Oracle returns the query counter.
func (a *ComSVRADMM) Oracle() *OracleCounter { return a.c }

// Point returns x~, the average of the last outer iteration's inner iterates.
func (a *ComSVRADMM) Point() []float64 { return a.xt }

// W returns w~, the average of the last outer iteration's w^k.
func (a *ComSVRADMM) W() []float64 { return a.wt }

// Epoch runs one outer iteration of Algorithm 1.
func (a *ComSVRADMM) Epoch(rng *rand.Rand) {
	eta, rho := a.prm.Eta, a.prm.Rho
	a.est.Snapshot(a.xt)
	copy(a.x, a.xt)
	copy(a.w, a.wt)
	for k, g := range a.est.Grad {
		a.lam[k] = -g // lambda^0 = lambda~^{s-1} = -grad F(x~)
	}
	clear(a.xsum)
	clear(a.wsum)
	den := rho + 1/eta
	for range a.prm.K {
		for k := range a.z {
			a.z[k] = a.x[k] + a.lam[k]/rho
		}
		a.reg.Prox(1/rho, a.z, a.w)
		v := a.est.Estimate(rng, a.prm.Batch, a.x)
		for k := range a.x {
			a.x[k] = (a.x[k]/eta - v[k] - a.lam[k] + float64(rho*a.w[k])) / den
			a.lam[k] += float64(rho * (a.x[k] - a.w[k]))
		}
		axpy(a.xsum, 1, a.x)
		axpy(a.wsum, 1, a.w)
	}
	inv := 1 / float64(a.prm.K)
	for k := range a.xt {
		a.xt[k] = inv * a.xsum[k]
		a.wt[k] = inv * a.wsum[k]
	}
}
