package dadmm

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/problems/portfolio"
)

// portfolioShards draws a reward matrix of the given size (covariance
// condition number cov) and splits it into N shards.
func portfolioShards(t *testing.T, N, assets, periods int, cov float64, seed uint64) ([]*portfolio.Portfolio, *mat.Dense) {
	t.Helper()
	ret, err := portfolio.GenerateReturns(portfolio.ReturnsConfig{Assets: assets, Periods: periods, Cov: cov, MeanHi: 1}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	shards, err := portfolio.Split(ret, N)
	if err != nil {
		t.Fatal(err)
	}
	return shards, ret
}

// consensusOptimum returns the minimizer of (1/N) sum_i F_i(x) + (mu/2)||x||^2
// for quadratic shards F_i: the Hessian and gradient at 0 are read off the
// exact gradient oracle (column k of the Hessian is grad(e_k) - grad(0)).
func consensusOptimum(t *testing.T, shards []*portfolio.Portfolio, mu float64) []float64 {
	t.Helper()
	d := shards[0].Dims().D
	h := mat.NewDense(d, d, nil)
	g0 := make([]float64, d)
	gk := make([]float64, d)
	e := make([]float64, d)
	for _, p := range shards {
		admm.Gradient(p, make([]float64, d), gk)
		for l := range d {
			g0[l] += gk[l] / float64(len(shards))
		}
		for k := range d {
			clear(e)
			e[k] = 1
			admm.Gradient(p, e, gk)
			for l := range d {
				h.Set(l, k, h.At(l, k)+gk[l]/float64(len(shards)))
			}
		}
	}
	for k := range d {
		for l := range d {
			h.Set(l, k, h.At(l, k)-g0[l])
		}
		h.Set(k, k, h.At(k, k)+mu)
	}
	var x mat.VecDense
	rhs := mat.NewVecDense(d, nil)
	rhs.ScaleVec(-1, mat.NewVecDense(d, g0))
	if err := x.SolveVec(h, rhs); err != nil {
		t.Fatal(err)
	}
	return x.RawVector().Data
}

type compNetwork struct {
	agents []*CompositionAgent
	drv    *lockstep.Driver
}

func newCompNetwork(t *testing.T, cfg CompositionConfig, g *graph.Graph, proc graph.EdgeProcess, shards []*portfolio.Portfolio, x0 [][]float64) *compNetwork {
	t.Helper()
	nw := &compNetwork{}
	as := make([]consensus.Agent, g.N)
	for i := range g.N {
		a, err := NewCompositionAgent(cfg, i, g, proc, shards[i], x0[i])
		if err != nil {
			t.Fatal(err)
		}
		nw.agents = append(nw.agents, a)
		as[i] = a
	}
	drv, err := lockstep.New(as, lockstep.Symmetric())
	if err != nil {
		t.Fatal(err)
	}
	nw.drv = drv
	return nw
}

// TestCompositionSingleAgentIsComSVRADMM: with N = 1 the decentralized
// method is com-SVR-ADMM (Algorithm 1, A = I, B = -I): on the same
// samples (one generator per outer iteration, seeded from the round that
// starts it) x~, w~ and the oracle count agree with admm.ComSVRADMM after
// every outer iteration.
func TestCompositionSingleAgentIsComSVRADMM(t *testing.T) {
	shards, _ := portfolioShards(t, 1, 6, 60, 5, 3)
	p := shards[0]
	reg := portfolio.Ridge{Mu: 0.05}
	prm := admm.Params{Eta: 0.05, Rho: 1, K: 30, Batch: 2}
	const seed, epochs = 17, 12
	g, err := graph.New(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	x0 := []float64{0.3, -0.1, 0, 0.2, 0.5, -0.4}
	ag, err := NewCompositionAgent(CompositionConfig{Params: prm, Reg: reg, Seed: seed}, 0, g, graph.Bernoulli{G: g}, p, x0)
	if err != nil {
		t.Fatal(err)
	}
	drv, err := lockstep.New([]consensus.Agent{ag})
	if err != nil {
		t.Fatal(err)
	}
	m, err := admm.NewComSVRADMM(p, reg, x0, prm)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for s := range epochs {
		t0 := s * prm.K
		m.Epoch(graph.StreamSample.Rand(seed, uint64(t0), 0))
		if err := drv.Run(t0, prm.K); err != nil {
			t.Fatal(err)
		}
		for _, pair := range [][2][]float64{{ag.X(), m.Point()}, {ag.W(), m.W()}} {
			worst = math.Max(worst, dist(pair[0], pair[1])/math.Max(1, norm(pair[1])))
		}
		if worst > 1e-12 {
			t.Fatalf("outer iteration %d: agent and com-SVR-ADMM differ by %.3g relative", s, worst)
		}
		if a, b := ag.Oracle().Total(), m.Oracle().Total(); a != b {
			t.Fatalf("outer iteration %d: oracle calls %d, com-SVR-ADMM %d", s, a, b)
		}
	}
	sol, err := p.Solve(reg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("N = 1: max relative difference %.3g over %d outer iterations; gap %.3g", worst, epochs, sol.Gap(ag.X()))
	if d := dist(ag.X(), x0); d < 1e-3 {
		t.Errorf("x moved only %.3g: the comparison is vacuous", d)
	}
}

// TestCompositionMatchesReference: N = 5 agents, p = 0.6, 240 rounds (8
// outer iterations), agents and the stacked reference agree to 1e-12.
func TestCompositionMatchesReference(t *testing.T) {
	const N = 5
	shards, _ := portfolioShards(t, N, 4, 100, 3, 5)
	cfg := CompositionConfig{Params: admm.Params{Eta: 0.05, Rho: 1, K: 30, Batch: 2}, C: 0.3, Reg: portfolio.Ridge{Mu: 0.05}, Seed: 4}
	g := randomGraph(t, N, 0.3, 0.6, 2)
	proc := graph.Bernoulli{G: g, Seed: 6}
	x0 := startPoints(N, 4, 1, 3)
	nw := newCompNetwork(t, cfg, g, proc, shards, x0)
	comps := make([]portfolio.Composition, N)
	for i, s := range shards {
		comps[i] = s
	}
	ref, err := NewCompositionReference(cfg, g, proc, comps, x0)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for r := range 240 {
		if err := nw.drv.Round(r); err != nil {
			t.Fatal(err)
		}
		if err := ref.Step(r); err != nil {
			t.Fatal(err)
		}
		for i, a := range nw.agents {
			for _, pair := range [][2][]float64{{a.X(), ref.X(i)}, {a.W(), ref.W(i)}, {a.Dual(), ref.Dual(i)}} {
				worst = math.Max(worst, dist(pair[0], pair[1])/math.Max(1, norm(pair[1])))
			}
		}
		if worst > 1e-12 {
			t.Fatalf("round %d: agents and reference differ by %.3g relative", r, worst)
		}
	}
	var q int64
	for _, a := range nw.agents {
		q += a.Report().GradEvals
	}
	if q != ref.Queries() {
		t.Errorf("oracle calls: agents %d, reference %d", q, ref.Queries())
	}
	t.Logf("max relative difference over 240 rounds: %.3g", worst)
}

// TestCompositionConverges runs decentralized com-SVR-ADMM on a portfolio
// split by periods over N = 5 agents and checks that every x_i reaches the
// exact minimizer of (1/N) sum_i F_i(x) + (mu/2)||x||^2 (to 1e-6, at a
// linear rate over the outer iterations), on a static and a random graph.
func TestCompositionConverges(t *testing.T) {
	const N, assets = 5, 4
	shards, _ := portfolioShards(t, N, assets, 200, 3, 7)
	mu := 0.05
	xstar := consensusOptimum(t, shards, mu)
	cfg := CompositionConfig{Params: admm.Params{Eta: 0.05, Rho: 1, K: 50, Batch: 2}, C: 0.3, Reg: portfolio.Ridge{Mu: mu}, Seed: 8}
	for _, p := range []float64{1, 0.7} {
		g := randomGraph(t, N, 0.3, p, 2)
		nw := newCompNetwork(t, cfg, g, graph.Bernoulli{G: g, Seed: 9}, shards, startPoints(N, assets, 1, 4))
		var errs []float64
		maxDist := func() float64 {
			var m float64
			for _, a := range nw.agents {
				m = math.Max(m, dist(a.X(), xstar))
			}
			return m
		}
		errs = append(errs, maxDist())
		const epochs = 140
		for s := range epochs {
			if err := nw.drv.Run(s*cfg.K, cfg.K); err != nil {
				t.Fatal(err)
			}
			errs = append(errs, maxDist())
		}
		var kkt float64
		for _, a := range nw.agents {
			kkt += a.Report().Measures[0]
		}
		k6 := firstBelow(errs, 1e-6)
		t.Logf("p = %g: max_i ||x_i - x*||: %.3g at start, %.3g after 50 outer iterations, below 1e-6 from outer iteration %d, %.3g at %d; sum KKTSq %.3g",
			p, errs[0], errs[50], k6, errs[epochs], epochs, kkt)
		if k6 < 0 {
			t.Fatalf("p = %g: max_i ||x_i - x*|| = %.3g after %d outer iterations, want < 1e-6", p, errs[epochs], epochs)
		}
		if w, ok := geometric(errs[:k6+1]); !ok {
			t.Errorf("p = %g: no linear rate: the error does not halve within every window of %d outer iterations", p, w)
		}
	}
}

func TestNewCompositionAgentErrors(t *testing.T) {
	shards, _ := portfolioShards(t, 2, 3, 10, 2, 1)
	g := randomGraph(t, 2, 0, 1, 1)
	good := CompositionConfig{Params: admm.Params{Eta: 0.1, Rho: 1, K: 5, Batch: 1}, Reg: portfolio.Ridge{Mu: 0.1}}
	with := func(mod func(*CompositionConfig)) CompositionConfig { c := good; mod(&c); return c }
	x0 := make([]float64, 3)
	cases := []struct {
		name string
		cfg  CompositionConfig
		id   int
		p    portfolio.Composition
		x0   []float64
		want string
	}{
		{"eta", with(func(c *CompositionConfig) { c.Eta = 0 }), 0, shards[0], x0, "eta = 0"},
		{"rho", with(func(c *CompositionConfig) { c.Rho = math.NaN() }), 0, shards[0], x0, "rho = NaN"},
		{"K", with(func(c *CompositionConfig) { c.K = 0 }), 0, shards[0], x0, "K = 0"},
		{"batch", with(func(c *CompositionConfig) { c.Batch = -1 }), 0, shards[0], x0, "mini-batch -1"},
		{"c", with(func(c *CompositionConfig) { c.C = -2 }), 0, shards[0], x0, "c = -2"},
		{"regularizer", with(func(c *CompositionConfig) { c.Reg = nil }), 0, shards[0], x0, "regularizer is required"},
		{"id", good, 2, shards[0], x0, "agent id 2"},
		{"nil shard", good, 0, nil, x0, "nil composition"},
		{"x0 length", good, 0, shards[0], []float64{1}, "length 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewCompositionAgent(tc.cfg, tc.id, g, graph.Bernoulli{G: g}, tc.p, tc.x0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewCompositionAgent: error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := portfolio.Split(mat.NewDense(3, 2, nil), 2); err == nil || !strings.Contains(err.Error(), "at least 2 per agent") {
		t.Errorf("portfolio.Split of 3 periods over 2 agents: error %v", err)
	}
}
