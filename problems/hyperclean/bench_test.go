package hyperclean

import (
	"math/rand/v2"
	"testing"
)

// mnistLikeSet returns 5,000 samples of 784 features with MNIST's density
// of nonzero pixels (about 19%) and 10 classes.
func mnistLikeSet(b *testing.B) *Set {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, dim = 5000, 784
	rows := make([]float64, n*dim)
	for i := range rows {
		if rng.Float64() < 0.19 {
			rows[i] = rng.Float64()
		}
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(10)
	}
	s, err := NewSet(rows, dim, labels, 10)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkWeightedLoss measures one full-batch value and gradient (x and
// y) of the lower-level loss over 5,000 samples: the sparse kernels the
// oracles use, and the dense gonum products of the reference.
func BenchmarkWeightedLoss(b *testing.B) {
	s := mnistLikeSet(b)
	rng := rand.New(rand.NewPCG(2, 2))
	x := randVec(rng, s.Len(), 1)
	y := randVec(rng, s.ModelDim(), 0.01)
	gx := make([]float64, s.Len())
	gy := make([]float64, s.ModelDim())
	b.Run("sparse", func(b *testing.B) {
		w := NewWeightedLoss(s)
		for b.Loop() {
			w.cached = false
			w.ValueGrad(x, y, gx, gy)
		}
	})
	b.Run("dense-gonum", func(b *testing.B) {
		for b.Loop() {
			denseWeighted(s, x, y)
		}
	})
}
