package objective

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// samples is an agent's data: m rows a_k in R^n stored row-major in A
// (row k is A[k*n:(k+1)*n]) and the targets b_k (labels +-1 for logistic).
type samples struct {
	n, m int
	A    []float64
	b    []float64
}

// row returns a_k.
func (s *samples) row(k int) []float64 { return s.A[k*s.n : (k+1)*s.n : (k+1)*s.n] }

// glm is agent i's local objective over its m rows,
//
//	f_i(x) = (1/m) sum_k ell(a_k^T x, b_k) + R(x),
//
// which covers least squares, regularized logistic regression and the
// Cauchy regression with saturating penalty. It holds no scratch: the
// oracles only read the data, so one glm may be used from several
// goroutines at once, each with its own rng. Value, Grad and StochGrad do
// not allocate; their inner products and updates are dot and axpy, which
// give the same bits on every architecture.
type glm struct {
	samples
	loss  loss
	reg   regularizer
	batch int
	lip   float64
}

// newGLM builds the local objective and its Lipschitz constant
// L_i = max|ell”| lambda_max(A^T A/m) + Lip(grad R).
func newGLM(s samples, l loss, r regularizer, batch int) (*glm, error) {
	lmax, err := gramLambdaMax(s)
	if err != nil {
		return nil, err
	}
	return &glm{samples: s, loss: l, reg: r, batch: batch, lip: float64(l.maxCurv()*lmax) + r.lipschitz()}, nil
}

// Dim is n.
func (f *glm) Dim() int { return f.n }

// Value returns f_i(x).
func (f *glm) Value(x []float64) float64 {
	var s float64
	for k := range f.m {
		s += f.loss.value(dot(f.row(k), x), f.b[k])
	}
	return s/float64(f.m) + f.reg.value(x)
}

// Grad writes grad f_i(x) = (1/m) sum_k ell'(a_k^T x, b_k) a_k + grad R(x)
// into g.
func (f *glm) Grad(x, g []float64) {
	g = g[:f.n]
	clear(g)
	inv := 1 / float64(f.m)
	for k := range f.m {
		a := f.row(k)
		axpy(g, inv*f.loss.deriv(dot(a, x), f.b[k]), a)
	}
	f.reg.addGrad(x, g)
}

// StochGrad writes (1/b) sum_{k in B} ell'(a_k^T x, b_k) a_k + grad R(x)
// into g, where the minibatch B holds b rows drawn uniformly with
// replacement, so the estimate is unbiased. It returns b.
func (f *glm) StochGrad(x, g []float64, rng *rand.Rand) int {
	g = g[:f.n]
	clear(g)
	inv := 1 / float64(f.batch)
	for range f.batch {
		k := rng.IntN(f.m)
		a := f.row(k)
		axpy(g, inv*f.loss.deriv(dot(a, x), f.b[k]), a)
	}
	f.reg.addGrad(x, g)
	return f.batch
}

// Smoothness returns L_i.
func (f *glm) Smoothness() float64 { return f.lip }

// addHess adds w times the Hessian
// (1/m) sum_k ell”(a_k^T x, b_k) a_k a_k^T + diag(R”(x_j)) to the upper
// triangle of h.
func (f *glm) addHess(x []float64, w float64, h *mat.SymDense) {
	raw := h.RawSymmetric()
	inv := w / float64(f.m)
	for k := range f.m {
		a := f.row(k)
		c := inv * f.loss.curv(dot(a, x), f.b[k])
		for p, ap := range a {
			axpy(raw.Data[p*raw.Stride+p:p*raw.Stride+f.n], c*ap, a[p:])
		}
	}
	for j, v := range x {
		raw.Data[j*raw.Stride+j] += float64(w * f.reg.curv(v))
	}
}

// gramLambdaMax returns lambda_max(A^T A/m), computed from the smaller of
// the Gram matrices A^T A (n x n) and A A^T (m x m), which share their
// nonzero eigenvalues. The Gram matrix is summed with rounded products in
// a fixed order and its eigenvalue taken by graph.SymEigenvalue, so L_i,
// and every step size derived from it, has the same bits on every
// architecture.
func gramLambdaMax(s samples) (float64, error) {
	inv := 1 / float64(s.m)
	var g *mat.SymDense
	if s.n <= s.m {
		// (A^T A)_pq = sum_k a_kp a_kq, accumulated row by row.
		raw := make([]float64, s.n*s.n)
		for k := range s.m {
			a := s.row(k)
			for p, ap := range a {
				if ap != 0 { // a zero row entry adds +-0: skip it (sparse data)
					axpy(raw[p*s.n+p:(p+1)*s.n], ap, a[p:])
				}
			}
		}
		for i := range raw {
			raw[i] *= inv
		}
		g = mat.NewSymDense(s.n, raw)
	} else {
		raw := make([]float64, s.m*s.m)
		for k := range s.m {
			for l := k; l < s.m; l++ {
				raw[k*s.m+l] = dot(s.row(k), s.row(l)) * inv
			}
		}
		g = mat.NewSymDense(s.m, raw)
	}
	return symLambdaMax(g)
}

// Samples returns the data of a generated or given local objective f_i:
// its m rows a_k in R^n (row-major in A) and targets b_k, as the oracles
// read them (for least squares from given data with row weighting, the
// rows carry the weight sqrt(w_i), see FromShards). ok is false for a
// Local that is not a generalized linear model of this package. The
// slices are the objective's own: do not modify them.
func Samples(f Local) (A, b []float64, n int, ok bool) {
	g, ok := f.(*glm)
	if !ok {
		return nil, nil, 0, false
	}
	return g.A, g.b, g.n, true
}
