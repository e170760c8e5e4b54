package dadmm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/problems/portfolio"
)

// TestPortfolioProblemOptimum checks x* of portfolio.Central against the
// independent solve of consensusOptimum (Hessian read off the composition
// oracle), that grad f(x*) = 0, that f* = f(x*), and that one shard gives
// portfolio.Portfolio.Solve of the whole matrix.
func TestPortfolioProblemOptimum(t *testing.T) {
	const assets, mu = 6, 0.05
	for _, N := range []int{1, 3, 7} {
		shards, whole := portfolioShards(t, N, assets, 90, 4, 11)
		prob, err := portfolio.Central(shards, portfolio.Ridge{Mu: mu})
		if err != nil {
			t.Fatal(err)
		}
		if prob.N() != N || prob.Dim() != assets || !prob.Convex {
			t.Fatalf("N = %d: problem has %d locals of dimension %d, convex %v", N, prob.N(), prob.Dim(), prob.Convex)
		}
		want := consensusOptimum(t, shards, mu)
		if d := dist(prob.XStar, want); d > 1e-9*(1+norm(want)) {
			t.Errorf("N = %d: ||x* - reference|| = %.3g", N, d)
		}
		g, gi := make([]float64, assets), make([]float64, assets)
		for _, f := range prob.Locals {
			f.Grad(prob.XStar, gi)
			for k := range g {
				g[k] += gi[k] / float64(N)
			}
		}
		if n := norm(g); n > 1e-10 {
			t.Errorf("N = %d: ||grad f(x*)|| = %.3g, want 0", N, n)
		}
		if v := prob.Value(prob.XStar); v != prob.FStar {
			t.Errorf("N = %d: f(x*) = %v, FStar = %v", N, v, prob.FStar)
		}
		if N == 1 {
			p, err := portfolio.New(whole)
			if err != nil {
				t.Fatal(err)
			}
			sol, err := p.Solve(portfolio.Ridge{Mu: mu})
			if err != nil {
				t.Fatal(err)
			}
			if d := dist(prob.XStar, sol.X); d > 1e-12*(1+norm(sol.X)) || math.Abs(prob.FStar-sol.Value) > 1e-12*(1+math.Abs(sol.Value)) {
				t.Errorf("one shard: x*, f* differ from Portfolio.Solve by %.3g, %.3g", d, prob.FStar-sol.Value)
			}
		}
	}
}

// TestPortfolioLocal checks P_i's value and gradient against the
// composition oracle plus the ridge, and that Smoothness bounds the
// gradient's Lipschitz ratio and is attained up to 1% along some direction.
func TestPortfolioLocal(t *testing.T) {
	const assets, mu = 5, 0.1
	shards, _ := portfolioShards(t, 2, assets, 60, 8, 3)
	f, err := portfolio.NewLocal(shards[1], portfolio.Ridge{Mu: mu})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := make([]float64, assets), make([]float64, assets)
	gx, gy, want := make([]float64, assets), make([]float64, assets), make([]float64, assets)
	best := 0.0
	for range 200 {
		for k := range x {
			x[k], y[k] = rng.NormFloat64(), rng.NormFloat64()
		}
		v := admm.Value(shards[1], x) + mu/2*sqNorm(x)
		if got := f.Value(x); math.Abs(got-v) > 1e-10*(1+math.Abs(v)) {
			t.Fatalf("Value = %v, composition + ridge = %v", got, v)
		}
		admm.Gradient(shards[1], x, want)
		for k := range want {
			want[k] += mu * x[k]
		}
		if n := f.StochGrad(x, gx, rng); n != shards[1].Dims().M || dist(gx, want) > 1e-10*(1+norm(want)) {
			t.Fatalf("StochGrad = %v (n %d), want %v (n %d)", gx, n, want, shards[1].Dims().M)
		}
		f.Grad(y, gy)
		best = math.Max(best, dist(gx, gy)/dist(x, y))
	}
	if l := f.Smoothness(); best > l*(1+1e-12) || best < 0.5*l {
		t.Errorf("Smoothness = %v, largest observed ratio %v", l, best)
	}
	if _, err := portfolio.NewLocal(nil, portfolio.Ridge{Mu: mu}); err == nil {
		t.Error("portfolio.NewLocal(nil) did not fail")
	}
	if _, err := portfolio.Central(nil, portfolio.Ridge{Mu: mu}); err == nil {
		t.Error("portfolio.Central(nil) did not fail")
	}
}

func sqNorm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}
