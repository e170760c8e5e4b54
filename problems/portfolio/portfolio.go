package portfolio

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Portfolio is the mean-variance portfolio problem (the paper's eq. 24,
// from Lian, Wang and Liu 2017) over N assets and n periods with rewards
// r_1..r_n in R^N:
//
//	F(x) = -(1/n) sum_i <r_i, x> + (1/n) sum_i ( <r_i, x> - (1/n) sum_j <r_j, x> )^2
//	     = -<rbar, x> + x^T S x,
//
// rbar = (1/n) sum_i r_i, S = (1/n) sum_i (r_i - rbar)(r_i - rbar)^T. As a
// composition (m = n, d = N, r = N + 1):
//
//	g_j(x) = [x; <r_j, x>],                 so g(x) = [x; <rbar, x>],
//	f_i(y) = -<r_i, y_x> + (<r_i, y_x> - y_last)^2,  y = [y_x; y_last].
//
// Then dg_j(x) = [I; r_j^T] and grad f_i(y) = [(2c - 1) r_i; -2c] with
// c = <r_i, y_x> - y_last.
type Portfolio struct {
	rets [][]float64 // r_i, rows of the n x N reward matrix
	mean []float64   // rbar
	cov  *mat.SymDense
	all  []int // 0, 1, ..., n-1: every row, for rowDots
}

// New builds the problem from the n x N reward matrix (row i is
// r_i). The matrix is copied.
func New(returns mat.Matrix) (*Portfolio, error) {
	if returns == nil {
		return nil, fmt.Errorf("portfolio: nil reward matrix")
	}
	n, assets := returns.Dims()
	if n < 2 || assets < 1 {
		return nil, fmt.Errorf("portfolio: reward matrix is %d x %d, need at least 2 periods and 1 asset", n, assets)
	}
	p := &Portfolio{rets: make([][]float64, n), mean: make([]float64, assets), all: make([]int, n)}
	for i := range n {
		p.all[i] = i
		row := make([]float64, assets)
		for k := range assets {
			v := returns.At(i, k)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("portfolio: reward r_%d[%d] = %v is not finite", i, k, v)
			}
			row[k] = v
		}
		p.rets[i] = row
		axpy(p.mean, 1/float64(n), row)
	}
	centred := mat.NewDense(n, assets, nil)
	for i, row := range p.rets {
		for k, v := range row {
			centred.Set(i, k, v-p.mean[k])
		}
	}
	p.cov = mat.NewSymDense(assets, nil)
	p.cov.SymOuterK(1/float64(n), centred.T())
	return p, nil
}

// Rewards returns the rows r_1..r_n of the reward matrix (the problem's
// own slices: do not modify them).
func (p *Portfolio) Rewards() [][]float64 { return p.rets }

// Mean returns rbar, the mean reward (the problem's own slice: do not
// modify it).
func (p *Portfolio) Mean() []float64 { return p.mean }

// Cov returns S, the covariance of the rewards (the problem's own matrix:
// do not modify it).
func (p *Portfolio) Cov() *mat.SymDense { return p.cov }

// Dims returns d = N, r = N + 1, m = n = periods.
func (p *Portfolio) Dims() Dims {
	a, n := len(p.mean), len(p.rets)
	return Dims{D: a, R: a + 1, M: n, N: n}
}

// Inner writes g_j(x) = [x; <r_j, x>] into dst.
func (p *Portfolio) Inner(j int, x, dst []float64) {
	a := len(x)
	copy(dst[:a], x)
	dst[a] = dot(p.rets[j], x)
}

// InnerTails implements StackedInner: g_j(x) = [x; <r_j, x>], so it
// writes <r_j, x> for j = js[0], js[1], ... into dst[0], dst[1], ....
func (p *Portfolio) InnerTails(x []float64, js []int, dst []float64) {
	rowDots(p.rets, x, js, dst[:len(js)])
}

// rowDots sets dst[b] = dot(rows[js[b]], x) for every b. It forms six
// of the sums in one pass over x, each added in the order dot adds it, so
// every value is dot's, bit for bit: a single dot waits for each addition
// in turn, and six independent sums fill that wait (six sums, their six
// products and x[k] fit in the floating-point registers, so none is
// spilled). A last group of fewer than six repeats its last row in the
// unused places and discards their sums, since a pass costs about the
// same however many of its sums are used.
func rowDots(rows [][]float64, x []float64, js []int, dst []float64) {
	const w = 6
	dst = dst[:len(js)]
	var r [w][]float64
	for b := 0; b < len(js); b += w {
		g := min(w, len(js)-b)
		for q := range r {
			r[q] = rows[js[b+min(q, g-1)]]
		}
		n := len(x) // one bounds check per row for the loop
		r0, r1, r2, r3, r4, r5 := r[0][:n], r[1][:n], r[2][:n], r[3][:n], r[4][:n], r[5][:n]
		var s0, s1, s2, s3, s4, s5 float64
		for k, v := range x {
			s0 += float64(r0[k] * v)
			s1 += float64(r1[k] * v)
			s2 += float64(r2[k] * v)
			s3 += float64(r3[k] * v)
			s4 += float64(r4[k] * v)
			s5 += float64(r5[k] * v)
		}
		sums := [w]float64{s0, s1, s2, s3, s4, s5}
		copy(dst[b:b+g], sums[:g])
	}
}

// InnerJacT writes (dg_j(x))^T u = u_x + u_last r_j into dst.
func (p *Portfolio) InnerJacT(j int, x, u, dst []float64) {
	a := len(x)
	last := u[a]
	rj := p.rets[j]
	u, dst = u[:len(rj)], dst[:len(rj)] // one bounds check each for the loop
	for k, rk := range rj {
		dst[k] = u[k] + float64(last*rk)
	}
}

// InnerJacTDiff implements InnerJacTDiffer. The Jacobian [I; r_j^T] does
// not depend on the point, so both products are the same computation,
// t = u_x + u_last r_j, and every entry is t[k] - t[k] (0, or NaN where t
// is not finite) from one evaluation of t.
func (p *Portfolio) InnerJacTDiff(j int, x, y, u, dst []float64) {
	a := len(x)
	last := u[a]
	rj := p.rets[j]
	u, dst = u[:len(rj)], dst[:len(rj)] // one bounds check each for the loop
	for k, rk := range rj {
		t := u[k] + float64(last*rk)
		dst[k] = t - t
	}
}

// OuterGradPair implements OuterGradPairer: the two inner products
// <r_i, y_x> and <r_i, z_x> are formed in one pass, each added in dot's
// order, and then written as OuterGrad writes them.
func (p *Portfolio) OuterGradPair(i int, y, z, dy, dz []float64) {
	a := len(p.mean)
	ri := p.rets[i][:a]
	yx, zx := y[:a], z[:a]
	var sy, sz float64
	for k, v := range ri {
		sy += float64(v * yx[k])
		sz += float64(v * zx[k])
	}
	cy, cz := sy-y[a], sz-z[a]
	for k, rk := range ri {
		dy[k] = (2*cy - 1) * rk
		dz[k] = (2*cz - 1) * rk
	}
	dy[a] = -2 * cy
	dz[a] = -2 * cz
}

// InnerJacTSum implements InnerJacTSummer: every entry is
// 0 + (u[k] + u_last r_0[k]) + ... + (u[k] + u_last r_{m-1}[k]), added
// left to right with each term rounded as InnerJacT rounds it, four rows
// to a pass over dst.
func (p *Portfolio) InnerJacTSum(x, u, dst []float64) {
	a := len(x)
	last := u[a]
	u, dst = u[:a], dst[:a]
	clear(dst)
	j := 0
	for ; j+4 <= len(p.rets); j += 4 {
		r0, r1, r2, r3 := p.rets[j][:a], p.rets[j+1][:a], p.rets[j+2][:a], p.rets[j+3][:a]
		for k, uk := range u {
			dst[k] = dst[k] + float64(uk+float64(last*r0[k])) + float64(uk+float64(last*r1[k])) +
				float64(uk+float64(last*r2[k])) + float64(uk+float64(last*r3[k]))
		}
	}
	for ; j < len(p.rets); j++ {
		rj := p.rets[j][:a]
		for k, uk := range u {
			dst[k] += float64(uk + float64(last*rj[k]))
		}
	}
}

// OuterGradSum implements OuterGradSummer: with c_i = <r_i, y_x> - y_last,
// every entry is 0 + (2c_0 - 1) r_0[k] + ... + (2c_{n-1} - 1) r_{n-1}[k]
// and the last 0 + (-2c_0) + ... + (-2c_{n-1}), added left to right with
// each term rounded as OuterGrad rounds it; the inner products are
// rowDots's, four at a time.
func (p *Portfolio) OuterGradSum(y, dst []float64) {
	a := len(p.mean)
	n := len(p.rets)
	cs := make([]float64, n)
	rowDots(p.rets, y[:a], p.all, cs)
	yl := y[a]
	for i := range cs {
		cs[i] -= yl
	}
	out := dst[:a]
	clear(out)
	var lastSum float64
	for i, c := range cs {
		f := 2*c - 1
		for k, rk := range p.rets[i][:a] {
			out[k] += float64(f * rk)
		}
		lastSum += float64(-2 * c)
	}
	dst[a] = lastSum
}

// InnerJacobian writes dg_j(x) = [I; r_j^T] ((N+1) x N, row-major) into dst.
func (p *Portfolio) InnerJacobian(j int, x, dst []float64) {
	a := len(x)
	clear(dst[:a*a])
	for k := range a {
		dst[k*a+k] = 1
	}
	copy(dst[a*a:], p.rets[j])
}

// InnerJacobianTail implements IdentityStackedJacobian: dg_j(x) =
// [I; r_j^T], so B_j(x) = r_j^T (1 x N) is written into dst.
func (p *Portfolio) InnerJacobianTail(j int, x, dst []float64) {
	copy(dst[:len(x)], p.rets[j])
}

// Outer returns f_i(y) = -<r_i, y_x> + (<r_i, y_x> - y_last)^2.
func (p *Portfolio) Outer(i int, y []float64) float64 {
	a := len(p.mean)
	s := dot(p.rets[i], y[:a])
	c := s - y[a]
	return -s + float64(c*c)
}

// OuterGrad writes grad f_i(y) = [(2c - 1) r_i; -2c], c = <r_i, y_x> - y_last,
// into dst.
func (p *Portfolio) OuterGrad(i int, y, dst []float64) {
	a := len(p.mean)
	c := dot(p.rets[i], y[:a]) - y[a]
	for k, rk := range p.rets[i] {
		dst[k] = (2*c - 1) * rk
	}
	dst[a] = -2 * c
}

// Objective returns F(x) = -<rbar, x> + x^T S x in closed form.
func (p *Portfolio) Objective(x []float64) float64 {
	v := mat.NewVecDense(len(x), append([]float64(nil), x...))
	return -dot(p.mean, x) + mat.Inner(v, p.cov, v)
}

// ObjectiveGrad writes grad F(x) = -rbar + 2 S x into dst in closed form.
func (p *Portfolio) ObjectiveGrad(x, dst []float64) {
	out := mat.NewVecDense(len(dst), dst)
	out.MulVec(p.cov, mat.NewVecDense(len(x), append([]float64(nil), x...)))
	for k := range dst {
		dst[k] = 2*dst[k] - p.mean[k]
	}
}

// Solution is the exact minimizer of P(x) = F(x) + (mu/2)||x||^2, the
// portfolio problem with the ADMM constraint x = w eliminated.
type Solution struct {
	X     []float64     // x* = (2S + mu I)^{-1} rbar
	Value float64       // P* = P(x*)
	H     *mat.SymDense // the Hessian 2S + mu I
}

// Solve returns x* and P* by a Cholesky solve of the normal equations
// (2S + mu I) x = rbar. It fails if 2S + mu I is not positive definite.
func (p *Portfolio) Solve(r Ridge) (*Solution, error) {
	a := len(p.mean)
	h := mat.NewSymDense(a, nil)
	h.AddSym(p.cov, p.cov)
	for k := range a {
		h.SetSym(k, k, h.At(k, k)+r.Mu)
	}
	var ch mat.Cholesky
	if ok := ch.Factorize(h); !ok {
		return nil, fmt.Errorf("portfolio: 2S + mu I is not positive definite (mu = %v)", r.Mu)
	}
	var xs mat.VecDense
	if err := ch.SolveVecTo(&xs, mat.NewVecDense(a, append([]float64(nil), p.mean...))); err != nil {
		return nil, fmt.Errorf("portfolio: solving the normal equations: %w", err)
	}
	x := append([]float64(nil), xs.RawVector().Data...)
	return &Solution{X: x, Value: float64(p.Objective(x)) + float64(r.Value(x)), H: h}, nil
}

// Gap returns P(x) - P* = (1/2)(x - x*)^T H (x - x*), exact for the
// quadratic P and free of the cancellation of subtracting two values.
func (s *Solution) Gap(x []float64) float64 {
	e := make([]float64, len(x))
	for k := range x {
		e[k] = x[k] - s.X[k]
	}
	v := mat.NewVecDense(len(e), e)
	return 0.5 * mat.Inner(v, s.H, v)
}

// ReturnsConfig describes the synthetic rewards: n = Periods i.i.d. draws
//
//	r_i = nu + Q diag(sqrt(lambda)) z_i,   z_i ~ N(0, I_N),
//
// so r_i ~ N(nu, Sigma) with Sigma = Q diag(lambda) Q^T, Q a random
// orthogonal matrix (the Q factor of a Gaussian N x N matrix, columns
// sign-fixed so that diag(R) > 0, i.e. Haar distributed), and
// lambda_k = Cov^{-(k-1)/(N-1)}, k = 1..N, geometrically spaced from 1 down
// to 1/Cov: the condition number of Sigma is Cov. The mean nu has
// independent entries uniform on [0, MeanHi].
type ReturnsConfig struct {
	Assets  int     // N
	Periods int     // n
	Cov     float64 // condition number of Sigma, >= 1
	MeanHi  float64 // upper end of the uniform mean entries, >= 0
}

// GenerateReturns draws the n x N reward matrix of cfg from rng.
func GenerateReturns(cfg ReturnsConfig, rng *rand.Rand) (*mat.Dense, error) {
	if cfg.Assets < 1 || cfg.Periods < 2 {
		return nil, fmt.Errorf("portfolio: returns config %+v: need Assets >= 1 and Periods >= 2", cfg)
	}
	if !(cfg.Cov >= 1) || math.IsInf(cfg.Cov, 0) {
		return nil, fmt.Errorf("portfolio: covariance condition number cov = %v must be finite and >= 1", cfg.Cov)
	}
	if !(cfg.MeanHi >= 0) || math.IsInf(cfg.MeanHi, 0) {
		return nil, fmt.Errorf("portfolio: mean bound %v must be finite and >= 0", cfg.MeanHi)
	}
	a, n := cfg.Assets, cfg.Periods
	gauss := mat.NewDense(a, a, nil)
	for i := range a {
		for k := range a {
			gauss.Set(i, k, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(gauss)
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	// L = Q diag(sign(R_kk) sqrt(lambda_k)), Sigma = L L^T.
	l := mat.NewDense(a, a, nil)
	for k := range a {
		lambda := 1.0
		if a > 1 {
			lambda = math.Pow(cfg.Cov, -float64(k)/float64(a-1))
		}
		s := math.Sqrt(lambda)
		if r.At(k, k) < 0 {
			s = -s
		}
		for i := range a {
			l.Set(i, k, q.At(i, k)*s)
		}
	}
	nu := make([]float64, a)
	for k := range nu {
		nu[k] = cfg.MeanHi * rng.Float64()
	}
	z := mat.NewDense(n, a, nil)
	for i := range n {
		for k := range a {
			z.Set(i, k, rng.NormFloat64())
		}
	}
	out := mat.NewDense(n, a, nil)
	out.Mul(z, l.T()) // row i: (L z_i)^T
	for i := range n {
		for k := range a {
			out.Set(i, k, out.At(i, k)+nu[k])
		}
	}
	return out, nil
}
