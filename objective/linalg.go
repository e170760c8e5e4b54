package objective

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/graph"
)

// symLambdaMax returns the largest eigenvalue of the symmetric matrix s,
// with the same bits on every architecture (graph.SymEigenvalue).
func symLambdaMax(s *mat.SymDense) (float64, error) {
	n := s.SymmetricDim()
	if n == 0 {
		return 0, errors.New("largest eigenvalue of an empty matrix")
	}
	return graph.SymEigenvalue(s, n-1)
}

// naturalResidual returns ||x - proj_X(x - g)||_2, the KKT residual of
// min_{x in X} f(x) at x with g = grad f(x): it is zero exactly at the
// stationary points of f over X, and equals ||g|| when X = R^n.
func naturalResidual(b Box, x, g []float64) float64 {
	var s float64
	for k, v := range x {
		d := v - math.Min(math.Max(v-g[k], b.Lo), b.Hi)
		s += float64(d * d)
	}
	return math.Sqrt(s)
}

// dot returns x^T y (len(x) = len(y)) as gonum's amd64 kernel of
// floats.Dot computes it, on every architecture: four partial sums s_r
// over the indices i = r (mod 4) of the longest prefix whose length is a
// multiple of 4, the remaining products added to s_0 in order, and the
// result (s_0 + s_2) + (s_1 + s_3). Every product is rounded before it is
// added (see package graph, "Floating point"). gonum's portable kernel,
// which arm64 runs, sums in another order and may be fused, so the
// oracles on a run's bit path use dot, not floats.Dot.
func dot(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("problem: dot of vectors of different lengths")
	}
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i] * y[i])
		s1 += float64(x[i+1] * y[i+1])
		s2 += float64(x[i+2] * y[i+2])
		s3 += float64(x[i+3] * y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i] * y[i])
	}
	return (s0 + s2) + (s1 + s3)
}

// axpy sets y_i += alpha x_i for every i (len(x) = len(y)), each product
// rounded before the addition: gonum's floats.AddScaled as its amd64
// kernel computes it, on every architecture.
func axpy(y []float64, alpha float64, x []float64) {
	if len(x) != len(y) {
		panic("problem: axpy of vectors of different lengths")
	}
	for i, v := range x {
		y[i] += float64(alpha * v)
	}
}
