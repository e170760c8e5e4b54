package regression

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

func benchLocal(b *testing.B, kind string, n int) (objective.Local, []float64, []float64) {
	spec := Params{Kind: kind, Dim: n, SamplesPerAgent: 1000, Batch: 10, Noise: 0.1, Reg: 0.01, Heterogeneity: 0.5, Box: Unbounded}
	if kind == objective.KindNonconvex {
		spec.Scale = 1
	}
	f, err := NewLocal(spec, 4, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, n)
	for k := range x {
		x[k] = 0.1 * float64(k%7)
	}
	return f, x, make([]float64, n)
}

// BenchmarkStochGrad measures one minibatch gradient (b = 10 rows).
func BenchmarkStochGrad(b *testing.B) {
	for _, kind := range []string{objective.KindLeastSquares, objective.KindLogistic, objective.KindNonconvex} {
		for _, n := range []int{10, 100} {
			b.Run(fmt.Sprintf("%s/n=%d", kind, n), func(b *testing.B) {
				f, x, g := benchLocal(b, kind, n)
				rng := rand.New(rand.NewPCG(1, 2))
				b.ReportAllocs()
				for b.Loop() {
					f.StochGrad(x, g, rng)
				}
			})
		}
	}
}

// BenchmarkGrad measures one full local gradient over m = 1000 rows.
func BenchmarkGrad(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			f, x, g := benchLocal(b, objective.KindLeastSquares, n)
			b.ReportAllocs()
			for b.Loop() {
				f.Grad(x, g)
			}
		})
	}
}

// BenchmarkNew measures building a problem with its reference optimum.
func BenchmarkNew(b *testing.B) {
	for _, kind := range []string{objective.KindLeastSquares, objective.KindLogistic, objective.KindNonconvex} {
		b.Run(kind, func(b *testing.B) {
			spec := Params{Kind: kind, Dim: 50, SamplesPerAgent: 200, Batch: 10, Noise: 0.1, Reg: 0.01, Heterogeneity: 0.5, Box: registry.Interval{-0.5, 0.5}}
			if kind == objective.KindNonconvex {
				spec.Scale = 1
			}
			for b.Loop() {
				if _, err := New(spec, 20, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
