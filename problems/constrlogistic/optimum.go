package constrlogistic

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
	// AddHess, if non-nil, adds scale * hess f(x) to h (dense, row-major,
	// n x n); SolveALM then solves its subproblems by proximal Newton
	// steps instead of FISTA.
	AddHess func(x []float64, scale float64, h []float64)
}

// hessianer is a FiniteSum with a Hessian oracle (Logistic).
type hessianer interface {
	AddHess(x []float64, scale float64, h []float64)
}

// FullGradient returns fbar and grad fbar = (1/s) sum_i grad f_i of f as a
// Smooth with Lip = lf.
func FullGradient(f FiniteSum, lf float64) Smooth {
	part := make([]float64, f.Dim())
	inv := 1 / float64(f.Len())
	sm := Smooth{Value: f.Value, Lip: lf, Grad: func(x, g []float64) {
		SumGrad(f, nil, x, g, part)
		for j := range g {
			g[j] *= inv
		}
	}}
	if h, ok := f.(hessianer); ok {
		sm.AddHess = h.AddHess
	}
	return sm
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
// until its proximal-gradient residual is below a tenth of the tolerance,
// then sets lambda = [lambda + mu c(x)]_+, and stops once the KKT
// residuals are all below opt.Tol. mu grows tenfold when the violation
// does not halve. The subproblems are solved by proximal Newton steps
// (model minimized by coordinate descent, Armijo backtracking) when f has a
// Hessian, by FISTA with gradient restart otherwise. It fails if the
// tolerance is not reached within the iteration bounds, returning the last
// iterate with its residuals and the error. psi must be an L1Box for the
// Newton steps.
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
	box, newton := psi.(L1Box)
	newton = newton && f.AddHess != nil
	x := append([]float64(nil), x0...)
	psi.Prox(x, 1, x) // start in dom psi
	al := &augLag{f: f, c: c, lambda: make([]float64, m), cv: make([]float64, m), g: make([]float64, n)}
	res := Optimum{}
	prevViol := math.Inf(1)
	innerTol := math.Max(tol/10, 1e-14)
	for outer := 1; outer <= maxOuter; outer++ {
		al.mu = mu
		if newton {
			res.Inner += al.newton(x, box, innerTol, maxInner)
		} else {
			res.Inner += al.fista(x, psi, 1/(f.Lip+mu*a2), innerTol, maxInner)
		}
		if m > 0 {
			c.Eval(x, al.cv)
			for i := range al.lambda {
				al.lambda[i] = math.Max(al.lambda[i]+mu*al.cv[i], 0)
			}
		}
		res.Outer = outer
		k := KKTResidual(f, c, psi, x, al.lambda)
		if k.Max() < tol {
			res.X, res.Lambda, res.KKT = x, al.lambda, k
			res.F = f.Value(x) + psi.Value(x)
			return res, nil
		}
		if k.Feasibility > tol && k.Feasibility > prevViol/2 {
			mu *= 10
		}
		prevViol = k.Feasibility
	}
	k := KKTResidual(f, c, psi, x, al.lambda)
	res.X, res.Lambda, res.KKT, res.F = x, al.lambda, k, f.Value(x)+psi.Value(x)
	return res, fmt.Errorf("constrlogistic: ALM did not reach KKT tolerance %g in %d outer iterations (residuals %+v)", tol, maxOuter, k)
}

// augLag is the smooth part of the augmented Lagrangian,
// h(x) = fbar(x) + (1/(2 mu)) sum_i ([lambda_i + mu c_i(x)]_+^2 - lambda_i^2).
type augLag struct {
	f      Smooth
	c      *Linear
	lambda []float64
	mu     float64
	cv, g  []float64
}

// value returns h(p).
func (a *augLag) value(p []float64) float64 {
	v := a.f.Value(p)
	if len(a.lambda) == 0 {
		return v
	}
	a.c.Eval(p, a.cv)
	var s float64
	for i, l := range a.lambda {
		u := math.Max(l+a.mu*a.cv[i], 0)
		s += u*u - l*l
	}
	return v + s/(2*a.mu)
}

// grad writes grad h(p) = grad fbar(p) + A^T [lambda + mu c(p)]_+ into a.g.
func (a *augLag) grad(p []float64) {
	a.f.Grad(p, a.g)
	if len(a.lambda) == 0 {
		return
	}
	a.c.Eval(p, a.cv)
	for i := range a.cv {
		a.cv[i] = math.Max(a.lambda[i]+a.mu*a.cv[i], 0)
	}
	a.c.AddJacT(p, a.cv, 1, a.g)
}

// residual returns ||p - prox_psi(p - grad h(p))|| given a.g = grad h(p).
func (a *augLag) residual(p []float64, psi Regularizer, u []float64) float64 {
	for j := range u {
		u[j] = p[j] - a.g[j]
	}
	psi.Prox(u, 1, u)
	var r float64
	for j := range u {
		r += (p[j] - u[j]) * (p[j] - u[j])
	}
	return math.Sqrt(r)
}

// fista minimizes h + psi from x (in place) by FISTA with gradient restart
// and step 1/L until the proximal-gradient residual is below tol; it
// returns the steps taken.
func (a *augLag) fista(x []float64, psi Regularizer, step, tol float64, maxIt int) int {
	n := len(x)
	y := append([]float64(nil), x...)
	xPrev, u := make([]float64, n), make([]float64, n)
	t := 1.0
	for it := 1; it <= maxIt; it++ {
		a.grad(y)
		copy(xPrev, x)
		for j := range u {
			u[j] = y[j] - step*a.g[j]
		}
		psi.Prox(u, step, x)
		var r, restart float64
		for j := range x {
			d := y[j] - x[j]
			r += d * d
			restart += d * (x[j] - xPrev[j])
		}
		if math.Sqrt(r)/step < tol {
			return it
		}
		if restart < 0 {
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
	return maxIt
}

// newton minimizes h + psi from x (in place) by proximal Newton steps:
// the model g^T d + d^T H d/2 + psi(x + d), with H the (generalized)
// Hessian of h plus a small damping, is minimized by cyclic coordinate
// descent (each coordinate's problem is a soft threshold and a clip), and
// the step is backtracked until the Armijo condition on h + psi holds. It
// stops when the proximal-gradient residual is below tol and returns the
// Newton steps taken.
func (a *augLag) newton(x []float64, psi L1Box, tol float64, maxIt int) int {
	n := len(x)
	h := make([]float64, n*n)
	u, r, d, trial := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	row := make([]float64, n)
	phi := a.value(x) + psi.Value(x)
	maxIt = min(maxIt, maxNewton)
	stall := 0
	for it := 1; it <= maxIt; it++ {
		a.grad(x)
		if a.residual(x, psi, u) < tol {
			return it - 1
		}
		clear(h)
		a.f.AddHess(x, 1, h)
		if m := len(a.lambda); m > 0 {
			// mu A_J^T A_J over the rows J with lambda + mu c > 0 (a.cv
			// holds [lambda + mu c(x)]_+ after grad).
			for i := range m {
				if a.cv[i] <= 0 {
					continue
				}
				clear(row)
				a.c.A.AddRow(i, 1, row)
				for p, vp := range row {
					if vp == 0 {
						continue
					}
					for q, vq := range row {
						h[p*n+q] += a.mu * vp * vq
					}
				}
			}
		}
		var diag float64
		for j := range n {
			diag = math.Max(diag, h[j*n+j])
		}
		damp := 1e-10*diag + 1e-14
		// Coordinate descent on u = x + d, keeping r = g + H (u - x).
		copy(u, x)
		copy(r, a.g)
		for sweep := 0; sweep < 1000; sweep++ {
			var change float64
			for j := range n {
				hjj := h[j*n+j] + damp
				v := u[j] - r[j]/hjj
				if j < n-psi.Free {
					t := psi.Lambda / hjj
					switch {
					case v > t:
						v -= t
					case v < -t:
						v += t
					default:
						v = 0
					}
				}
				v = math.Min(math.Max(v, -psi.Bound), psi.Bound)
				if dv := v - u[j]; dv != 0 {
					hj := h[j*n : (j+1)*n]
					for k := range r {
						r[k] += hj[k] * dv
					}
					r[j] += damp * dv
					u[j] = v
					change = math.Max(change, math.Abs(dv))
				}
			}
			if change < 1e-15 {
				break
			}
		}
		var delta float64
		for j := range d {
			d[j] = u[j] - x[j]
			delta += a.g[j] * d[j]
		}
		delta += psi.Value(u) - psi.Value(x)
		if delta >= 0 {
			return it // no descent direction left at working precision
		}
		if -delta < 1e-13*(1+math.Abs(phi)) {
			// The predicted decrease is below the resolution of phi, so
			// Armijo cannot be tested: near the solution the full step
			// of the (locally quadratically convergent) method is taken.
			copy(x, u)
			phi = a.value(x) + psi.Value(x)
			continue
		}
		step := 1.0
		for range 60 {
			for j := range trial {
				trial[j] = x[j] + step*d[j]
			}
			pt := a.value(trial) + psi.Value(trial)
			if pt <= phi+1e-4*step*delta {
				copy(x, trial)
				if pt >= phi {
					stall++
				} else {
					stall = 0
				}
				phi = pt
				break
			}
			step /= 2
		}
		if step < 1e-17 || stall >= 3 {
			return it // no progress at working precision
		}
	}
	return maxIt
}

// maxNewton bounds the proximal Newton steps of one subproblem.
const maxNewton = 500
