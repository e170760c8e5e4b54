package tsp

import (
	"github.com/consim/consim/problems/hyperclean"
	"math"
	"math/rand/v2"
	"testing"
)

// randomSet returns n samples of dim features, about a third of them zero
// and the rest in [0, 1], with random labels in 0..classes-1.
func randomSet(t testing.TB, rng *rand.Rand, n, dim, classes int) *hyperclean.Set {
	t.Helper()
	rows := make([]float64, n*dim)
	for i := range rows {
		if rng.Float64() < 0.35 {
			rows[i] = rng.Float64()
		}
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(classes)
	}
	s, err := hyperclean.NewSet(rows, dim, labels, classes)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// smallCleaning returns a small random hyper-cleaning instance.
func smallCleaning(t testing.TB, seed uint64, m, classes int) *hyperclean.HyperCleaning {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	const dim = 12
	clean := make([]bool, m)
	for i := range clean {
		clean[i] = rng.IntN(2) == 0
	}
	return &hyperclean.HyperCleaning{
		Train: randomSet(t, rng, m, dim, classes), Val: randomSet(t, rng, 30, dim, classes),
		Test: randomSet(t, rng, 40, dim, classes), Clean: clean, RhoBar: 0.05,
	}
}

// maxRel is the largest relative difference |a_i - b_i| / max(1, |b_i|).
func maxRel(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i])/math.Max(1, math.Abs(b[i])))
	}
	return m
}
