package alm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// TestConstantsSparse checks the constants of a graph above
// graph.DenseSpectrumMaxN agents (taken from Lanczos, once for a uniform
// p) against the dense eigenvalues of L_{p^2} and L_p, for a uniform and
// a random p.
func TestConstantsSparse(t *testing.T) {
	torus, err := graph.Grid(20, 26, true)
	if err != nil {
		t.Fatal(err)
	}
	uniform, err := torus.WithUniformP(0.5)
	if err != nil {
		t.Fatal(err)
	}
	random, err := torus.WithRandomP(0.2, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*graph.Graph{uniform, random} {
		locals := make([]objective.Local, g.N)
		for i := range locals {
			locals[i] = smooth(2)
		}
		c, err := ConstantsFor(g, locals)
		if err != nil {
			t.Fatal(err)
		}
		evP2 := graph.SymEigenvalues(g.Laplacian(graph.ByP2))
		evP := graph.SymEigenvalues(g.Laplacian(graph.ByP))
		wantA, wantM2 := math.Sqrt(evP2[g.N-1]), evP[g.N-1]
		if math.Abs(c.NormA-wantA) > 1e-9*wantA || math.Abs(c.SecondMoment-wantM2) > 1e-9*wantM2 {
			t.Errorf("||E[A]|| = %.15g, ||E[A^T A]|| = %.15g; dense %.15g, %.15g", c.NormA, c.SecondMoment, wantA, wantM2)
		}
		if want := 2 / float64(g.N); c.Lf != want {
			t.Errorf("L_f = %v, want %v", c.Lf, want)
		}
	}
}

// smooth is a local objective with only a smoothness constant.
type smooth float64

func (s smooth) Dim() int                                   { return 1 }
func (s smooth) Value([]float64) float64                    { return 0 }
func (s smooth) Grad(_, g []float64)                        { clear(g) }
func (s smooth) StochGrad(_, g []float64, _ *rand.Rand) int { clear(g); return 1 }
func (s smooth) Smoothness() float64                        { return float64(s) }
