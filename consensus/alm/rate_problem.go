package alm

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/objective"
)

// FullBatchLS is the least-squares objective f_i(x) = (1/(2m)) ||A x - b||^2
// of m rows, whose StochGrad is the full gradient (1/m) A^T (A x - b): a
// deterministic oracle, so that a round of the ALM is exactly an affine map
// of its state (see RateModel).
type FullBatchLS struct {
	// A is m x n, B has m entries.
	A *mat.Dense
	B []float64
}

// Dim returns n.
func (f *FullBatchLS) Dim() int { _, n := f.A.Dims(); return n }

// residual returns r_k = a_k^T x - b_k of row k.
func (f *FullBatchLS) residual(k int, x []float64) float64 {
	a := f.A.RawRowView(k)
	r := -f.B[k]
	for l, v := range a {
		r += float64(v * x[l])
	}
	return r
}

// Value returns (1/(2m)) ||A x - b||^2.
func (f *FullBatchLS) Value(x []float64) float64 {
	m, _ := f.A.Dims()
	var s float64
	for k := range m {
		r := f.residual(k, x)
		s += float64(r * r)
	}
	return s / float64(2*m)
}

// Grad writes (1/m) A^T (A x - b) into g.
func (f *FullBatchLS) Grad(x, g []float64) {
	m, n := f.A.Dims()
	g = g[:n]
	clear(g)
	inv := 1 / float64(m)
	for k := range m {
		r := f.residual(k, x) * inv
		for l, v := range f.A.RawRowView(k) {
			g[l] += float64(r * v)
		}
	}
}

// StochGrad writes the full gradient into g and returns m.
func (f *FullBatchLS) StochGrad(x, g []float64, _ *rand.Rand) int {
	f.Grad(x, g)
	m, _ := f.A.Dims()
	return m
}

// Smoothness returns L_i = lambda_max(A^T A) / m.
func (f *FullBatchLS) Smoothness() float64 {
	m, n := f.A.Dims()
	var ata mat.SymDense
	ata.SymOuterK(1/float64(m), f.A.T())
	var es mat.EigenSym
	if !es.Factorize(&ata, false) {
		return 0
	}
	return es.Values(nil)[n-1]
}

// InterpolatingLS returns N full-batch least-squares objectives of
// dimension n with m rows each, standard Gaussian A_i and b_i = A_i x*
// for a common x* with standard Gaussian entries: every f_i is minimized
// at x*, so (1 x*, 0, 1 x*) is a fixed point of every ALM round, whatever
// its edge draws. With m >= n every A_i has full column rank almost
// surely.
func InterpolatingLS(N, n, m int, seed uint64) ([]objective.Local, []float64, error) {
	if N < 1 || n < 1 || m < n {
		return nil, nil, fmt.Errorf("alm: interpolating least squares: N = %d, n = %d, m = %d: need N, n >= 1 and m >= n", N, n, m)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	xs := make([]float64, n)
	for k := range xs {
		xs[k] = rng.NormFloat64()
	}
	locals := make([]objective.Local, N)
	for i := range locals {
		a := mat.NewDense(m, n, nil)
		for r := range m {
			for c := range n {
				a.Set(r, c, rng.NormFloat64())
			}
		}
		var b mat.VecDense
		b.MulVec(a, mat.NewVecDense(n, xs))
		locals[i] = &FullBatchLS{A: a, B: b.RawVector().Data}
	}
	return locals, xs, nil
}
