package admm

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/problems/portfolio"
)

func TestComSVRADMM2OracleAccounting(t *testing.T) {
	for _, tc := range []struct {
		name            string
		assets, periods int
		K               int
	}{
		{"K11", 7, 30, 11},
		{"K1", 4, 20, 1},
		{"K50", 3, 9, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := smallPortfolio(t, tc.assets, tc.periods, 2, 3)
			d := p.Dims()
			m, n, K := int64(d.M), int64(d.N), int64(tc.K)
			a, err := NewComSVRADMM2(p, portfolio.Ridge{Mu: 0.1}, make([]float64, d.D), Params{Eta: 1e-3, Rho: 1, K: tc.K, Batch: 3})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for epoch := int64(1); epoch <= 3; epoch++ {
				before := a.Oracle().Total()
				a.Epoch(rng)
				// The paper's count: steps 4-5, then steps 8-9 per inner step.
				if got, want := a.Oracle().Total()-before, 2*m+n+K*(m+4); got != want {
					t.Errorf("epoch %d: %d oracle calls, want 2m + n + K(m + 4) = %d", epoch, got, want)
				}
				// g: m (step 4) + m per inner step (step 8); dg: m (step 5)
				// + 2 per inner step; grad f: n (step 5) + 2 per inner step.
				c := a.Oracle()
				if c.G != epoch*(m+K*m) || c.DG != epoch*(m+2*K) || c.DF != epoch*(n+2*K) {
					t.Errorf("after epoch %d: split g=%d dg=%d df=%d, want %d, %d, %d",
						epoch, c.G, c.DG, c.DF, epoch*(m+K*m), epoch*(m+2*K), epoch*(n+2*K))
				}
			}
		})
	}
}

func TestEstimatorExactInner(t *testing.T) {
	p := smallPortfolio(t, 5, 16, 3, 2)
	d := p.Dims()
	c, err := NewOracleCounter(p)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEstimator(c)
	e.ExactInner = true
	rng := rand.New(rand.NewPCG(3, 4))
	e.Snapshot(randVec(rng, d.D))
	x := randVec(rng, d.D)
	before := c.Total()
	v := e.Estimate(rng, 7, x)
	if got := c.Total() - before; got != int64(d.M+4) {
		t.Errorf("exact-inner estimate used %d queries, want m + 4 = %d", got, d.M+4)
	}
	want := make([]float64, d.R)
	(&OracleCounter{P: p}).InnerMean(x, want)
	for k := range want {
		if e.GHat[k] != want[k] {
			t.Fatalf("GHat[%d] = %v, want g(x)[%d] = %v", k, e.GHat[k], k, want[k])
		}
	}
	// Averaged over every (i, j), eq. 10 is exactly grad F(x).
	gx := append([]float64(nil), want...)
	mean := make([]float64, d.D)
	r1, r2 := make([]float64, d.R), make([]float64, d.R)
	d1, d2 := make([]float64, d.D), make([]float64, d.D)
	for i := range d.N {
		p.OuterGrad(i, gx, r1)
		p.OuterGrad(i, e.G, r2)
		for j := range d.M {
			p.InnerJacT(j, x, r1, d1)
			p.InnerJacT(j, e.X, r2, d2)
			for k := range mean {
				mean[k] += (d1[k] - d2[k] + e.Grad[k]) / float64(d.N*d.M)
			}
		}
	}
	grad := make([]float64, d.D)
	p.ObjectiveGrad(x, grad)
	for k := range grad {
		if math.Abs(mean[k]-grad[k]) > 1e-10*(1+math.Abs(grad[k])) {
			t.Errorf("mean of eq. 10 [%d] = %v, grad F(x) = %v", k, mean[k], grad[k])
		}
	}
	if len(v) != d.D {
		t.Fatalf("direction has length %d, want %d", len(v), d.D)
	}
}

func TestProxWeight(t *testing.T) {
	for _, tc := range []struct {
		s, K int
	}{{1, 1}, {1, 2}, {1, 10}, {3, 5}, {20, 100}} {
		lo, hi := 1/float64(tc.s+1), 1/float64(tc.s)
		if got := proxWeight(tc.s, 0, tc.K); got != hi {
			t.Errorf("s=%d K=%d: gamma_0 = %v, want 1/s = %v", tc.s, tc.K, got, hi)
		}
		if got := proxWeight(tc.s, tc.K, tc.K); got != lo {
			t.Errorf("s=%d K=%d: gamma_K = %v, want 1/(s+1) = %v", tc.s, tc.K, got, lo)
		}
		if tc.K >= 2 {
			if got := proxWeight(tc.s, tc.K-1, tc.K); math.Abs(got-lo) > 1e-15 {
				t.Errorf("s=%d K=%d: gamma_{K-1} = %v, want 1/(s+1) = %v", tc.s, tc.K, got, lo)
			}
		}
		for k := 1; k <= tc.K; k++ {
			if proxWeight(tc.s, k, tc.K) > proxWeight(tc.s, k-1, tc.K) {
				t.Errorf("s=%d K=%d: gamma_%d > gamma_%d", tc.s, tc.K, k, k-1)
			}
		}
		// The warm start G_0 = G^^{s-1}: gamma_K of s equals gamma_0 of s+1.
		if proxWeight(tc.s, tc.K, tc.K) != proxWeight(tc.s+1, 0, tc.K) {
			t.Errorf("s=%d K=%d: G_K of s differs from G_0 of s+1", tc.s, tc.K)
		}
	}
}

// box is R(w) = indicator of {w : |w_k| <= b}: convex, not strongly convex,
// and a bounded feasible set (the paper's Assumption 1(ii)).
type box struct{ b float64 }

func (r box) Value(w []float64) float64 {
	for _, v := range w {
		if math.Abs(v) > r.b {
			return math.Inf(1)
		}
	}
	return 0
}

func (r box) Prox(_ float64, z, dst []float64) {
	for k, v := range z {
		dst[k] = math.Max(-r.b, math.Min(r.b, v))
	}
}

// boxOptimum minimizes F(x) = -<rbar, x> + x^T S x over |x_k| <= b by
// projected gradient and certifies the result by the Frank-Wolfe gap
// max_{|y_k| <= b} <grad F(x), x - y> = sum_k grad_k x_k + b |grad_k|,
// an upper bound on F(x) - F*.
func boxOptimum(t *testing.T, p *portfolio.Portfolio, b float64) (x, grad []float64) {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(p.Cov(), false) {
		t.Fatal("eigendecomposition failed")
	}
	ev := es.Values(nil)
	step := 1 / (2 * ev[len(ev)-1])
	d := len(p.Mean())
	x, grad = make([]float64, d), make([]float64, d)
	for range 200000 {
		p.ObjectiveGrad(x, grad)
		for k := range x {
			x[k] = math.Max(-b, math.Min(b, x[k]-step*grad[k]))
		}
	}
	p.ObjectiveGrad(x, grad)
	var fw float64
	for k := range x {
		fw += grad[k]*x[k] + b*math.Abs(grad[k])
	}
	if fw > 1e-12 {
		t.Fatalf("reference solution not certified: Frank-Wolfe gap %.3g", fw)
	}
	return x, grad
}

// lipschitzF returns L_F of Assumption 4 for the portfolio composition:
// (dg_j(x))^T grad f_i(g(x)) = -r_i + 2 <r_i - rbar, x> (r_i - r_j), so
// L_F = max_{i,j} 2 ||r_i - r_j|| ||r_i - rbar||.
func lipschitzF(p *portfolio.Portfolio) float64 {
	var l float64
	diff := make([]float64, len(p.Mean()))
	for _, ri := range p.Rewards() {
		for k := range diff {
			diff[k] = ri[k] - p.Mean()[k]
		}
		a := math.Sqrt(dot(diff, diff))
		for _, rj := range p.Rewards() {
			for k := range diff {
				diff[k] = ri[k] - rj[k]
			}
			l = math.Max(l, 2*a*math.Sqrt(dot(diff, diff)))
		}
	}
	return l
}

func TestComSVRADMM2GeneralConvex(t *testing.T) {
	// n = 6 periods < N = 10 assets: S has rank <= 5, so F is convex but
	// not strongly convex (and unbounded below off range(S)). mu = 0: R is
	// the indicator of the box |w_k| <= 1, which keeps the feasible set
	// bounded (Assumption 1(ii)) without adding strong convexity.
	for _, tc := range []struct {
		name       string
		data, draw uint64
	}{
		{"a", 21, 5},
		{"b", 22, 6},
		{"c", 23, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := smallPortfolio(t, 10, 6, 2, tc.data)
			var es mat.EigenSym
			if !es.Factorize(p.Cov(), false) {
				t.Fatal("eigendecomposition failed")
			}
			if ev := es.Values(nil); ev[0] > 1e-12 {
				t.Fatalf("smallest eigenvalue of S = %v: instance is strongly convex", ev[0])
			}
			reg := box{b: 1}
			xs, gs := boxOptimum(t, p, reg.b)
			var active int
			for _, v := range xs {
				if math.Abs(v) == reg.b {
					active++
				}
			}
			if active == 0 {
				t.Fatal("no box constraint active at x*: R plays no role")
			}
			// Theorem 2's measure with Lambda = 1, G(u) + ||x - w||, where
			// G(u) = (x - x*)^T S (x - x*) + <grad F(x*), w - x*>: the Bregman
			// terms of F and of R at lambda* = -grad F(x*), both >= 0 (the
			// second by optimality of x* over the box, w being in it).
			measure := func(x, w []float64) float64 {
				e := make([]float64, len(x))
				var feas, lin float64
				for k := range x {
					e[k] = x[k] - xs[k]
					feas += (x[k] - w[k]) * (x[k] - w[k])
					lin += gs[k] * (w[k] - xs[k])
				}
				v := mat.NewVecDense(len(e), e)
				return mat.Inner(v, p.Cov(), v) + lin + math.Sqrt(feas)
			}
			a, err := NewComSVRADMM2(p, reg, make([]float64, 10), Params{Eta: 1 / lipschitzF(p), Rho: 1, K: 50})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(tc.draw, 5))
			checks := []int{5, 20, 80, 320}
			var got []float64
			for s := 1; s <= checks[len(checks)-1]; s++ {
				a.Epoch(rng)
				if s == checks[len(got)] {
					got = append(got, measure(a.Point(), a.W()))
				}
			}
			start := measure(make([]float64, 10), make([]float64, 10))
			for i, s := range checks {
				t.Logf("S=%d: G(u-bar) + ||x-bar - w-bar|| = %.4g (x0: %.4g); times S/log(S+1): %.3g",
					s, got[i], start, got[i]*float64(s)/math.Log(float64(s+1)))
			}
			// Theorem 2: O(log(S+1)/S). Each quadrupling of S must lower
			// the measure.
			for i := 1; i < len(got); i++ {
				if !(got[i] < got[i-1]) {
					t.Errorf("measure at S=%d is %.4g, not below %.4g at S=%d", checks[i], got[i], got[i-1], checks[i-1])
				}
			}
		})
	}
}

func TestComSVRADMM2Ridge(t *testing.T) {
	// With R = (mu/2)||w||^2, mu > 0, and n > N the problem is strongly
	// convex; Algorithm 2 still applies (Theorem 2 needs only convexity).
	for _, tc := range []struct {
		name string
		cov  float64
		seed uint64
	}{
		{"cov2", 2, 11},
		{"cov10", 10, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := smallPortfolio(t, 10, 100, tc.cov, tc.seed)
			reg := portfolio.Ridge{Mu: 0.01}
			sol, err := p.Solve(reg)
			if err != nil {
				t.Fatal(err)
			}
			a, err := NewComSVRADMM2(p, reg, make([]float64, 10), Params{Eta: 1 / lipschitzF(p), Rho: 1, K: 200})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(tc.seed, 1))
			gaps := []float64{sol.Gap(a.Point())}
			for range 40 {
				a.Epoch(rng)
				gaps = append(gaps, sol.Gap(a.Point()))
			}
			last := sol.Gap(a.Last())
			t.Logf("gap(x-bar): start %.3g, 10 %.3g, 20 %.3g, 40 %.3g; gap(x^K) at 40: %.3g",
				gaps[0], gaps[10], gaps[20], gaps[40], last)
			if !(gaps[40] < gaps[20] && gaps[20] < gaps[10] && gaps[10] < gaps[0]) {
				t.Errorf("gap of the output x-bar does not decrease: %.3g, %.3g, %.3g, %.3g", gaps[0], gaps[10], gaps[20], gaps[40])
			}
			if !(gaps[40] < 1e-2*gaps[0]) {
				t.Errorf("gap(x-bar) after 40 outer iterations %.3g, want < 1e-2 of the start %.3g", gaps[40], gaps[0])
			}
			// x-bar averages every outer iteration, so its gap falls as about
			// 1/S^2 here; the warm-started inner iterates reach the known
			// optimum.
			if !(last < 1e-10) {
				t.Errorf("gap at the last inner iterate x^K = %.3g, want < 1e-10", last)
			}
		})
	}
}

func TestNewComSVRADMM2RejectsBadInput(t *testing.T) {
	p := smallPortfolio(t, 3, 10, 2, 1)
	x0 := make([]float64, 3)
	for _, tc := range []struct {
		name string
		p    portfolio.Composition
		r    Regularizer
		x    []float64
		prm  Params
		ok   bool
	}{
		{"good, no batch", p, portfolio.Ridge{}, x0, Params{Eta: 0.1, Rho: 1, K: 5}, true},
		{"zero rho", p, portfolio.Ridge{}, x0, Params{Eta: 0.1, K: 5}, false},
		{"inf eta", p, portfolio.Ridge{}, x0, Params{Eta: math.Inf(1), Rho: 1, K: 5}, false},
		{"zero K", p, portfolio.Ridge{}, x0, Params{Eta: 0.1, Rho: 1}, false},
		{"short x0", p, portfolio.Ridge{}, x0[:1], Params{Eta: 0.1, Rho: 1, K: 5}, false},
		{"nil problem", nil, portfolio.Ridge{}, x0, Params{Eta: 0.1, Rho: 1, K: 5}, false},
		{"nil regularizer", p, nil, x0, Params{Eta: 0.1, Rho: 1, K: 5}, false},
	} {
		_, err := NewComSVRADMM2(tc.p, tc.r, tc.x, tc.prm)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok = %v", tc.name, err, tc.ok)
		}
	}
}
