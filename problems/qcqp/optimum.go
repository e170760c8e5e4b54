package qcqp

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Reference is the reference solution of a QCQP, the value its runs
// measure their optimality gap against.
type Reference struct {
	// X is the global minimizer and F = f(X); nil and NaN when the
	// problem has no certified reference, Why then says why.
	X []float64
	F float64
	// Mu is the multiplier of the constraint at X.
	Mu  float64
	Why string
}

// refCache holds a QCQP's Reference, computed on the first call.
type refCache struct {
	once sync.Once
	ref  Reference
}

// Reference returns the global optimum of a QCQP with one constraint
// (m = 1) and a positive definite A_1, certified by the S-lemma: the
// problem min f(x) s.t. h_1(x) <= 0 (without the box) is a generalized
// trust-region subproblem, and x* is a global minimizer if and only if
// some mu >= 0 has
//
//	(Q + mu A_1) x* = -(d + mu b_1),  Q + mu A_1 positive semidefinite,
//	h_1(x*) <= 0,  mu h_1(x*) = 0
//
// (Moré, 1993; strong duality holds with one constraint and a strictly
// feasible point). With L L^T = A_1 and L^{-1} Q L^{-T} = V diag(lambda) V^T,
// the point w = V^T L^T x of multiplier mu has
// w_j(mu) = -(g_j + mu h_j)/(lambda_j + mu), g = V^T L^{-1} d,
// h = V^T L^{-1} b_1, and phi(mu) = h_1(x(mu)) decreases strictly on
// (max(0, -lambda_1), inf): mu is found by bisection to the last bit, on
// the side where h_1 <= 0. Since x* then lies in the box X (checked), it
// is the global minimizer over X too. The problem has no certified
// reference (X nil, F NaN, Why set) when m > 1, A_1 is singular, no point
// is strictly feasible, the root is the "hard case" of the subproblem, or
// x* leaves the box. The result is computed once and shared.
func (q *QCQP) Reference() Reference {
	if q.ref == nil {
		return q.globalOptimum()
	}
	q.ref.once.Do(func() { q.ref.ref = q.globalOptimum() })
	return q.ref.ref
}

// none is a Reference without a value.
func none(format string, args ...any) Reference {
	return Reference{F: math.NaN(), Mu: math.NaN(), Why: fmt.Sprintf(format, args...)}
}

// globalOptimum computes Reference.
func (q *QCQP) globalOptimum() Reference {
	if q.m != 1 {
		return none("the S-lemma certifies a global optimum for one constraint; the problem has m = %d", q.m)
	}
	n := q.n
	var chol mat.Cholesky
	if !chol.Factorize(q.A[0]) {
		return none("A_1 is not positive definite")
	}
	var l mat.TriDense
	chol.LTo(&l)
	var linv mat.TriDense
	if err := linv.InverseTri(&l); err != nil {
		return none("A_1 is too ill-conditioned: %v", err)
	}
	// C = L^{-1} Q L^{-T}, symmetrized against rounding.
	var lq, c mat.Dense
	lq.Mul(&linv, q.Q)
	c.Mul(&lq, linv.T())
	cs := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			cs.SetSym(i, j, (c.At(i, j)+c.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(cs, true) {
		return none("the eigen-decomposition of L^{-1} Q L^{-T} did not converge")
	}
	lambda := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	proj := func(u []float64) []float64 { // V^T L^{-1} u
		var t, p mat.VecDense
		t.MulVec(&linv, mat.NewVecDense(n, u))
		p.MulVec(v.T(), &t)
		return p.RawVector().Data
	}
	g, h, c0 := proj(q.D), proj(q.B[0]), q.C[0]
	w := make([]float64, n)
	phi := func(mu float64) float64 {
		var s float64
		for j := range w {
			w[j] = -(g[j] + mu*h[j]) / (lambda[j] + mu)
			s += w[j]*w[j]/2 + h[j]*w[j]
		}
		return s + c0
	}
	var hh float64
	for _, v := range h {
		hh += v * v
	}
	if c0-hh/2 >= 0 {
		return none("no point is strictly feasible (min h_1 = %g >= 0)", c0-hh/2)
	}
	lo := math.Max(0, -lambda[0])
	var mu float64
	switch {
	case lambda[0] > 0 && phi(0) <= 0:
		mu = 0 // the unconstrained minimizer is feasible
	default:
		if !(phi(math.Nextafter(lo, math.Inf(1))) > 0) {
			return none("the hard case of the trust-region subproblem (phi(mu_min) <= 0)")
		}
		step := math.Max(1, lo)
		hi := lo + step
		for phi(hi) > 0 {
			step *= 2
			if hi = lo + step; math.IsInf(hi, 0) {
				return none("no multiplier makes x(mu) feasible")
			}
		}
		for {
			mid := lo + (hi-lo)/2
			if mid <= lo || mid >= hi {
				break
			}
			if phi(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		mu = hi
	}
	phi(mu)
	var wv, x mat.VecDense
	wv.MulVec(&v, mat.NewVecDense(n, w))
	x.MulVec(linv.T(), &wv)
	xs := append([]float64(nil), x.RawVector().Data...)
	for i, xi := range xs {
		if xi < q.Box.Lo || xi > q.Box.Hi {
			return none("the S-lemma minimizer leaves the box X at x_%d = %g", i+1, xi)
		}
	}
	return Reference{X: xs, F: q.F(xs), Mu: mu}
}
