package regression

import (
	"math"
	"math/rand/v2"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Data generation. Every random number comes from key's PCG source of
// the stream graph.StreamProblem in round 0, graph.StreamProblem.Rand(seed,
// 0, key) = PCG(Hash(seed, 0, StreamProblem, key, 0), Hash(seed, 0,
// StreamProblem, key, 1)), where key is the agent id i for agent i's data
// and the reserved key below for x_true, which all agents share (package
// objective reserves math.MaxUint64 - 1 for the starts of its multistart
// solve). Any process that knows (Params, N, seed) therefore rebuilds the
// same problem.
//
// Generative model (h = Heterogeneity, sigma = Noise, n = Dim):
//
//	x_true ~ N(0, I_n)                       common to all agents
//	x_i    = x_true + h u_i,   u_i ~ N(0, I_n)
//	a_k    = (g_k + h s_i)/sqrt(n),  g_k, s_i ~ N(0, I_n)
//	least_squares:        b_k = a_k^T x_i + sigma e_k,  e_k ~ N(0, 1)
//	logistic:             y_k = sign(a_k^T x_i), flipped with probability sigma
//	nonconvex_regression: b_k as least_squares, except that a fraction
//	                      Outliers of the rows get b_k ~ N(0, 10^2)
//
// so the local minimizers differ across agents when h > 0.

// keyTruth is the reserved Hash key of x_true (agent ids are small).
const keyTruth = math.MaxUint64

// outlierStd is the standard deviation of an outlier target.
const outlierStd = 10

// source returns the PCG generator for Hash key key of the run seed.
func source(seed, key uint64) *rand.Rand {
	return graph.StreamProblem.Rand(seed, 0, key)
}

// groundTruth returns x_true in R^n.
func groundTruth(seed uint64, n int) []float64 {
	rng := source(seed, keyTruth)
	x := make([]float64, n)
	for j := range x {
		x[j] = rng.NormFloat64()
	}
	return x
}

// generate draws agent i's rows following the model above: m rows a_k in
// R^n stored row-major in A (row k is A[k*n:(k+1)*n]) and the targets b_k
// (labels +-1 for logistic).
func generate(spec Params, seed uint64, xTrue []float64, i int) objective.Shard {
	n, m, h := spec.Dim, spec.SamplesPerAgent, spec.Heterogeneity
	rng := source(seed, uint64(i))
	xi := make([]float64, n)
	shift := make([]float64, n)
	for j := range xi {
		xi[j] = xTrue[j] + float64(h*rng.NormFloat64())
	}
	for j := range shift {
		shift[j] = h * rng.NormFloat64()
	}
	s := objective.Shard{Dim: n, A: make([]float64, m*n), B: make([]float64, m)}
	inv := 1 / math.Sqrt(float64(n))
	for k := range m {
		a := s.A[k*n : (k+1)*n : (k+1)*n]
		var z float64
		for j := range a {
			a[j] = (rng.NormFloat64() + shift[j]) * inv
			z += float64(a[j] * xi[j])
		}
		switch spec.Kind {
		case objective.KindLogistic:
			y := 1.0
			if z < 0 {
				y = -1
			}
			if rng.Float64() < spec.Noise {
				y = -y
			}
			s.B[k] = y
		case objective.KindNonconvex:
			e := rng.NormFloat64()
			if rng.Float64() < spec.Outliers {
				s.B[k] = outlierStd * e
			} else {
				s.B[k] = z + float64(spec.Noise*e)
			}
		default:
			s.B[k] = z + float64(spec.Noise*rng.NormFloat64())
		}
	}
	return s
}
