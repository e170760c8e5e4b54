package zosplm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/consim/consim/graph"
)

// drawDirection is the draw index of the estimator's random directions in
// graph.Hash, apart from graph's own draws 0..3 and from qcqp.DrawProblem.
const drawDirection = 16

// Dist is the distribution of the estimator's directions D_i.
type Dist int

const (
	// Sphere draws D_i uniformly on the unit sphere S^{n-1} (the paper's
	// experiments): a standard Gaussian vector divided by its norm.
	Sphere Dist = iota
	// Gaussian draws D_i ~ N(0, I_n / n): a standard Gaussian vector
	// divided by sqrt(n).
	Gaussian
)

// String names the distribution as scenarios spell it.
func (d Dist) String() string {
	switch d {
	case Sphere:
		return "sphere"
	case Gaussian:
		return "gaussian"
	}
	return fmt.Sprintf("Dist(%d)", int(d))
}

// ParseDist is the inverse of Dist.String.
func ParseDist(s string) (Dist, error) {
	switch s {
	case "sphere", "":
		return Sphere, nil
	case "gaussian":
		return Gaussian, nil
	}
	return 0, fmt.Errorf("zosplm: direction distribution %q unknown, want sphere or gaussian", s)
}

// RoundKey is the key of iteration t's directions in a run with the given
// seed: graph.Hash(seed, t, drawDirection, 0, 0). It travels in
// consensus.EvalRequest.Key.
func RoundKey(seed uint64, t int) uint64 {
	return graph.Hash(seed, uint64(t), drawDirection, 0, 0)
}

// Directions draws the estimator's directions. Direction i of the
// iteration with key K is a function of (K, i) alone: n standard normals
// from a PCG seeded with graph.Hash(K, i, drawDirection, 1, 0) and
// graph.Hash(K, i, drawDirection, 1, 1), scaled to the unit sphere or by
// 1/sqrt(n). So a chunk of directions needs only K and its index range,
// and the split into chunks does not change any direction. A Directions
// holds its generator and is not safe for concurrent use; its zero value
// is not usable, call NewDirections.
type Directions struct {
	pcg *rand.PCG
	rng *rand.Rand
}

// NewDirections returns a direction generator.
func NewDirections() *Directions {
	pcg := rand.NewPCG(0, 0)
	return &Directions{pcg: pcg, rng: rand.New(pcg)}
}

// Fill writes direction i of key into out (len(out) = n) and returns
// ||out||^2.
func (s *Directions) Fill(key uint64, i int, dist Dist, out []float64) float64 {
	s.pcg.Seed(graph.Hash(key, uint64(i), drawDirection, 1, 0), graph.Hash(key, uint64(i), drawDirection, 1, 1))
	var ss float64
	for j := range out {
		g := s.rng.NormFloat64()
		out[j] = g
		ss += g * g
	}
	var scale float64
	if dist == Gaussian {
		scale = 1 / math.Sqrt(float64(len(out)))
	} else {
		scale = 1 / math.Sqrt(ss)
	}
	ss = 0
	for j, g := range out {
		g *= scale
		out[j] = g
		ss += g * g
	}
	return ss
}
