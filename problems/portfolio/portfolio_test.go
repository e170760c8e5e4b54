package portfolio

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
	p, err := New(rets)
	if err != nil {
		t.Fatalf("New: %v", err)
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
	p, err := New(a)
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
	if _, err := New(mat.NewDense(1, 3, nil)); err == nil {
		t.Error("New accepted a single period")
	}
}
