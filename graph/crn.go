package graph

import (
	"math"
	"math/rand/v2"
)

// Common randomness. Every random choice in a run is a pure function of
// (run seed, round, draw, ids), computed by a counter-based hash, so both
// endpoints of an edge reach the same answer without talking, nothing
// central decides, and a run replays exactly.

// Draw indices of the ALM's three independent edge draws per round
// (zeta_0 for the dual update, zeta_1 and zeta_2 for the A^T y and
// rho A^T A x terms), and of per-agent stochastic sampling. They are the
// int forms of StreamDual ... StreamSample, for EdgeProcess.Active's draw
// argument; every other draw value is a Stream of the registry in
// streams.go.
const (
	DrawDual    = 0 // zeta_0
	DrawAdjoint = 1 // zeta_1
	DrawPenalty = 2 // zeta_2
	DrawSample  = 3 // xi: stochastic gradient samples
)

// mix is the SplitMix64 finaliser: a bijection on uint64 with full
// avalanche.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Hash returns a 64-bit hash of (seed, round, draw, a, b). It is a chain of
// SplitMix64 rounds, so distinct inputs give independent-looking outputs.
func Hash(seed uint64, round, draw, a, b uint64) uint64 {
	h := mix(seed)
	h = mix(h ^ round)
	h = mix(h ^ (draw + 0x632be59bd9b4e019))
	h = mix(h ^ a)
	return mix(h ^ (b + 0x85157af5d8dfae03))
}

// Uniform returns a number in [0, 1) derived from Hash(seed, round, draw,
// a, b), with 53 random bits.
func Uniform(seed uint64, round, draw, a, b uint64) float64 {
	return float64(Hash(seed, round, draw, a, b)>>11) * 0x1p-53
}

// Exponential returns the quantile u in [0, 1) of the exponential
// distribution with the given mean: -mean ln(1 - u). With u from Uniform
// it is an exponential draw that every party computing the same u agrees
// on.
func Exponential(u, mean float64) float64 {
	return -mean * math.Log1p(-u)
}

// SeedSample seeds pcg with agent i's stream of stochastic samples xi for
// round t: PCG(Hash(seed, t, DrawSample, i, 0), Hash(seed, t, DrawSample,
// i, 1)). An agent and every reference of it draw the same samples by
// seeding through this one rule.
func SeedSample(pcg *rand.PCG, seed uint64, t, i int) {
	StreamSample.Seed(pcg, seed, uint64(t), uint64(i))
}
