package admm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/problems/portfolio"
)

// sameBits reports the first index where a and b differ bit for bit, or
// -1.
func sameBits(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return k
		}
	}
	return -1
}

// TestPortfolioOffersStructuredForms checks that the portfolio problem
// implements the optional forms the counter and the estimator use, and
// that denseOnly hides them.
func TestPortfolioOffersStructuredForms(t *testing.T) {
	p := smallPortfolio(t, 3, 5, 2, 1)
	var c portfolio.Composition = p
	if _, ok := c.(portfolio.StackedInner); !ok {
		t.Error("the portfolio problem does not implement StackedInner")
	}
	if _, ok := c.(portfolio.InnerJacTSummer); !ok {
		t.Error("the portfolio problem does not implement InnerJacTSummer")
	}
	if _, ok := c.(portfolio.OuterGradSummer); !ok {
		t.Error("the portfolio problem does not implement OuterGradSummer")
	}
	if _, ok := c.(portfolio.OuterGradPairer); !ok {
		t.Error("the portfolio problem does not implement OuterGradPairer")
	}
	if _, ok := c.(portfolio.InnerJacTDiffer); !ok {
		t.Error("the portfolio problem does not implement InnerJacTDiffer")
	}
	c = denseOnly{p}
	if _, ok := c.(portfolio.StackedInner); ok {
		t.Error("denseOnly does not hide StackedInner")
	}
	if _, ok := c.(portfolio.InnerJacTSummer); ok {
		t.Error("denseOnly does not hide InnerJacTSummer")
	}
	if _, ok := c.(portfolio.OuterGradSummer); ok {
		t.Error("denseOnly does not hide OuterGradSummer")
	}
	if _, ok := c.(portfolio.OuterGradPairer); ok {
		t.Error("denseOnly does not hide OuterGradPairer")
	}
	if _, ok := c.(portfolio.InnerJacTDiffer); ok {
		t.Error("denseOnly does not hide InnerJacTDiffer")
	}
}

// TestStructuredSumsMatchGeneral compares InnerTails, InnerMean,
// OuterGradMean, JacTMean, OuterGradPair and InnerJacTDiff of the
// portfolio problem with the general forms (InnerJacT, OuterGrad and Inner
// one component at a time) bit for bit, with the same counts, on sizes
// that exercise the four-at-a-time loops and their remainders, and with
// an infinite entry, where a difference of equal products is NaN.
func TestStructuredSumsMatchGeneral(t *testing.T) {
	for _, sz := range []struct{ assets, periods int }{{1, 2}, {3, 5}, {4, 8}, {6, 17}, {9, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz.assets, sz.periods), func(t *testing.T) {
			p := smallPortfolio(t, sz.assets, sz.periods, 3, uint64(sz.periods))
			d := p.Dims()
			rng := rand.New(rand.NewPCG(uint64(sz.assets), 9))
			for range 5 {
				x, y, z, u := randVec(rng, d.D), randVec(rng, d.R), randVec(rng, d.R), randVec(rng, d.R)
				i, j := rng.IntN(d.N), rng.IntN(d.M)
				if rng.IntN(2) == 0 {
					u[rng.IntN(d.R)] = math.Inf(1)
				}

				js := make([]int, rng.IntN(10))
				for b := range js {
					js[b] = rng.IntN(d.M)
				}
				tails := make([]float64, len(js))
				p.InnerTails(x, js, tails)
				gj := make([]float64, d.R)
				for b, j := range js {
					p.Inner(j, x, gj)
					if math.Float64bits(tails[b]) != math.Float64bits(gj[d.D]) {
						t.Fatalf("InnerTails: h_%d(x) = %v, Inner gives %v", j, tails[b], gj[d.D])
					}
				}

				s, g := &OracleCounter{P: p}, &OracleCounter{P: denseOnly{p}}
				for _, op := range []struct {
					name string
					n    int
					run  func(c *OracleCounter, dst []float64)
				}{
					{"InnerMean", d.R, func(c *OracleCounter, dst []float64) { c.InnerMean(x, dst) }},
					{"OuterGradMean", d.R, func(c *OracleCounter, dst []float64) { c.OuterGradMean(y, dst) }},
					{"JacTMean", d.D, func(c *OracleCounter, dst []float64) { c.JacTMean(x, u, dst) }},
					{"OuterGradPair", 2 * d.R, func(c *OracleCounter, dst []float64) {
						c.OuterGradPair(i, y, z, dst[:d.R], dst[d.R:])
					}},
					{"InnerJacTDiff", d.D, func(c *OracleCounter, dst []float64) { c.InnerJacTDiff(j, x, z[:d.D], u, dst) }},
				} {
					a, b := make([]float64, op.n), make([]float64, op.n)
					op.run(s, a)
					op.run(g, b)
					if k := sameBits(a, b); k >= 0 {
						t.Fatalf("%s: entry %d is %v structured, %v general", op.name, k, a[k], b[k])
					}
				}
				if s.G != g.G || s.DG != g.DG || s.DF != g.DF {
					t.Fatalf("counts g=%d dg=%d df=%d structured, %d, %d, %d general", s.G, s.DG, s.DF, g.G, g.DG, g.DF)
				}
			}
		})
	}
}

// TestEstimatorStackedMatchesGeneral runs the estimator on the portfolio
// problem with and without its structured forms, on the same draws, for
// several snapshots and batch sizes (and the exact inner value): g_hat, v
// and the counts must agree bit for bit.
func TestEstimatorStackedMatchesGeneral(t *testing.T) {
	p := smallPortfolio(t, 7, 23, 2, 4)
	d := p.Dims()
	cs, cg := &OracleCounter{P: p}, &OracleCounter{P: denseOnly{p}}
	es, eg := NewEstimator(cs), NewEstimator(cg)
	if es.stacked == nil || eg.stacked != nil {
		t.Fatalf("stacked form used: %v and %v, want true and false", es.stacked != nil, eg.stacked != nil)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for snap := range 4 {
		xt := randVec(rng, d.D)
		if snap%2 == 0 {
			es.Snapshot(xt)
			eg.Snapshot(xt)
		} else {
			es.SnapshotInner(xt)
			eg.SnapshotInner(xt)
		}
		if k := sameBits(es.G, eg.G); k >= 0 {
			t.Fatalf("snapshot %d: g(x~)[%d] = %v stacked, %v general", snap, k, es.G[k], eg.G[k])
		}
		for _, batch := range []int{1, 3, 4, 5, 9} {
			for _, exact := range []bool{false, true} {
				es.ExactInner, eg.ExactInner = exact, exact
				x := randVec(rng, d.D)
				seed := rng.Uint64()
				rs, rg := rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 1))
				vs := append([]float64(nil), es.Estimate(rs, batch, x)...)
				vg := eg.Estimate(rg, batch, x)
				if k := sameBits(es.GHat, eg.GHat); k >= 0 {
					t.Fatalf("batch %d exact %v: g_hat[%d] = %v stacked, %v general", batch, exact, k, es.GHat[k], eg.GHat[k])
				}
				if k := sameBits(vs, vg); k >= 0 {
					t.Fatalf("batch %d exact %v: v[%d] = %v stacked, %v general", batch, exact, k, vs[k], vg[k])
				}
				if rs.Uint64() != rg.Uint64() {
					t.Fatalf("batch %d exact %v: the two estimates drew different numbers of samples", batch, exact)
				}
			}
		}
	}
	if cs.G != cg.G || cs.DG != cg.DG || cs.DF != cg.DF {
		t.Fatalf("counts g=%d dg=%d df=%d stacked, %d, %d, %d general", cs.G, cs.DG, cs.DF, cg.G, cg.DG, cg.DF)
	}
}

// TestMethodsStructuredMatchGeneral runs every method on the portfolio
// problem with and without its structured forms, on the same draws: the
// points and the oracle counts must agree bit for bit after every epoch,
// also for a step so large that some methods blow up (to Inf or NaN).
func TestMethodsStructuredMatchGeneral(t *testing.T) {
	for _, tc := range []struct {
		name string
		eta  float64
		blow bool
	}{{"converging", 1e-2, false}, {"diverging", 5, true}} {
		t.Run(tc.name, func(t *testing.T) {
			p := smallPortfolio(t, 6, 30, 2, 8)
			reg := portfolio.Ridge{Mu: 0.1}
			prm := Params{Eta: tc.eta, Rho: 1, K: 13, Batch: 3}
			build := func(c portfolio.Composition) []Method {
				ms := newMethods(t, c, reg, prm, prm)
				a2, err := NewComSVRADMM2(c, reg, make([]float64, c.Dims().D), prm)
				if err != nil {
					t.Fatal(err)
				}
				return append(ms, a2)
			}
			structured, general := build(p), build(denseOnly{p})
			blown := 0
			for i, ms := range structured {
				mg := general[i]
				rs, rg := rand.New(rand.NewPCG(uint64(i), 2)), rand.New(rand.NewPCG(uint64(i), 2))
				blew := false
				for epoch := 1; epoch <= 30; epoch++ {
					ms.Epoch(rs)
					mg.Epoch(rg)
					if k := sameBits(ms.Point(), mg.Point()); k >= 0 {
						t.Fatalf("%s epoch %d: x[%d] = %v structured, %v general", ms.Name(), epoch, k, ms.Point()[k], mg.Point()[k])
					}
					if a, b := ms.Oracle().Total(), mg.Oracle().Total(); a != b {
						t.Fatalf("%s epoch %d: %d oracle calls structured, %d general", ms.Name(), epoch, a, b)
					}
					for _, v := range ms.Point() {
						blew = blew || math.IsNaN(v) || math.Abs(v) > 1e100
					}
				}
				if blew {
					t.Logf("%s: the iterates blew up", ms.Name())
					blown++
				}
				if ms.Point()[0] == 0 {
					t.Errorf("%s: the iterate did not move: the comparison proves nothing", ms.Name())
				}
			}
			if (blown > 0) != tc.blow {
				t.Errorf("%d methods blew up at eta = %v, want blow-ups: %v", blown, tc.eta, tc.blow)
			}
		})
	}
}
