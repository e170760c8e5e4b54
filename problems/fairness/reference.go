package fairness

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Optimum is the solution of the convex case of (6.6),
//
//	min L(theta) s.t. theta in [-R, R]^d, -c <= a^T theta <= c,
//
// with its certificate. Theta is feasible, and weak duality bounds the
// optimum from below: for the multiplier Nu (the Lagrangian is
// L(theta) + Nu a^T theta - |Nu| c) and the convex F = L + Nu a^T theta,
//
//	L* >= min_box F - |Nu| c >= F(theta) - FW(theta) - |Nu| c = Lower,
//
// where FW(theta) = max_{s in box} grad F(theta)^T (theta - s)
// = sum_j (g_j theta_j + R |g_j|) is the Frank-Wolfe gap of F on the box.
// So L(Theta) - L* <= Gap = L(Theta) - Lower, a bound that needs no
// trust in the solver.
type Optimum struct {
	// Theta is the solution, feasible: |a^T Theta| <= c, |Theta_j| <= R.
	Theta []float64
	// Nu is the multiplier of the covariance constraint, signed (0 when
	// it is inactive).
	Nu float64
	// L is L(Theta), Cov is a^T Theta.
	L, Cov float64
	// Lower is the certified lower bound on L*, Gap = L - Lower.
	Lower, Gap float64
	// FW is the Frank-Wolfe gap of F at Theta (a part of Gap).
	FW float64
	// KKT is the largest entry of the projected gradient of the
	// Lagrangian, |Theta - P_box(Theta - grad L(Theta) - Nu a)|, and
	// Slack is Nu (c - |a^T Theta|) (complementary slackness).
	KKT, Slack float64
	// Newton counts the Newton steps of all inner solves.
	Newton int
}

// innerTol is the projected-gradient tolerance of the inner solves whose
// point is certified.
const innerTol = 1e-10

// curved is a loss with a second derivative (the Newton solve needs it).
type curved interface {
	Loss
	// Second returns V''(m).
	Second(m float64) float64
}

// Second returns sigmoid(m) sigmoid(-m).
func (Logistic) Second(m float64) float64 { s := sigmoid(m); return s * (1 - s) }

// Reference solves the convex case of (6.6) (the logistic loss) by a
// method independent of Algorithm 1 and certifies it (Optimum). The
// constraint is dualized: for a multiplier nu, theta(nu) minimizes
// L(theta) + nu a^T theta over the box by a projected Newton method
// (Bertsekas 1982: Newton on the coordinates off their bound, the
// others held, a projected Armijo search) to a projected gradient below
// 1e-10; a^T theta(nu) is nonincreasing in nu. If |a^T theta(0)| <= c,
// theta(0) is optimal; otherwise, with sigma the sign of a^T theta(0),
// a safeguarded secant search on nu >= 0 brackets sigma a^T theta(sigma
// nu) = c and ends at the feasible end of the bracket once the certified
// gap is below 1e-9 (or the bracket is at machine precision; there, if
// the feasible end has slack, the convex combination of the two ends
// with the covariance on the bound, when it certifies better). Dropping
// the sparsity of the rows, a Newton step costs about n nnz^2 + d^3 / 3.
func Reference(d *Data, loss Loss, c, r float64) (Optimum, error) {
	cl, ok := loss.(curved)
	if !ok || !loss.Convex() {
		return Optimum{}, fmt.Errorf("fair reference: loss %s is not convex with a second derivative", loss.Name())
	}
	if err := d.Validate(); err != nil {
		return Optimum{}, err
	}
	if !(c > 0) || !(r > 0) || math.IsInf(r, 0) {
		return Optimum{}, fmt.Errorf("fair reference: c = %g and R = %g: want c > 0 (or +Inf) and finite R > 0", c, r)
	}
	s := newNewton(d, cl, r)
	theta := make([]float64, d.Dim)
	var opt Optimum
	if err := s.minimize(0, theta, innerTol); err != nil {
		return Optimum{}, err
	}
	cov := dot(s.a, theta)
	if math.Abs(cov) <= c {
		return s.certify(theta, 0, c), nil
	}
	sigma := math.Copysign(1, cov)
	phi := func(th []float64) float64 { return sigma*dot(s.a, th) - c }
	// Bracket: phi(lo) > 0 (infeasible), phi(hi) <= 0 (feasible).
	lo, hi := 0.0, 1.0
	thLo := append([]float64(nil), theta...)
	thHi := append([]float64(nil), theta...)
	fLo := phi(thLo)
	var fHi float64
	for {
		if err := s.minimize(sigma*hi, thHi, innerTol); err != nil {
			return Optimum{}, err
		}
		if fHi = phi(thHi); fHi <= 0 {
			break
		}
		lo, fLo = hi, fHi
		copy(thLo, thHi)
		hi *= 4
		if hi > 1e12 {
			return Optimum{}, fmt.Errorf("fair reference: no multiplier up to 1e12 reaches |a^T theta| <= %g: infeasible on the box", c)
		}
	}
	th := make([]float64, d.Dim)
	side := 0 // the end moved last, for the Illinois rule
	for it := 0; it < 200; it++ {
		opt = s.certify(thHi, sigma*hi, c)
		if opt.Gap <= 1e-9 || hi-lo <= 1e-15*hi {
			break
		}
		// Secant (regula falsi with the Illinois rule) inside the bracket,
		// bisection when it lands near an end.
		mid := hi - fHi*(hi-lo)/(fHi-fLo)
		if !(mid > lo+0.01*(hi-lo) && mid < hi-0.01*(hi-lo)) {
			mid = (lo + hi) / 2
		}
		copy(th, thHi)
		if err := s.minimize(sigma*mid, th, innerTol); err != nil {
			return Optimum{}, err
		}
		if f := phi(th); f > 0 {
			lo, fLo = mid, f
			copy(thLo, th)
			if side == -1 {
				fHi /= 2
			}
			side = -1
		} else {
			hi, fHi = mid, f
			copy(thHi, th)
			if side == 1 {
				fLo /= 2
			}
			side = 1
		}
	}
	opt = s.certify(thHi, sigma*hi, c)
	if opt.Gap > 1e-9 {
		// The search ended with slack at the feasible end: where theta(nu)
		// jumps (a nearly linear loss, few rows), or at the bracket's
		// precision. The convex combination of the two ends that puts the
		// covariance on the bound is feasible, and for nearly equal nu both
		// ends nearly minimize the Lagrangian; keep it if it certifies
		// better.
		cl, ch := sigma*dot(s.a, thLo), sigma*dot(s.a, thHi)
		if cl > c && ch < c {
			lam := (c - ch) / (cl - ch)
			for j := range th {
				th[j] = lam*thLo[j] + (1-lam)*thHi[j]
			}
			if mix := s.certify(th, sigma*hi, c); mix.Gap < opt.Gap {
				opt = mix
			}
		}
	}
	if math.Abs(opt.Cov) > c*(1+1e-12) {
		return Optimum{}, fmt.Errorf("fair reference: the multiplier search ended at covariance %g, outside [-%g, %g]", opt.Cov, c, c)
	}
	return opt, nil
}

// newtonSolver minimizes L(theta) + nu a^T theta over [-r, r]^d on the
// rows of d in sparse form.
type newtonSolver struct {
	d     *Data
	loss  curved
	r     float64
	a     []float64
	idx   [][]int     // nonzero columns of every row
	val   [][]float64 // their values
	g     []float64
	h     *mat.SymDense
	steps int
}

func newNewton(d *Data, loss curved, r float64) *newtonSolver {
	s := &newtonSolver{d: d, loss: loss, r: r, a: d.CovVector(), g: make([]float64, d.Dim), h: mat.NewSymDense(d.Dim, nil)}
	s.idx = make([][]int, d.Rows())
	s.val = make([][]float64, d.Rows())
	for k := range d.Rows() {
		for j, v := range d.Row(k) {
			if v != 0 {
				s.idx[k] = append(s.idx[k], j)
				s.val[k] = append(s.val[k], v)
			}
		}
	}
	return s
}

// margin returns y_k x_k^T theta.
func (s *newtonSolver) margin(k int, theta []float64) float64 {
	var m float64
	for q, j := range s.idx[k] {
		m += s.val[k][q] * theta[j]
	}
	return s.d.Y[k] * m
}

// value returns F(theta) = L(theta) + nu a^T theta.
func (s *newtonSolver) value(nu float64, theta []float64) float64 {
	var f float64
	for k := range s.idx {
		v, _ := s.loss.Eval(s.margin(k, theta))
		f += v
	}
	return f/float64(len(s.idx)) + nu*dot(s.a, theta)
}

// grad sets s.g = grad F(theta) and, if hess, s.h = the Hessian of L,
// and returns F(theta).
func (s *newtonSolver) grad(nu float64, theta []float64, hess bool) float64 {
	n := float64(len(s.idx))
	clear(s.g)
	var hd []float64
	if hess {
		hd = s.h.RawSymmetric().Data
		clear(hd)
	}
	dim := s.d.Dim
	var f float64
	for k := range s.idx {
		m := s.margin(k, theta)
		v, dv := s.loss.Eval(m)
		f += v
		w := dv * s.d.Y[k] / n
		for q, j := range s.idx[k] {
			s.g[j] += w * s.val[k][q]
		}
		if hess {
			w2 := s.loss.Second(m) / n // y^2 = 1
			for p, i := range s.idx[k] {
				vi := w2 * s.val[k][p]
				for q := p; q < len(s.idx[k]); q++ {
					j := s.idx[k][q]
					lo, hi := min(i, j), max(i, j)
					hd[lo*dim+hi] += vi * s.val[k][q]
				}
			}
		}
	}
	for j := range s.g {
		s.g[j] += nu * s.a[j]
	}
	return f/n + nu*dot(s.a, theta)
}

// pgNorm returns max_j |theta_j - P(theta_j - g_j)|.
func (s *newtonSolver) pgNorm(theta []float64) float64 {
	var m float64
	for j, t := range theta {
		m = math.Max(m, math.Abs(t-clamp(t-s.g[j], s.r)))
	}
	return m
}

// minimize runs projected Newton on F = L + nu a^T theta from theta
// (overwritten) until the projected gradient is below tol or a step
// makes no progress.
func (s *newtonSolver) minimize(nu float64, theta []float64, tol float64) error {
	dim := s.d.Dim
	next := make([]float64, dim)
	dir := make([]float64, dim)
	for it := 0; it < 200; it++ {
		f := s.grad(nu, theta, true)
		pg := s.pgNorm(theta)
		if pg <= tol {
			return nil
		}
		// Coordinates held: at a bound (within eps) with the gradient
		// pointing out of the box.
		eps := math.Min(1e-8, pg)
		var free []int
		for j, t := range theta {
			if (t <= -s.r+eps && s.g[j] > 0) || (t >= s.r-eps && s.g[j] < 0) {
				continue
			}
			free = append(free, j)
		}
		clear(dir)
		if len(free) > 0 {
			nf := len(free)
			hf := mat.NewSymDense(nf, nil)
			var diag float64
			for p, i := range free {
				for q := p; q < nf; q++ {
					hf.SetSym(p, q, s.h.At(i, free[q]))
				}
				diag = math.Max(diag, s.h.At(i, i))
			}
			// A ridge keeps the flat directions (one-hot groups against
			// the intercept) solvable; it only shortens the step there.
			ridge := 1e-10 * (1 + diag)
			var ch mat.Cholesky
			for {
				for p := range nf {
					hf.SetSym(p, p, hf.At(p, p)+ridge)
				}
				if ch.Factorize(hf) {
					break
				}
				ridge *= 100
				if ridge > 1e6*(1+diag) {
					return fmt.Errorf("fair reference: Newton system not positive definite")
				}
			}
			rhs := mat.NewVecDense(nf, nil)
			for p, i := range free {
				rhs.SetVec(p, -s.g[i])
			}
			var sol mat.VecDense
			if err := ch.SolveVecTo(&sol, rhs); err != nil {
				return fmt.Errorf("fair reference: Newton step: %w", err)
			}
			for p, i := range free {
				dir[i] = sol.AtVec(p)
			}
		}
		s.steps++
		// Projected Armijo search along dir. Near the solution the
		// decrease of F falls below its rounding (|F| eps), so there a step
		// is accepted when it shrinks the projected gradient instead.
		step := 1.0
		moved := false
		for ls := 0; ls < 60; ls++ {
			var dec float64
			for j := range theta {
				next[j] = clamp(theta[j]+step*dir[j], s.r)
				dec += s.g[j] * (next[j] - theta[j])
			}
			fn := s.value(nu, next)
			if fn <= f+1e-4*dec && dec < 0 {
				moved = true
				break
			}
			if -dec <= 1e-13*math.Max(1, math.Abs(f)) {
				g0 := append([]float64(nil), s.g...)
				s.grad(nu, next, false)
				if s.pgNorm(next) < pg {
					moved = true
					break
				}
				copy(s.g, g0)
			}
			step /= 2
		}
		if !moved {
			return nil // no progress at this precision
		}
		copy(theta, next)
	}
	return nil
}

// certify returns the Optimum of the feasible theta with multiplier nu.
func (s *newtonSolver) certify(theta []float64, nu, c float64) Optimum {
	f := s.grad(nu, theta, false)
	var fw float64
	for j, t := range theta {
		fw += s.g[j]*t + s.r*math.Abs(s.g[j])
	}
	fw = math.Max(fw, 0)
	cov := dot(s.a, theta)
	o := Optimum{Theta: append([]float64(nil), theta...), Nu: nu, Cov: cov, FW: fw, KKT: s.pgNorm(theta)}
	o.L = f - nu*cov
	if nu == 0 {
		o.Lower = f - fw
	} else {
		o.Lower = f - fw - math.Abs(nu)*c
		o.Slack = math.Abs(nu) * (c - math.Abs(cov))
	}
	o.Gap = o.L - o.Lower
	o.Newton = s.steps
	return o
}
