package constrlogistic

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Sparse is a real matrix with Cols columns in compressed sparse row form:
// row i holds the values Val[Ptr[i]:Ptr[i+1]] at the columns
// Idx[Ptr[i]:Ptr[i+1]], ascending. Rows of LIBSVM data such as a9a have a
// few nonzeros out of 123, so every per-sample operation costs the row's
// nonzeros, not n.
type Sparse struct {
	Cols int
	Ptr  []int
	Idx  []int
	Val  []float64
}

// NewSparse returns the nonzeros of x as a Sparse matrix.
func NewSparse(x mat.Matrix) Sparse {
	r, c := x.Dims()
	a := Sparse{Cols: c, Ptr: make([]int, 1, r+1)}
	for i := range r {
		for j := range c {
			if v := x.At(i, j); v != 0 {
				a.Idx = append(a.Idx, j)
				a.Val = append(a.Val, v)
			}
		}
		a.Ptr = append(a.Ptr, len(a.Idx))
	}
	return a
}

// Rows returns the number of rows.
func (a *Sparse) Rows() int { return len(a.Ptr) - 1 }

// Dot returns a_i^T x.
func (a *Sparse) Dot(i int, x []float64) float64 {
	var s float64
	for k := a.Ptr[i]; k < a.Ptr[i+1]; k++ {
		s += a.Val[k] * x[a.Idx[k]]
	}
	return s
}

// AddRow adds s a_i to g.
func (a *Sparse) AddRow(i int, s float64, g []float64) {
	for k := a.Ptr[i]; k < a.Ptr[i+1]; k++ {
		g[a.Idx[k]] += s * a.Val[k]
	}
}

// RowNormSq returns ||a_i||^2.
func (a *Sparse) RowNormSq(i int) float64 {
	var s float64
	for k := a.Ptr[i]; k < a.Ptr[i+1]; k++ {
		s += a.Val[k] * a.Val[k]
	}
	return s
}

// Slice returns rows lo..hi-1 as a Sparse matrix sharing a's storage.
func (a *Sparse) Slice(lo, hi int) Sparse {
	ptr := make([]int, hi-lo+1)
	for i := range ptr {
		ptr[i] = a.Ptr[lo+i] - a.Ptr[lo]
	}
	return Sparse{Cols: a.Cols, Ptr: ptr, Idx: a.Idx[a.Ptr[lo]:a.Ptr[hi]], Val: a.Val[a.Ptr[lo]:a.Ptr[hi]]}
}

// Row returns a copy of row i as a dense vector.
func (a *Sparse) Row(i int) []float64 {
	r := make([]float64, a.Cols)
	a.AddRow(i, 1, r)
	return r
}

// Linear is the affine constraint mapping c(x) = A x - B of Rows m.
type Linear struct {
	A Sparse
	B []float64
}

// NewLinear returns c(x) = A x - b, checking the sizes.
func NewLinear(a Sparse, b []float64) (*Linear, error) {
	if a.Rows() != len(b) {
		return nil, fmt.Errorf("constrlogistic: linear constraints: %d rows, %d right-hand sides", a.Rows(), len(b))
	}
	return &Linear{A: a, B: b}, nil
}

// Len implements Constraints.
func (l *Linear) Len() int { return len(l.B) }

// Eval implements Constraints: out_i = a_i^T x - b_i.
func (l *Linear) Eval(x, out []float64) {
	for i := range l.B {
		out[i] = l.A.Dot(i, x) - l.B[i]
	}
}

// AddJacT implements Constraints: g += scale A^T v.
func (l *Linear) AddJacT(_, v []float64, scale float64, g []float64) {
	for i, vi := range v {
		if vi != 0 {
			l.A.AddRow(i, scale*vi, g)
		}
	}
}

// LipGradSq implements Constraints: for affine c_i, L_{c_i} = ||a_i|| and
// L_{grad c_i} = 0, so (7) is sum_i ||a_i||^2 = ||A||_F^2.
func (l *Linear) LipGradSq() float64 {
	var s float64
	for i := range l.B {
		s += l.A.RowNormSq(i)
	}
	return s
}

// SpectralNorm returns ||A||_2, the largest singular value of A.
func (l *Linear) SpectralNorm() float64 {
	m, n := l.A.Rows(), l.A.Cols
	d := mat.NewDense(m, n, nil)
	for i := range m {
		for k := l.A.Ptr[i]; k < l.A.Ptr[i+1]; k++ {
			d.Set(i, l.A.Idx[k], l.A.Val[k])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(d, mat.SVDNone) {
		return math.Sqrt(l.LipGradSq()) // ||A||_2 <= ||A||_F
	}
	return svd.Values(nil)[0]
}
