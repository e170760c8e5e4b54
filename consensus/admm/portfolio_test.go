package admm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// smallPortfolio draws a small instance for the tests.
func smallPortfolio(t *testing.T, assets, periods int, cov float64, seed uint64) *Portfolio {
	t.Helper()
	rets, err := GenerateReturns(ReturnsConfig{Assets: assets, Periods: periods, Cov: cov, MeanHi: 0.1}, rand.New(rand.NewPCG(seed, 7)))
	if err != nil {
		t.Fatalf("GenerateReturns: %v", err)
	}
	p, err := NewPortfolio(rets)
	if err != nil {
		t.Fatalf("NewPortfolio: %v", err)
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

func TestInnerJacobianMatchesProducts(t *testing.T) {
	p := smallPortfolio(t, 5, 12, 3, 4)
	d := p.Dims()
	rng := rand.New(rand.NewPCG(5, 6))
	x, u := randVec(rng, d.D), randVec(rng, d.R)
	jac := make([]float64, d.R*d.D)
	got := make([]float64, d.D)
	for j := range d.M {
		p.InnerJacobian(j, x, jac)
		p.InnerJacT(j, x, u, got)
		want := mat.NewVecDense(d.D, nil)
		want.MulVec(mat.NewDense(d.R, d.D, jac).T(), mat.NewVecDense(d.R, u))
		for k := range got {
			if math.Abs(got[k]-want.AtVec(k)) > 1e-12 {
				t.Fatalf("j=%d: (dg_j)^T u [%d] = %v, dense product %v", j, k, got[k], want.AtVec(k))
			}
		}
		// g_j is linear: g_j(x) = dg_j x.
		gj := make([]float64, d.R)
		p.Inner(j, x, gj)
		lin := mat.NewVecDense(d.R, nil)
		lin.MulVec(mat.NewDense(d.R, d.D, jac), mat.NewVecDense(d.D, x))
		for k := range gj {
			if math.Abs(gj[k]-lin.AtVec(k)) > 1e-12 {
				t.Fatalf("j=%d: g_j(x)[%d] = %v, dg_j x = %v", j, k, gj[k], lin.AtVec(k))
			}
		}
		// The stacked form: dg_j = [I; B_j] with B_j the tail rows.
		tail := make([]float64, (d.R-d.D)*d.D)
		p.InnerJacobianTail(j, x, tail)
		for row := range d.R {
			for k := range d.D {
				want := 0.0
				switch {
				case row >= d.D:
					want = tail[(row-d.D)*d.D+k]
				case row == k:
					want = 1
				}
				if jac[row*d.D+k] != want {
					t.Fatalf("j=%d: dg_j[%d][%d] = %v, stacked form gives %v", j, row, k, jac[row*d.D+k], want)
				}
			}
		}
	}
}

func TestSolveIsOptimal(t *testing.T) {
	for _, mu := range []float64{0, 0.01, 1} {
		p := smallPortfolio(t, 10, 200, 5, 8)
		sol, err := p.Solve(Ridge{Mu: mu})
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
			direct := Value(p, x) + Ridge{Mu: mu}.Value(x) - sol.Value
			if gap := sol.Gap(x); math.Abs(gap-direct) > 1e-9*(1+direct) || gap <= 0 {
				t.Errorf("mu=%v: Gap = %v, P(x) - P* = %v", mu, gap, direct)
			}
		}
	}
}

func TestGenerateReturns(t *testing.T) {
	cfg := ReturnsConfig{Assets: 4, Periods: 40000, Cov: 10, MeanHi: 0.5}
	a, err := GenerateReturns(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GenerateReturns(cfg, rand.New(rand.NewPCG(1, 1)))
	if !mat.Equal(a, b) {
		t.Fatal("same seed gave different rewards")
	}
	p, err := NewPortfolio(a)
	if err != nil {
		t.Fatal(err)
	}
	var es mat.EigenSym
	if !es.Factorize(p.cov, false) {
		t.Fatal("eigendecomposition failed")
	}
	ev := es.Values(nil)
	if lo, hi := ev[0], ev[len(ev)-1]; math.Abs(hi-1) > 0.05 || math.Abs(lo-0.1) > 0.01 {
		t.Errorf("sample covariance spectrum [%v, %v], want about [1/cov, 1] = [0.1, 1]", lo, hi)
	}

	for _, bad := range []ReturnsConfig{
		{Assets: 0, Periods: 10, Cov: 2},
		{Assets: 3, Periods: 1, Cov: 2},
		{Assets: 3, Periods: 10, Cov: 0.5},
		{Assets: 3, Periods: 10, Cov: math.NaN()},
		{Assets: 3, Periods: 10, Cov: 2, MeanHi: -1},
	} {
		if _, err := GenerateReturns(bad, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("GenerateReturns(%+v) accepted a bad config", bad)
		}
	}
	if _, err := NewPortfolio(mat.NewDense(1, 3, nil)); err == nil {
		t.Error("NewPortfolio accepted a single period")
	}
}
