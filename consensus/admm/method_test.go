package admm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/problems/portfolio"
)

// newMethods builds the four methods on p from x0 = 0.
func newMethods(t *testing.T, p portfolio.Composition, reg Regularizer, prm, sgd Params) []Method {
	t.Helper()
	x0 := make([]float64, p.Dims().D)
	a, err := NewComSVRADMM(p, reg, x0, prm)
	if err != nil {
		t.Fatal(err)
	}
	s1, err := NewComSVRG1(p, reg, x0, prm)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := NewComSVRG2(p, reg, x0, prm)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewSGD(p, reg, x0, sgd)
	if err != nil {
		t.Fatal(err)
	}
	return []Method{a, s1, s2, g}
}

func TestOracleAccountingPerEpoch(t *testing.T) {
	p := smallPortfolio(t, 7, 30, 2, 3)
	d := p.Dims()
	m, n := int64(d.M), int64(d.N)
	prm := Params{Eta: 1e-3, Rho: 1, K: 11, Batch: 3}
	sgd := Params{Eta: 1e-3, K: 4}
	K, N := int64(prm.K), int64(prm.Batch)
	want := map[string]int64{
		"com-SVR-ADMM": 2*m + n + K*(2*N+4), // the paper's count
		"com-SVRG-1":   2*m + n + K*(2*N+4),
		"com-SVRG-2":   2*m + n + K*(4*N+2),
		"SGD":          int64(sgd.K) * (2*m + 1),
	}
	for _, meth := range newMethods(t, p, portfolio.Ridge{Mu: 0.1}, prm, sgd) {
		rng := rand.New(rand.NewPCG(1, 2))
		for epoch := 1; epoch <= 3; epoch++ {
			before := meth.Oracle().Total()
			meth.Epoch(rng)
			if got := meth.Oracle().Total() - before; got != want[meth.Name()] {
				t.Errorf("%s epoch %d: %d oracle calls, want %d", meth.Name(), epoch, got, want[meth.Name()])
			}
		}
	}
}

func TestComSVRADMMOracleSplit(t *testing.T) {
	p := smallPortfolio(t, 4, 20, 2, 3)
	prm := Params{Eta: 1e-3, Rho: 1, K: 5, Batch: 2}
	a, err := NewComSVRADMM(p, portfolio.Ridge{Mu: 0.1}, make([]float64, 4), prm)
	if err != nil {
		t.Fatal(err)
	}
	a.Epoch(rand.New(rand.NewPCG(1, 1)))
	c := a.Oracle()
	// g: m (step 4) + 2N per inner step; dg: m (step 5) + 2 per inner step;
	// grad f: n (step 5) + 2 per inner step.
	if c.G != 20+5*4 || c.DG != 20+5*2 || c.DF != 20+5*2 {
		t.Errorf("oracle split g=%d dg=%d df=%d, want 40, 30, 30", c.G, c.DG, c.DF)
	}
}

func TestComSVRADMMConvergesLinearly(t *testing.T) {
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
			prm := Params{Eta: 0.02, Rho: 1, K: 200, Batch: 2}
			a, err := NewComSVRADMM(p, reg, make([]float64, 10), prm)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(tc.seed, 1))
			gaps := []float64{sol.Gap(a.Point())}
			for range 40 {
				a.Epoch(rng)
				gaps = append(gaps, sol.Gap(a.Point()))
			}
			t.Logf("gaps: start %.3g, 10 %.3g, 20 %.3g, 30 %.3g, 40 %.3g", gaps[0], gaps[10], gaps[20], gaps[30], gaps[40])
			if gaps[40] >= 1e-8 {
				t.Fatalf("gap after 40 outer iterations = %.3g, want < 1e-8", gaps[40])
			}
			// Linear rate: each block of 10 outer iterations contracts the
			// gap by a comparable factor (no sublinear slowdown).
			r1 := math.Log(gaps[10] / gaps[0])
			r2 := math.Log(gaps[20] / gaps[10])
			if r1 >= 0 || r2 >= 0 || r2 > 0.5*r1 {
				t.Errorf("log-contraction per 10 outer iterations %.3g then %.3g: not linear", r1, r2)
			}
			// The ADMM iterates end feasible: w~ approaches x~.
			var feas float64
			for k, x := range a.Point() {
				feas = math.Max(feas, math.Abs(x-a.W()[k]))
			}
			if feas > 1e-4 {
				t.Errorf("||x~ - w~||_inf = %.3g, want -> 0", feas)
			}
		})
	}
}

func TestBaselinesConverge(t *testing.T) {
	p := smallPortfolio(t, 10, 100, 2, 11)
	reg := portfolio.Ridge{Mu: 0.01}
	sol, err := p.Solve(reg)
	if err != nil {
		t.Fatal(err)
	}
	prm := Params{Eta: 0.02, Rho: 1, K: 200, Batch: 2}
	// SGD with a constant step stalls at a noise floor of order eta; a
	// smaller step shows progress.
	sgd := Params{Eta: 0.002, K: 200}
	for _, meth := range newMethods(t, p, reg, prm, sgd) {
		rng := rand.New(rand.NewPCG(4, 4))
		start := sol.Gap(meth.Point())
		for range 30 {
			meth.Epoch(rng)
		}
		gap := sol.Gap(meth.Point())
		limit := 1e-8 // variance reduced: linear
		if meth.Name() == "SGD" {
			limit = 0.2 * start
		}
		if !(gap < limit) {
			t.Errorf("%s: gap after 30 epochs %.3g (start %.3g), want < %.3g", meth.Name(), gap, start, limit)
		}
	}
}

func TestConstructorsRejectBadInput(t *testing.T) {
	p := smallPortfolio(t, 3, 10, 2, 1)
	good := Params{Eta: 0.01, Rho: 1, K: 5, Batch: 2}
	x0 := make([]float64, 3)
	type ctor func(portfolio.Composition, Regularizer, []float64, Params) error
	ctors := map[string]ctor{
		"admm": func(p portfolio.Composition, r Regularizer, x []float64, prm Params) error {
			_, err := NewComSVRADMM(p, r, x, prm)
			return err
		},
		"svrg1": func(p portfolio.Composition, r Regularizer, x []float64, prm Params) error {
			_, err := NewComSVRG1(p, r, x, prm)
			return err
		},
		"svrg2": func(p portfolio.Composition, r Regularizer, x []float64, prm Params) error {
			_, err := NewComSVRG2(p, r, x, prm)
			return err
		},
		"sgd": func(p portfolio.Composition, r Regularizer, x []float64, prm Params) error {
			_, err := NewSGD(p, r, x, prm)
			return err
		},
	}
	bad := []struct {
		name string
		p    portfolio.Composition
		r    Regularizer
		x    []float64
		prm  Params
	}{
		{"zero eta", p, portfolio.Ridge{}, x0, Params{Rho: 1, K: 5, Batch: 2}},
		{"nan eta", p, portfolio.Ridge{}, x0, Params{Eta: math.NaN(), Rho: 1, K: 5, Batch: 2}},
		{"zero K", p, portfolio.Ridge{}, x0, Params{Eta: 0.1, Rho: 1, Batch: 2}},
		{"short x0", p, portfolio.Ridge{}, x0[:2], good},
		{"inf x0", p, portfolio.Ridge{}, []float64{0, math.Inf(1), 0}, good},
		{"nil problem", nil, portfolio.Ridge{}, x0, good},
		{"nil regularizer", p, nil, x0, good},
	}
	for name, c := range ctors {
		if err := c(p, portfolio.Ridge{}, x0, good); err != nil {
			t.Errorf("%s rejected good input: %v", name, err)
		}
		for _, b := range bad {
			if err := c(b.p, b.r, b.x, b.prm); err == nil {
				t.Errorf("%s accepted %s", name, b.name)
			}
		}
	}
	if _, err := NewComSVRADMM(p, portfolio.Ridge{}, x0, Params{Eta: 0.1, K: 5, Batch: 2}); err == nil {
		t.Error("com-SVR-ADMM accepted rho = 0")
	}
	if _, err := NewComSVRG1(p, portfolio.Ridge{}, x0, Params{Eta: 0.1, K: 5}); err == nil {
		t.Error("com-SVRG-1 accepted N = 0")
	}
	if _, err := portfolio.NewRidge(-1); err == nil {
		t.Error("NewRidge accepted mu < 0")
	}
}

// denseOnly hides a composition's IdentityStackedJacobian, so methods
// use its dense Jacobians.
type denseOnly struct{ portfolio.Composition }

// TestComSVRG2StackedJacobianMatchesDense runs com-SVRG-2 on the
// portfolio problem with its stacked Jacobian and with the dense one, on
// the same draws: the iterates and the oracle counts must agree bit for
// bit after every epoch.
func TestComSVRG2StackedJacobianMatchesDense(t *testing.T) {
	p := smallPortfolio(t, 6, 40, 2, 5)
	if _, ok := portfolio.Composition(p).(portfolio.IdentityStackedJacobian); !ok {
		t.Fatal("the portfolio problem does not offer its stacked Jacobian")
	}
	prm := Params{Eta: 1e-2, K: 17, Batch: 3}
	x0 := make([]float64, p.Dims().D)
	stacked, err := NewComSVRG2(p, portfolio.Ridge{Mu: 0.1}, x0, prm)
	if err != nil {
		t.Fatal(err)
	}
	dense, err := NewComSVRG2(denseOnly{p}, portfolio.Ridge{Mu: 0.1}, x0, prm)
	if err != nil {
		t.Fatal(err)
	}
	if !stacked.stacked || dense.stacked {
		t.Fatalf("stacked form: %v and %v, want true and false", stacked.stacked, dense.stacked)
	}
	r1, r2 := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	for epoch := 1; epoch <= 4; epoch++ {
		stacked.Epoch(r1)
		dense.Epoch(r2)
		for k, v := range dense.Point() {
			if math.Float64bits(v) != math.Float64bits(stacked.Point()[k]) {
				t.Fatalf("epoch %d: x[%d] = %v stacked, %v dense", epoch, k, stacked.Point()[k], v)
			}
		}
		if a, b := stacked.Oracle().Total(), dense.Oracle().Total(); a != b {
			t.Fatalf("epoch %d: %d oracle calls stacked, %d dense", epoch, a, b)
		}
	}
	if math.Float64bits(dense.Point()[0]) == math.Float64bits(x0[0]) {
		t.Fatal("the iterate did not move: the comparison proves nothing")
	}
}
