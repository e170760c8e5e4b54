package objective

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ProxOperator is the optional exact proximal oracle of a local objective:
// Prox writes
//
//	argmin_x f_i(x) + (c/2) ||x - v||^2
//
// into out (len(out) = len(v) = n). c must make the subproblem strongly
// convex (c > 0 suffices for a convex f_i); otherwise out is filled with
// NaN. out may alias v.
type ProxOperator interface {
	Prox(v []float64, c float64, out []float64)
}

// ProxOf returns an exact proximal oracle of f, or an error if f has none.
// A Local that implements ProxOperator itself is returned as is (the
// quadratic test objectives, whose prox is closed form and stateless). For
// a least-squares local of New (squared loss with ridge regularizer) it
// returns a new operator that caches a Cholesky factor per value of c; that
// operator is not safe for concurrent use, so every agent takes its own.
// The logistic and Cauchy locals have no closed-form prox.
func ProxOf(f Local) (ProxOperator, error) {
	switch f := f.(type) {
	case nil:
		return nil, fmt.Errorf("prox: nil objective")
	case ProxOperator:
		return f, nil
	case *glm:
		return newLeastSquaresProx(f)
	}
	return nil, fmt.Errorf("prox: objective %T has no exact proximal operator", f)
}

// Prox implements ProxOperator for f(x) = (1/2) sum_k d_k (x_k - c_k)^2:
// out_k = (d_k c_k + c v_k)/(d_k + c), NaN where d_k + c <= 0.
func (q *quadratic) Prox(v []float64, c float64, out []float64) {
	for k, d := range q.d {
		if s := d + c; s > 0 && !math.IsInf(c, 0) {
			out[k] = (float64(d*q.c[k]) + float64(c*v[k])) / s
		} else {
			out[k] = math.NaN()
		}
	}
}

// maxProxFactors bounds the number of Cholesky factors a least-squares
// prox keeps; a decentralized agent needs one per degree its round graphs
// take, so the cache is cleared only in unusual use.
const maxProxFactors = 32

// leastSquaresProx is the prox of f_i(x) = (1/(2m)) ||A x - b||^2 +
// (lambda/2) ||x||^2: the solution of
//
//	(A^T A/m + lambda I + c I) x = A^T b/m + c v.
type leastSquaresProx struct {
	h    *mat.SymDense // A^T A/m + lambda I
	atb  []float64     // A^T b/m
	chol map[float64]*mat.Cholesky
	rhs  *mat.VecDense
	sol  *mat.VecDense
}

// newLeastSquaresProx builds the prox of a least-squares glm, or fails for
// any other loss or regularizer.
func newLeastSquaresProx(f *glm) (*leastSquaresProx, error) {
	if _, ok := f.loss.(squared); !ok {
		return nil, fmt.Errorf("prox: %T loss has no exact proximal operator (least squares only)", f.loss)
	}
	r, ok := f.reg.(ridge)
	if !ok {
		return nil, fmt.Errorf("prox: %T regularizer has no exact proximal operator (ridge only)", f.reg)
	}
	n := f.n
	a := mat.NewDense(f.m, n, f.A)
	h := mat.NewSymDense(n, nil)
	h.SymOuterK(1/float64(f.m), a.T())
	for k := range n {
		h.SetSym(k, k, h.At(k, k)+r.lambda)
	}
	atb := mat.NewVecDense(n, nil)
	atb.MulVec(a.T(), mat.NewVecDense(f.m, f.b))
	atb.ScaleVec(1/float64(f.m), atb)
	return &leastSquaresProx{
		h:    h,
		atb:  atb.RawVector().Data,
		chol: make(map[float64]*mat.Cholesky),
		rhs:  mat.NewVecDense(n, nil),
		sol:  mat.NewVecDense(n, nil),
	}, nil
}

// factor returns the Cholesky factor of A^T A/m + (lambda + c) I, or nil if
// that matrix is not positive definite.
func (p *leastSquaresProx) factor(c float64) *mat.Cholesky {
	if ch, ok := p.chol[c]; ok {
		return ch
	}
	if len(p.chol) >= maxProxFactors {
		clear(p.chol)
	}
	n := p.h.SymmetricDim()
	m := mat.NewSymDense(n, nil)
	m.CopySym(p.h)
	for k := range n {
		m.SetSym(k, k, m.At(k, k)+c)
	}
	ch := new(mat.Cholesky)
	if !ch.Factorize(m) {
		ch = nil
	}
	p.chol[c] = ch
	return ch
}

// Prox implements ProxOperator.
func (p *leastSquaresProx) Prox(v []float64, c float64, out []float64) {
	n := len(p.atb)
	var ch *mat.Cholesky
	if !math.IsNaN(c) && !math.IsInf(c, 0) {
		ch = p.factor(c)
	}
	if ch == nil {
		for k := range out[:n] {
			out[k] = math.NaN()
		}
		return
	}
	rhs := p.rhs.RawVector().Data
	for k := range rhs {
		rhs[k] = p.atb[k] + float64(c*v[k])
	}
	if err := ch.SolveVecTo(p.sol, p.rhs); err != nil {
		for k := range out[:n] {
			out[k] = math.NaN()
		}
		return
	}
	copy(out[:n], p.sol.RawVector().Data)
}
