// Package agenttest holds what the algorithm packages' tests share to
// set up a run: their agents' starting points. It is imported by tests
// only.
package agenttest

import "math/rand/v2"

// StartPoints returns N initial points in R^n, each entry uniform in
// [-spread, spread], drawn from PCG(seed, 5) in agent then coordinate
// order.
func StartPoints(N, n int, spread float64, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 5))
	x0 := make([][]float64, N)
	for i := range x0 {
		x0[i] = make([]float64, n)
		for k := range x0[i] {
			x0[i][k] = spread * (2*rng.Float64() - 1)
		}
	}
	return x0
}
