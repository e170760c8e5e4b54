package penaltycons

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

func setup(t *testing.T, N, n int, p, noise float64) (*graph.Graph, graph.EdgeProcess, []objective.Local, [][]float64, []float64) {
	t.Helper()
	var edges []graph.Edge
	for i := range N {
		j := (i + 1) % N
		edges = append(edges, graph.Edge{I: min(i, j), J: max(i, j), P: p})
	}
	edges = append(edges, graph.Edge{I: 0, J: N / 2, P: p})
	g, err := graph.New(N, edges)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	var locals []objective.Local
	var x0 [][]float64
	xstar, dsum := make([]float64, n), make([]float64, n)
	for range N {
		d, c, x := make([]float64, n), make([]float64, n), make([]float64, n)
		for k := range d {
			d[k], c[k], x[k] = 0.5+rng.Float64(), 2*rng.NormFloat64(), rng.NormFloat64()
			xstar[k] += d[k] * c[k]
			dsum[k] += d[k]
		}
		locals = append(locals, objective.QuadraticNoisy(d, c, noise))
		x0 = append(x0, x)
	}
	for k := range xstar {
		xstar[k] /= dsum[k]
	}
	return g, graph.Bernoulli{G: g, Seed: 8}, locals, x0, xstar
}

func agentsFor(t *testing.T, cfg Config, g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, box objective.Box, x0 [][]float64) []consensus.Agent {
	t.Helper()
	var as []consensus.Agent
	for i := range locals {
		a, err := NewAgent(cfg, i, g, proc, locals[i], box, x0[i])
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	return as
}

// TestAgentsMatchReference: the agents in lockstep give the stacked
// matrix-form iterates on the same draws, under both rules, with a box.
func TestAgentsMatchReference(t *testing.T) {
	for _, rule := range []string{RuleConstant, RuleGrowing} {
		g, proc, locals, x0, _ := setup(t, 6, 3, 0.5, 0.3)
		box := objective.Box{Lo: -1.5, Hi: 1.5}
		for _, x := range x0 {
			box.Project(x)
		}
		const T = 50
		cfg, err := ConfigFor(rule, g, locals, T, 4)
		if err != nil {
			t.Fatal(err)
		}
		agents := agentsFor(t, cfg, g, proc, locals, box, x0)
		d, err := lockstep.New(agents, lockstep.Symmetric())
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Run(0, T); err != nil {
			t.Fatal(err)
		}
		ref, err := NewReference(cfg, g, proc, locals, box, x0)
		if err != nil {
			t.Fatal(err)
		}
		for s := range T {
			if err := ref.Step(s); err != nil {
				t.Fatal(err)
			}
		}
		var worst float64
		for i, a := range agents {
			x, want := a.Report().X, ref.X(i)
			for k := range x {
				worst = math.Max(worst, math.Abs(x[k]-want[k])/(1+math.Abs(want[k])))
			}
		}
		if worst > 1e-12 {
			t.Errorf("rule %s: agents differ from the reference by %.3g", rule, worst)
		}
	}
}

// TestGrowingPenaltyConverges: on noise-free quadratics the growing
// penalty moves the agents towards the minimizer of f = (1/N) sum f_i,
// (sum_i d_ik c_ik)/(sum_i d_ik) per coordinate, and keeps approaching it:
// the distance after 8T rounds is well below the distance after T (the
// steps gamma_k ~ 1/(10 L_c2 sqrt(k)) make the approach slow, sublinear).
func TestGrowingPenaltyConverges(t *testing.T) {
	g, proc, locals, x0, xstar := setup(t, 6, 2, 0.7, 0)
	const T = 2000
	cfg, err := ConfigFor(RuleGrowing, g, locals, 8*T, 4)
	if err != nil {
		t.Fatal(err)
	}
	box := objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)}
	agents := agentsFor(t, cfg, g, proc, locals, box, x0)
	d, err := lockstep.New(agents)
	if err != nil {
		t.Fatal(err)
	}
	distance := func() float64 {
		var worst float64
		for _, a := range agents {
			x := a.Report().X
			for k := range x {
				worst = math.Max(worst, math.Abs(x[k]-xstar[k]))
			}
		}
		return worst
	}
	d0 := distance()
	if err := d.Run(0, T); err != nil {
		t.Fatal(err)
	}
	d1 := distance()
	if err := d.Run(T, 7*T); err != nil {
		t.Fatal(err)
	}
	d8 := distance()
	if !(d1 < 0.6*d0 && d8 < 0.6*d1) {
		t.Errorf("max |x_i - x*|: %.3g at the start, %.3g after %d rounds, %.3g after %d", d0, d1, T, d8, 8*T)
	}
}
