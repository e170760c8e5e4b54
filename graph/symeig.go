package graph

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Symmetric eigenvalues with the same bits on every architecture. gonum's
// eigensolver sums in orders and fuses products that depend on the
// target, so a step size taken from its lambda_max differs in the last
// bits between amd64 (GOAMD64=v1), amd64 (v3) and arm64, and with it every
// iterate of the run. The routines below follow the package's rule
// "Floating point": Householder reduction to a tridiagonal matrix T with
// every product rounded and every sum in a fixed order, then bisection on
// the Sturm count of T, which needs only comparisons, subtractions and
// divisions.

// SymEigenvalues returns the eigenvalues lambda_1 <= ... <= lambda_N of the
// symmetric matrix a, each to a relative accuracy of a few units in the
// last place of max |lambda| (the backward error of the Householder
// reduction), with the same bits on every architecture. It costs
// (4/3) N^3 + O(N^2 log(1/eps)) flops.
func SymEigenvalues(a mat.Symmetric) []float64 {
	d, e2 := tridiagonal(a)
	out := make([]float64, len(d))
	for k := range out {
		out[k] = bisect(d, e2, k)
	}
	return out
}

// SymEigenvalue returns the k-th smallest eigenvalue lambda_{k+1} (k = 0
// for the smallest, N-1 for the largest) of the symmetric matrix a, as
// SymEigenvalues computes it.
func SymEigenvalue(a mat.Symmetric, k int) (float64, error) {
	n := a.SymmetricDim()
	if k < 0 || k >= n {
		return 0, fmt.Errorf("graph: eigenvalue %d of a %d x %d matrix", k, n, n)
	}
	d, e2 := tridiagonal(a)
	return bisect(d, e2, k), nil
}

// tridiagonal reduces a to the symmetric tridiagonal T = Q^T a Q by
// Householder reflections H_k = I - 2 v v^T, k = 0..N-3, and returns the
// diagonal d of T and the squares e2 of its off-diagonal (len N-1).
// Reflection k annihilates column k below the subdiagonal: with x =
// B[k+1:, k] and alpha = -sign(x_0) ||x||, v = (x - alpha e_1) / ||x -
// alpha e_1||, and the trailing block B becomes B - 2 v w^T - 2 w v^T with
// p = B v and w = p - (v^T p) v.
func tridiagonal(a mat.Symmetric) (d, e2 []float64) {
	n := a.SymmetricDim()
	b := make([]float64, n*n)
	for i := range n {
		for j := range n {
			b[i*n+j] = a.At(i, j)
		}
	}
	d = make([]float64, n)
	e2 = make([]float64, max(n-1, 0))
	v := make([]float64, n)
	p := make([]float64, n)
	for k := 0; k+2 < n; k++ {
		// x = b[k+1:, k], stored as column k (= row k by symmetry).
		x := b[k*n+k+1 : k*n+n]
		tailSq := sumSq(x[1:])
		if tailSq == 0 {
			e2[k] = float64(x[0] * x[0])
			continue
		}
		norm := math.Sqrt(float64(x[0]*x[0]) + tailSq)
		alpha := -math.Copysign(norm, x[0])
		m := n - k - 1
		vs := v[:m]
		copy(vs, x)
		vs[0] -= alpha
		vn := math.Sqrt(sumSq(vs))
		for i := range vs {
			vs[i] /= vn
		}
		// p = B v on the trailing block B = b[k+1:, k+1:].
		ps := p[:m]
		for i := range ps {
			row := b[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			ps[i] = dotRounded(row, vs)
		}
		vp := dotRounded(vs, ps)
		for i := range ps {
			ps[i] -= float64(vp * vs[i])
		}
		for i := range m {
			row := b[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			vi, wi := vs[i], ps[i]
			for j := range m {
				row[j] -= float64(2 * (float64(vi*ps[j]) + float64(wi*vs[j])))
			}
		}
		e2[k] = float64(alpha * alpha)
		// Column k is now alpha e_1; the row k entries are no longer read.
	}
	for i := range n {
		d[i] = b[i*n+i]
	}
	if n >= 2 {
		s := b[(n-2)*n+n-1]
		e2[n-2] = float64(s * s)
	}
	return d, e2
}

// sumSq returns sum_i x_i^2, each square rounded, summed in index order.
func sumSq(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += float64(v * v)
	}
	return s
}

// dotRounded returns x^T y, each product rounded, summed in index order.
func dotRounded(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += float64(v * y[i])
	}
	return s
}

// sturm returns the number of eigenvalues of T (diagonal d, squared
// off-diagonal e2) smaller than x: the number of negative pivots of the
// LDL^T factorization of T - x I, q_0 = d_0 - x, q_i = d_i - x -
// e2_{i-1}/q_{i-1}, where a pivot of magnitude at most pivmin is replaced
// by -pivmin (as LAPACK's dstebz does).
func sturm(d, e2 []float64, x, pivmin float64) int {
	count := 0
	q := d[0] - x
	for i := 0; ; i++ {
		if math.Abs(q) <= pivmin {
			q = -pivmin
		}
		if q < 0 {
			count++
		}
		if i+1 == len(d) {
			return count
		}
		q = (d[i+1] - x) - e2[i]/q
	}
}

// bisect returns the k-th smallest eigenvalue of T (diagonal d, squared
// off-diagonal e2) by bisection on the Sturm count, starting from the
// Gershgorin interval and stopping when the interval is at most a few
// units in the last place of the spectral bound. It returns the upper end
// of the final interval.
func bisect(d, e2 []float64, k int) float64 {
	n := len(d)
	e := make([]float64, n+1) // e[i] = |T_{i-1,i}|, e[0] = e[n] = 0
	var maxE2 float64
	for i, v := range e2 {
		e[i+1] = math.Sqrt(v)
		maxE2 = max(maxE2, v)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range d {
		r := e[i] + e[i+1]
		lo, hi = min(lo, v-r), max(hi, v+r)
	}
	bound := max(math.Abs(lo), math.Abs(hi))
	if bound == 0 {
		return 0
	}
	const eps = 0x1p-52
	pivmin := max(0x1p-1022, float64(0x1p-1022*maxE2))
	tol := float64(4 * eps * bound)
	lo -= tol
	hi += tol
	for hi-lo > tol {
		mid := lo + float64((hi-lo)/2)
		if mid <= lo || mid >= hi {
			break
		}
		if sturm(d, e2, mid, pivmin) > k {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
