package penalty

import (
	"fmt"
	"math"
)

// SolveOptions controls SolveALM. Zero values take the defaults.
type SolveOptions struct {
	// Tol is the KKT tolerance: the run stops when the stationarity,
	// feasibility and complementarity residuals (KKT) are all below it.
	// Default 1e-9.
	Tol float64
	// Mu is the initial augmented Lagrangian parameter; default
	// lf / ||A||_2^2 (1 without constraints).
	Mu float64
	// MaxOuter bounds the multiplier updates (default 200), MaxInner the
	// accelerated proximal-gradient steps per subproblem (default 100000).
	MaxOuter, MaxInner int
}

// KKT holds the residuals of a primal-dual pair (x, lambda) of
// min fbar(x) + psi(x) s.t. A x - b <= 0, lambda >= 0:
//
//	Stationarity    = ||x - prox_psi(x - grad fbar(x) - A^T lambda)||
//	Feasibility     = ||[A x - b]_+||
//	Complementarity = sum_i |lambda_i (A x - b)_i|
type KKT struct {
	Stationarity, Feasibility, Complementarity float64
}

// Max returns the largest residual.
func (k KKT) Max() float64 {
	return math.Max(k.Stationarity, math.Max(k.Feasibility, k.Complementarity))
}

// Optimum is a certified solution of the constrained problem.
type Optimum struct {
	X      []float64
	Lambda []float64
	// F is F(X) = fbar(X) + psi(X).
	F   float64
	KKT KKT
	// Outer and Inner count the multiplier updates and the proximal
	// gradient steps taken.
	Outer, Inner int
}

// Smooth is a smooth convex function with a full gradient, the input of
// SolveALM.
type Smooth struct {
	Value func(x []float64) float64
	Grad  func(x, g []float64)
	// Lip is a Lipschitz constant of Grad.
	Lip float64
}

// FullGradient returns fbar and grad fbar = (1/s) sum_i grad f_i of f as a
// Smooth with Lip = lf.
func FullGradient(f FiniteSum, lf float64) Smooth {
	part := make([]float64, f.Dim())
	inv := 1 / float64(f.Len())
	return Smooth{Value: f.Value, Lip: lf, Grad: func(x, g []float64) {
		shardSumGrad(f, nil, x, g, part)
		for j := range g {
			g[j] *= inv
		}
	}}
}

// KKTResidual evaluates the residuals of (x, lambda).
func KKTResidual(f Smooth, c *Linear, psi Regularizer, x, lambda []float64) KKT {
	n, m := len(x), c.Len()
	g := make([]float64, n)
	f.Grad(x, g)
	c.AddJacT(x, lambda, 1, g)
	u := make([]float64, n)
	for j := range u {
		u[j] = x[j] - g[j]
	}
	psi.Prox(u, 1, u)
	var k KKT
	for j := range u {
		k.Stationarity += (x[j] - u[j]) * (x[j] - u[j])
	}
	k.Stationarity = math.Sqrt(k.Stationarity)
	cv := make([]float64, m)
	c.Eval(x, cv)
	for i, v := range cv {
		if v > 0 {
			k.Feasibility += v * v
		}
		k.Complementarity += math.Abs(lambda[i] * v)
	}
	k.Feasibility = math.Sqrt(k.Feasibility)
	return k
}

// SolveALM solves min_x fbar(x) + psi(x) s.t. A x - b <= 0 by the
// augmented Lagrangian method, a method independent of the penalty
// schemes it certifies: for mu > 0 and multipliers lambda >= 0 it minimizes
//
//	L_mu(x, lambda) = fbar(x) + psi(x) + (1/(2 mu)) sum_i ([lambda_i + mu c_i(x)]_+^2 - lambda_i^2)
//
// by FISTA with gradient restart (step 1/(L + mu ||A||_2^2)) until its
// proximal-gradient residual is below the outer tolerance, then sets
// lambda = [lambda + mu c(x)]_+, and stops once the KKT residuals are all
// below opt.Tol. mu grows tenfold when the violation does not halve. It
// fails if the tolerance is not reached within the iteration bounds.
func SolveALM(f Smooth, c *Linear, psi Regularizer, x0 []float64, opt SolveOptions) (Optimum, error) {
	n, m := len(x0), c.Len()
	tol := opt.Tol
	if tol == 0 {
		tol = 1e-9
	}
	maxOuter, maxInner := opt.MaxOuter, opt.MaxInner
	if maxOuter == 0 {
		maxOuter = 200
	}
	if maxInner == 0 {
		maxInner = 100000
	}
	a2 := 0.0
	if m > 0 {
		a2 = c.SpectralNorm()
		a2 *= a2
	}
	mu := opt.Mu
	if mu == 0 {
		mu = 1
		if a2 > 0 {
			mu = f.Lip / a2
		}
	}
	x := append([]float64(nil), x0...)
	psi.Prox(x, 1, x) // start in dom psi
	lambda := make([]float64, m)
	y := append([]float64(nil), x...)
	xPrev := make([]float64, n)
	g := make([]float64, n)
	u := make([]float64, n)
	cv := make([]float64, m)
	res := Optimum{}
	prevViol := math.Inf(1)
	// gradL writes grad_x of the smooth part of L_mu at p into g.
	gradL := func(p []float64) {
		f.Grad(p, g)
		if m == 0 {
			return
		}
		c.Eval(p, cv)
		for i := range cv {
			cv[i] = math.Max(lambda[i]+mu*cv[i], 0)
		}
		c.AddJacT(p, cv, 1, g)
	}
	innerTol := math.Max(tol/10, 1e-14)
	for outer := 1; outer <= maxOuter; outer++ {
		step := 1 / (f.Lip + mu*a2)
		copy(y, x)
		t := 1.0
		for it := 0; it < maxInner; it++ {
			gradL(y)
			copy(xPrev, x)
			for j := range u {
				u[j] = y[j] - step*g[j]
			}
			psi.Prox(u, step, x)
			res.Inner++
			// Proximal-gradient residual at y, in gradient units.
			var r, restart float64
			for j := range x {
				d := y[j] - x[j]
				r += d * d
				restart += d * (x[j] - xPrev[j])
			}
			if math.Sqrt(r)/step < innerTol {
				break
			}
			if restart < 0 { // momentum points uphill: restart
				t = 1
				copy(y, x)
				continue
			}
			tn := (1 + math.Sqrt(1+4*t*t)) / 2
			for j := range y {
				y[j] = x[j] + (t-1)/tn*(x[j]-xPrev[j])
			}
			t = tn
		}
		if m > 0 {
			c.Eval(x, cv)
			for i := range lambda {
				lambda[i] = math.Max(lambda[i]+mu*cv[i], 0)
			}
		}
		res.Outer = outer
		k := KKTResidual(f, c, psi, x, lambda)
		if k.Max() < tol {
			res.X, res.Lambda, res.KKT = x, lambda, k
			res.F = f.Value(x) + psi.Value(x)
			return res, nil
		}
		if k.Feasibility > prevViol/2 {
			mu *= 10
		}
		prevViol = k.Feasibility
	}
	k := KKTResidual(f, c, psi, x, lambda)
	return Optimum{}, fmt.Errorf("penalty: ALM did not reach KKT tolerance %g in %d outer iterations (residuals %+v)", tol, maxOuter, k)
}
