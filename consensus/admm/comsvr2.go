package admm

import (
	"math/rand/v2"

	"github.com/consim/consim/problems/portfolio"
)

// ComSVRADMM2 is com-SVR-ADMM for a convex, L_F-smooth F that need not be
// strongly convex: Algorithm 2 of Yu and Huang, with the splitting of the
// paper's experiments, A = I, B = -I (x = w, R carried by w). Outer
// iteration s = 1, 2, ... warm-starts from the last inner iterate of s - 1:
//
//	x~ = x^0 = x^^{s-1}, w^0 = w^^{s-1}, lambda^0 = lambda^^{s-1}, G_0 = G^^{s-1}
//	g(x~), grad F(x~)                                            (2m + n queries)
//	for k = 0..K-1:
//	  w^{k+1} = argmin_w R(w) - <lambda^k, w> + (rho/2)||x^k - w||^2
//	          = prox_{R/rho}(x^k + lambda^k/rho)
//	  g(x^k)  = (1/m) sum_j g_j(x^k), exact                          (m queries)
//	  v       = (dg_j(x^k))^T grad f_i(g(x^k)) - (dg_j(x~))^T grad f_i(g(x~))
//	            + grad F(x~), i and j uniform (eq. 10)               (4 queries)
//	  x^{k+1} = argmin_x <v, x> + <lambda^k, x> + (rho/2)||x - w^{k+1}||^2
//	                     + (1/(2 eta_s)) ||x - x^k||^2_{G_k}
//	          = (c_k x^k - v - lambda^k + rho w^{k+1}) / (rho + c_k),  c_k = gamma_k / eta_s
//	  lambda^{k+1} = lambda^k + rho (x^{k+1} - w^{k+1})
//	x~^s = (1/K) sum_{k=1}^K x^k,  w~^s = (1/K) sum_{k=1}^K w^k,
//	x^^s = x^K, w^^s = w^K, lambda^^s = lambda^K, G^^s = G_K.
//
// The output after S outer iterations is the ergodic mean
// x-bar = (1/S) sum_{s=1}^S x~^s (and w-bar likewise), the point Theorem 2
// bounds: E[G(u-bar) + Lambda ||x-bar - w-bar||] = O(log(S+1)/S).
//
// Step schedule (eq. 11), with L_F = 1/prm.Eta: eta_s = 1/((s+1) L_F) and
// G_k = gamma_k I, gamma_k nonincreasing in k from gamma_0 = 1/s to
// gamma_{K-1} = gamma_K = 1/(s+1) (proxWeight). The effective step
// eta_{s,k} = eta_s/gamma_k = 1/c_k rises within the outer iteration from
// s/((s+1) L_F) to 1/L_F = prm.Eta (eq. 13), so the last steps of every
// outer iteration take Algorithm 1's step eta.
//
// Initialization: x^^0 = w^^0 = x0, G^^0 = I, and
// lambda^^0 = -(A^T)^+ grad F(x^^0) = -grad F(x0), Algorithm 1's choice; the
// gradient is the one step 5 of the first outer iteration evaluates at
// x~ = x^^0, so it costs no extra query.
//
// One outer iteration costs exactly 2m + n + K(m + 4) oracle calls (steps
// 4-5, then steps 8-9 in each inner iteration; step 8 is counted at k = 0
// too, where x^0 = x~, as the paper counts it). prm.Batch is not used:
// the inner function is exact.
type ComSVRADMM2 struct {
	c   *OracleCounter
	reg Regularizer
	prm Params
	s   int // completed outer iterations

	x, w, lam  []float64 // x^k, w^k, lambda^k; between epochs x^^s, w^^s, lambda^^s
	xbar, wbar []float64 // x-bar, w-bar
	est        *Estimator

	z, xsum, wsum []float64
}

// NewComSVRADMM2 starts Algorithm 2 at x^^0 = w^^0 = x0 with
// L_F = 1/prm.Eta. prm.Batch is ignored.
func NewComSVRADMM2(p portfolio.Composition, reg Regularizer, x0 []float64, prm Params) (*ComSVRADMM2, error) {
	if err := prm.validate(true, false); err != nil {
		return nil, err
	}
	c, err := checkStart(p, reg, x0)
	if err != nil {
		return nil, err
	}
	d := p.Dims()
	vec := func() []float64 { return make([]float64, d.D) }
	a := &ComSVRADMM2{
		c: c, reg: reg, prm: prm,
		x: vec(), w: vec(), lam: vec(), xbar: vec(), wbar: vec(),
		est: NewEstimator(c),
		z:   vec(), xsum: vec(), wsum: vec(),
	}
	a.est.ExactInner = true
	copy(a.x, x0)
	copy(a.w, x0)
	copy(a.xbar, x0)
	copy(a.wbar, x0)
	return a, nil
}

// proxWeight returns gamma_k, the scalar of the proximal metric G_k = gamma_k I
// in inner iteration k (0 <= k <= K) of outer iteration s >= 1 (eq. 11):
//
//	gamma_k = 1/s - (k/(K-1)) (1/s - 1/(s+1))   for k <= K - 1,
//	gamma_K = 1/(s+1).
//
// The paper fixes only gamma_0 = 1/s (the warm start G_0 = G^^{s-1}),
// gamma_{K-1} = gamma_K = 1/(s+1) and monotonicity; the linear fall in
// between is this package's choice. With K = 1 the two ends of eq. 11
// collide, and gamma_0 = 1/s is kept: the proof of Theorem 2 uses
// G_0 = G^^{s-1}, G_K = 1/(s+1) I and G_k nonincreasing, which still hold.
func proxWeight(s, k, K int) float64 {
	lo, hi := 1/float64(s+1), 1/float64(s)
	switch {
	case k >= K:
		return lo
	case K == 1:
		return hi
	}
	return hi - float64(float64(k)/float64(K-1)*(hi-lo))
}

// Name returns "com-SVR-ADMM-2".
func (a *ComSVRADMM2) Name() string { return "com-SVR-ADMM-2" }

// Oracle returns the query counter.
func (a *ComSVRADMM2) Oracle() *OracleCounter { return a.c }

// Point returns the output x-bar = (1/S) sum_s x~^s after S outer
// iterations (x0 before the first).
func (a *ComSVRADMM2) Point() []float64 { return a.xbar }

// W returns w-bar = (1/S) sum_s w~^s.
func (a *ComSVRADMM2) W() []float64 { return a.wbar }

// Last returns x^^S = x^K, the last inner iterate, where the next outer
// iteration starts.
func (a *ComSVRADMM2) Last() []float64 { return a.x }

// Epoch runs outer iteration s = (completed outer iterations) + 1.
func (a *ComSVRADMM2) Epoch(rng *rand.Rand) {
	a.s++
	s, rho, K := a.s, a.prm.Rho, a.prm.K
	etaS := a.prm.Eta / float64(s+1) // eta_s = 1/((s+1) L_F), L_F = 1/Eta
	a.est.Snapshot(a.x)              // x~ = x^^{s-1}
	if s == 1 {
		for k, g := range a.est.Grad {
			a.lam[k] = -g // lambda^^0 = -grad F(x^^0)
		}
	}
	clear(a.xsum)
	clear(a.wsum)
	for k := range K {
		for i := range a.z {
			a.z[i] = a.x[i] + a.lam[i]/rho
		}
		a.reg.Prox(1/rho, a.z, a.w)
		v := a.est.Estimate(rng, 0, a.x)
		c := proxWeight(s, k, K) / etaS
		den := rho + c
		for i := range a.x {
			a.x[i] = (float64(c*a.x[i]) - v[i] - a.lam[i] + float64(rho*a.w[i])) / den
			a.lam[i] += float64(rho * (a.x[i] - a.w[i]))
		}
		axpy(a.xsum, 1, a.x)
		axpy(a.wsum, 1, a.w)
	}
	// x-bar_s = x-bar_{s-1} + (x~^s - x-bar_{s-1})/s with x~^s = xsum/K.
	inv, frac := 1/float64(K), 1/float64(s)
	for i := range a.xbar {
		a.xbar[i] += float64(frac * (float64(inv*a.xsum[i]) - a.xbar[i]))
		a.wbar[i] += float64(frac * (float64(inv*a.wsum[i]) - a.wbar[i]))
	}
}
