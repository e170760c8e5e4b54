package problem

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// symLambdaMax returns the largest eigenvalue of the symmetric matrix s.
func symLambdaMax(s *mat.SymDense) (float64, error) {
	var es mat.EigenSym
	if !es.Factorize(s, false) {
		return 0, errors.New("symmetric eigendecomposition did not converge")
	}
	return floats.Max(es.Values(nil)), nil
}

// naturalResidual returns ||x - proj_X(x - g)||_2, the KKT residual of
// min_{x in X} f(x) at x with g = grad f(x): it is zero exactly at the
// stationary points of f over X, and equals ||g|| when X = R^n.
func naturalResidual(b Box, x, g []float64) float64 {
	var s float64
	for k, v := range x {
		d := v - math.Min(math.Max(v-g[k], b.Lo), b.Hi)
		s += d * d
	}
	return math.Sqrt(s)
}
