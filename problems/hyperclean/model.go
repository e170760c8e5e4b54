package hyperclean

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Set is a labelled sample set for the linear softmax model: the rows of A
// are the samples a_k = (pixels, 1), the last column the constant 1 of the
// bias, and Labels[k] in 0..Classes-1.
//
// Besides the dense A, a Set keeps A in compressed sparse rows (MNIST
// images are about 19% ink), which the oracles use: a full-batch gradient
// over 5,000 samples then costs about 2 nnz(A) C multiply-adds instead of
// 2 n (d+1) C (see BenchmarkWeightedLoss; the dense gonum products are
// kept as the reference the sparse kernels are tested against).
type Set struct {
	A       *mat.Dense
	Labels  []int
	Classes int

	// CSR form of A: row k has the nonzeros val[ptr[k]:ptr[k+1]] in
	// columns col[ptr[k]:ptr[k+1]], ascending.
	ptr []int
	col []int32
	val []float64
}

// NewSet returns the set of n = len(labels) samples whose features are
// rows[k*dim:(k+1)*dim] (floats, for MNIST pixels scaled to [0, 1]), with a
// bias column appended.
func NewSet(rows []float64, dim int, labels []int, classes int) (*Set, error) {
	n := len(labels)
	if dim <= 0 || classes < 2 || n == 0 || len(rows) != n*dim {
		return nil, fmt.Errorf("hyperclean: set of %d labels, %d features per sample, %d classes and %d values (want n*dim)", n, dim, classes, len(rows))
	}
	a := mat.NewDense(n, dim+1, nil)
	raw := a.RawMatrix()
	for k := range n {
		r := raw.Data[k*raw.Stride : k*raw.Stride+dim+1]
		copy(r, rows[k*dim:(k+1)*dim])
		r[dim] = 1
	}
	for k, l := range labels {
		if l < 0 || l >= classes {
			return nil, fmt.Errorf("hyperclean: label %d of sample %d outside 0..%d", l, k, classes-1)
		}
	}
	s := &Set{A: a, Labels: append([]int(nil), labels...), Classes: classes}
	s.compress()
	return s, nil
}

// compress builds the CSR form of A.
func (s *Set) compress() {
	raw := s.A.RawMatrix()
	s.ptr = make([]int, raw.Rows+1)
	s.col, s.val = s.col[:0], s.val[:0]
	for k := range raw.Rows {
		for j, v := range raw.Data[k*raw.Stride : k*raw.Stride+raw.Cols] {
			if v != 0 {
				s.col = append(s.col, int32(j))
				s.val = append(s.val, v)
			}
		}
		s.ptr[k+1] = len(s.val)
	}
}

// logits writes Z = A W^T (n x C, row-major with stride C) from wt = W^T
// (Features x C, row-major), using the CSR form of A.
func (s *Set) logits(wt, z []float64) {
	c := s.Classes
	if c == numClasses {
		// Fixed-size rows let the compiler drop the bounds checks of the
		// inner loop, the hot spot of every oracle.
		for k := range s.Labels {
			zk := (*[numClasses]float64)(z[k*c:])
			*zk = [numClasses]float64{}
			for p := s.ptr[k]; p < s.ptr[k+1]; p++ {
				v := s.val[p]
				w := (*[numClasses]float64)(wt[int(s.col[p])*c:])
				for i := range zk {
					zk[i] += v * w[i]
				}
			}
		}
		return
	}
	for k := range s.Labels {
		zk := z[k*c : (k+1)*c : (k+1)*c]
		clear(zk)
		for p := s.ptr[k]; p < s.ptr[k+1]; p++ {
			v := s.val[p]
			w := wt[int(s.col[p])*c : int(s.col[p])*c+c : int(s.col[p])*c+c]
			for i := range zk {
				zk[i] += v * w[i]
			}
		}
	}
}

// adjoint writes gt = R^T A transposed, i.e. gt = A^T R (Features x C,
// row-major), from R (n x C, row-major), using the CSR form of A.
func (s *Set) adjoint(r, gt []float64) {
	c := s.Classes
	clear(gt)
	if c == numClasses {
		for k := range s.Labels {
			rk := (*[numClasses]float64)(r[k*c:])
			for p := s.ptr[k]; p < s.ptr[k+1]; p++ {
				v := s.val[p]
				g := (*[numClasses]float64)(gt[int(s.col[p])*c:])
				for i, t := range rk {
					g[i] += v * t
				}
			}
		}
		return
	}
	for k := range s.Labels {
		rk := r[k*c : (k+1)*c : (k+1)*c]
		for p := s.ptr[k]; p < s.ptr[k+1]; p++ {
			v := s.val[p]
			g := gt[int(s.col[p])*c : int(s.col[p])*c+c : int(s.col[p])*c+c]
			for i, t := range rk {
				g[i] += v * t
			}
		}
	}
}

// transposeInto writes the transpose of the r x c row-major matrix a into
// dst (c x r row-major).
func transposeInto(dst, a []float64, r, c int) {
	for i := range r {
		for j := range c {
			dst[j*r+i] = a[i*c+j]
		}
	}
}

// Len is the number of samples.
func (s *Set) Len() int { return len(s.Labels) }

// Features is the width of A (features plus the bias column).
func (s *Set) Features() int { _, c := s.A.Dims(); return c }

// ModelDim is the dimension of the model y = vec(W), W in
// R^{Classes x Features} row-major: y[c*Features + j] = W[c, j].
func (s *Set) ModelDim() int { return s.Classes * s.Features() }

// rows returns the set restricted to samples lo..hi-1 (views of A and of
// its CSR form).
func (s *Set) rows(lo, hi int) *Set {
	ptr := make([]int, hi-lo+1)
	for k := range ptr {
		ptr[k] = s.ptr[lo+k] - s.ptr[lo]
	}
	return &Set{
		A: s.A.Slice(lo, hi, 0, s.Features()).(*mat.Dense), Labels: s.Labels[lo:hi], Classes: s.Classes,
		ptr: ptr, col: s.col[s.ptr[lo]:s.ptr[hi]], val: s.val[s.ptr[lo]:s.ptr[hi]],
	}
}

// softmaxCE evaluates the model y = vec(W) on the set: with wt = W^T
// (scratch of ModelDim values), logits Z = A W^T (n x C, row-major in z),
// then for every sample k the cross entropy ce[k] = log sum_c exp Z[k,c] -
// Z[k, l_k], and overwrites Z with the residual P - E (softmax
// probabilities minus the one-hot labels), the derivative of ce[k] with
// respect to Z[k, .].
func softmaxCE(s *Set, y, wt, z, ce []float64) {
	c := s.Classes
	transposeInto(wt, y, c, s.Features())
	s.logits(wt, z)
	for k, l := range s.Labels {
		row := z[k*c : (k+1)*c : (k+1)*c]
		m := row[0]
		for _, v := range row[1:] {
			m = math.Max(m, v)
		}
		var sum float64
		for i, v := range row {
			e := math.Exp(v - m)
			row[i] = e
			sum += e
		}
		// log sum exp - z_l = m + log(sum) - z_l, and z_l - m = log(row[l]).
		ce[k] = math.Log(sum) - math.Log(row[l])
		inv := 1 / sum
		for i := range row {
			row[i] *= inv
		}
		row[l]--
	}
}

// gradModel writes y-gradient gy = vec(R^T A) (C x Features, row-major)
// from the residuals r (n x C), using gt as scratch.
func gradModel(s *Set, r, gt, gy []float64) {
	s.adjoint(r, gt)
	transposeInto(gy, gt, s.Features(), s.Classes)
}

// Accuracy returns the fraction of samples of s whose label is the argmax
// (the first, on ties) of the logits W a_k of the model y.
func Accuracy(s *Set, y []float64) (float64, error) {
	if len(y) != s.ModelDim() {
		return 0, fmt.Errorf("hyperclean: model of length %d, the set needs %d", len(y), s.ModelDim())
	}
	z := make([]float64, s.Len()*s.Classes)
	wt := make([]float64, len(y))
	transposeInto(wt, y, s.Classes, s.Features())
	s.logits(wt, z)
	hits := 0
	for k, l := range s.Labels {
		row := z[k*s.Classes : (k+1)*s.Classes]
		best := 0
		for i, v := range row {
			if v > row[best] {
				best = i
			}
		}
		if best == l {
			hits++
		}
	}
	return float64(hits) / float64(s.Len()), nil
}

// F1 returns the F1 score of the detection "sample i is clean iff
// x_i >= 0" against the truth clean, clean samples being the positive
// class: with TP, FP, FN the true positives, false positives and false
// negatives, precision = TP/(TP+FP), recall = TP/(TP+FN) and F1 =
// 2 precision recall/(precision + recall) = 2TP/(2TP + FP + FN); it is 0
// when TP = 0.
func F1(x []float64, clean []bool) (float64, error) {
	if len(x) != len(clean) {
		return 0, fmt.Errorf("hyperclean: %d weights for %d samples", len(x), len(clean))
	}
	var tp, fp, fn int
	for i, v := range x {
		pred := v >= 0
		switch {
		case pred && clean[i]:
			tp++
		case pred && !clean[i]:
			fp++
		case !pred && clean[i]:
			fn++
		}
	}
	if tp == 0 {
		return 0, nil
	}
	return 2 * float64(tp) / float64(2*tp+fp+fn), nil
}
