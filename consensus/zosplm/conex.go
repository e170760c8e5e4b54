package zosplm

import (
	"fmt"
	"math"

	"github.com/consim/consim/objective"
)

// ConExParams are the parameters of the ZO-ConEX baseline.
type ConExParams struct {
	// C is the primal step 1/eta.
	C float64
	// Tau is the dual proximal weight: y_{t+1} = proj(y_t + s_t / tau).
	Tau float64
	// Theta is the extrapolation weight theta of s_t.
	Theta float64
	// Mu is the weight of the proximal-point term (mu/2)||x - xbar||^2
	// that makes the weakly convex objective strongly convex.
	Mu float64
	// Inner is the number of ConEx iterations per proximal-point
	// subproblem (xbar is reset to the current x after them).
	Inner int
	// B bounds the multiplier: y in [0, B]^m.
	B float64
	// Estimator is the gradient estimator (the same as ZO-SPLM's).
	Estimator Estimator
}

// DefaultConExParams is the documented default rule for n variables, with
// L = LfRule(n) = 4n: c = 0.9/L, tau = L/2, theta = 1, mu = 0.05 L, 25
// inner iterations, B = 100 and DefaultEstimator. c stays below
// 1/(L_f + mu); the other values were chosen by a sweep at n = 50 with
// the same budget as ZO-SPLM's (fewest iterations to eps = 1).
func DefaultConExParams(n int) ConExParams {
	L := LfRule(n)
	return ConExParams{C: 0.9 / L, Tau: L / 2, Theta: 1, Mu: 0.05 * L, Inner: 25, B: 100, Estimator: DefaultEstimator()}
}

// Validate checks the parameters.
func (p ConExParams) Validate() error {
	for _, v := range []struct {
		name string
		v    float64
	}{{"c", p.C}, {"tau", p.Tau}, {"B", p.B}} {
		if !(v.v > 0) || math.IsInf(v.v, 0) {
			return fmt.Errorf("zosplm: conex: %s = %g, want 0 < %s < inf", v.name, v.v, v.name)
		}
	}
	switch {
	case !(p.Theta >= 0) || math.IsInf(p.Theta, 0):
		return fmt.Errorf("zosplm: conex: theta = %g, want >= 0", p.Theta)
	case !(p.Mu >= 0) || math.IsInf(p.Mu, 0):
		return fmt.Errorf("zosplm: conex: mu = %g, want >= 0", p.Mu)
	case p.Inner < 1:
		return fmt.Errorf("zosplm: conex: inner = %d, want >= 1", p.Inner)
	}
	return p.Estimator.Validate()
}

// ConEx is the ZO-ConEX baseline: the constraint extrapolation method of
// Boob, Deng and Lan in the zeroth-order form of Nguyen and
// Balasubramanian (2023), with the nonconvex objective handled by a
// proximal-point outer loop. Iteration t, with the estimates of eq. (3)
// of grad f and grad h_j at x_t from one set of directions (OpSums):
//
//	l_t     = h(x_{t-1}) + G_h(x_{t-1}) (x_t - x_{t-1})      (linearization; l_0 = h(x_0))
//	s_t     = (1 + theta) l_t - theta l_{t-1}                  (extrapolation)
//	y_{t+1} = proj_[0,B]^m(y_t + s_t / tau)
//	x_{t+1} = proj_X(x_t - c (G_f(x_t) + mu (x_t - xbar) + G_h(x_t)^T y_{t+1}))
//
// and xbar <- x_{t+1} every Inner iterations. What we had to assume: the
// paper compared against gives no parameters; we take constant steps,
// a fixed inner count for the proximal point, the constraint
// linearization built from the previous iteration's estimated Jacobian
// (the auxiliary surrogate of ZO-ConEX, at no extra oracle cost), and the
// same mini-batch estimator as ZO-SPLM, so an iteration costs k + 1 calls.
// The proximal term's gradient is exact when Estimator.ExactProx is set,
// estimated otherwise.
type ConEx struct {
	*core
	prm            ConExParams
	x, xprev, xbar []float64
	y              []float64
	hprev, lprev   []float64
	gh, ghprev     []float64 // m x n estimated Jacobians at x_t, x_{t-1}
	hcur, w        []float64
	inner, t       int
}

var _ Method = (*ConEx)(nil)

// NewConEx returns the ZO-ConEX agent at x0 (in X) with y = 0.
func NewConEx(id int, box objective.Box, m int, x0 []float64, prm ConExParams, seed uint64) (*ConEx, error) {
	if err := prm.Validate(); err != nil {
		return nil, err
	}
	if err := checkX0(x0, box); err != nil {
		return nil, err
	}
	n := len(x0)
	c, err := newCore(id, n, m, box, prm.Estimator, seed)
	if err != nil {
		return nil, err
	}
	a := &ConEx{core: c, prm: prm, x: append([]float64(nil), x0...), xprev: append([]float64(nil), x0...),
		xbar: append([]float64(nil), x0...), y: make([]float64, m), hprev: make([]float64, m), lprev: make([]float64, m),
		gh: make([]float64, m*n), ghprev: make([]float64, m*n), hcur: make([]float64, m), w: make([]float64, n)}
	c.meth = a
	c.dualSq = func() float64 { return sumSq(a.y) }
	return a, nil
}

// Name implements Method.
func (a *ConEx) Name() string { return "ZO-ConEX" }

// X implements Method.
func (a *ConEx) X() []float64 { return a.x }

// MeasureDual implements Method: y_{t+1}, the multiplier of x_{t+1}'s step.
func (a *ConEx) MeasureDual(_, y []float64) { copy(y, a.y) }

func (a *ConEx) point() []float64 { return a.x }

func (a *ConEx) values(_ int, v []float64) error {
	copy(a.hcur, v[1:])
	return nil
}

func (a *ConEx) spec() (int, []float64, []float64) {
	if a.prm.Estimator.ExactProx || a.prm.Mu == 0 {
		return OpSums, nil, nil
	}
	for i := range a.w {
		a.w[i] = a.x[i] - a.xbar[i]
	}
	return OpSums, nil, a.w
}

func (a *ConEx) step(_ int, g []float64) error {
	n, m := a.n, a.m
	copy(a.gh, g[n:(1+m)*n])
	for j := range m {
		l := a.hcur[j]
		if a.t > 0 {
			l = a.hprev[j]
			row := a.ghprev[j*n : (j+1)*n]
			for i := range n {
				l += row[i] * (a.x[i] - a.xprev[i])
			}
		} else {
			a.lprev[j] = l
		}
		s := (1+a.prm.Theta)*l - a.prm.Theta*a.lprev[j]
		a.y[j] = clip(a.y[j]+s/a.prm.Tau, 0, a.prm.B)
		a.lprev[j] = l
	}
	withW := !(a.prm.Estimator.ExactProx || a.prm.Mu == 0)
	copy(a.xprev, a.x)
	for i := range n {
		gi := g[i]
		for j := range m {
			gi += a.y[j] * a.gh[j*n+i]
		}
		if withW {
			gi += a.prm.Mu * g[(1+m)*n+i]
		} else {
			gi += a.prm.Mu * (a.xprev[i] - a.xbar[i])
		}
		a.x[i] -= a.prm.C * gi
	}
	a.project(a.x)
	copy(a.hprev, a.hcur)
	a.gh, a.ghprev = a.ghprev, a.gh
	a.t++
	if a.inner++; a.inner >= a.prm.Inner {
		copy(a.xbar, a.x)
		a.inner = 0
	}
	return nil
}
