package admm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/problems/portfolio"
)

// smallPortfolio draws a small instance for the tests.
func smallPortfolio(t *testing.T, assets, periods int, cov float64, seed uint64) *portfolio.Portfolio {
	t.Helper()
	rets, err := portfolio.GenerateReturns(portfolio.ReturnsConfig{Assets: assets, Periods: periods, Cov: cov, MeanHi: 0.1}, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatalf("GenerateReturns: %v", err)
	}
	p, err := portfolio.New(rets)
	if err != nil {
		t.Fatalf("portfolio.New: %v", err)
	}
	return p
}

func randVec(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for k := range x {
		x[k] = rng.NormFloat64()
	}
	return x
}

func TestCompositionMatchesClosedForm(t *testing.T) {
	for _, tc := range []struct {
		name            string
		assets, periods int
		cov             float64
	}{
		{"cov2", 6, 40, 2},
		{"cov10", 8, 25, 10},
		{"one-asset", 1, 10, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := smallPortfolio(t, tc.assets, tc.periods, tc.cov, 1)
			rng := rand.New(rand.NewPCG(2, 3))
			x := randVec(rng, tc.assets)

			if got, want := Value(p, x), p.Objective(x); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("composition F(x) = %v, closed form %v", got, want)
			}
			got := make([]float64, tc.assets)
			want := make([]float64, tc.assets)
			Gradient(p, x, got)
			p.ObjectiveGrad(x, want)
			for k := range got {
				if math.Abs(got[k]-want[k]) > 1e-11*(1+math.Abs(want[k])) {
					t.Errorf("grad F[%d]: composition %v, closed form %v", k, got[k], want[k])
				}
			}
			// Central finite differences of the composition value.
			const h = 1e-6
			for k := range x {
				xp := append([]float64(nil), x...)
				xm := append([]float64(nil), x...)
				xp[k] += h
				xm[k] -= h
				fd := (Value(p, xp) - Value(p, xm)) / (2 * h)
				if math.Abs(fd-got[k]) > 1e-6*(1+math.Abs(fd)) {
					t.Errorf("grad F[%d] = %v, finite difference %v", k, got[k], fd)
				}
			}
		})
	}
}

func TestSolveIsOptimal(t *testing.T) {
	for _, mu := range []float64{0, 0.01, 1} {
		p := smallPortfolio(t, 10, 200, 5, 8)
		sol, err := p.Solve(portfolio.Ridge{Mu: mu})
		if err != nil {
			t.Fatalf("mu=%v: Solve: %v", mu, err)
		}
		g := make([]float64, len(sol.X))
		Gradient(p, sol.X, g) // from the composition oracles
		var norm float64
		for k := range g {
			r := g[k] + mu*sol.X[k]
			norm += r * r
		}
		if math.Sqrt(norm) > 1e-10 {
			t.Errorf("mu=%v: ||grad P(x*)|| = %v, want ~0", mu, math.Sqrt(norm))
		}
		rng := rand.New(rand.NewPCG(9, 9))
		for range 5 {
			x := randVec(rng, len(sol.X))
			direct := Value(p, x) + portfolio.Ridge{Mu: mu}.Value(x) - sol.Value
			if gap := sol.Gap(x); math.Abs(gap-direct) > 1e-9*(1+direct) || gap <= 0 {
				t.Errorf("mu=%v: Gap = %v, P(x) - P* = %v", mu, gap, direct)
			}
		}
	}
}
