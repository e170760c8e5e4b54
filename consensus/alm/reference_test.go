package alm

import (
	"math"
	"testing"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// relTol is the tolerance of the agents-vs-reference comparison, relative
// to max(1, ||reference block||).
const relTol = 1e-12

// compare returns the largest relative deviation of the agents' x_i, z_i
// and both replicas of every y_ij from the reference.
func compare(t *testing.T, ls *lockstep, ref *Reference, g *graph.Graph) float64 {
	t.Helper()
	var worst float64
	dev := func(a, r []float64) {
		worst = math.Max(worst, dist(a, r)/math.Max(1, norm(r)))
	}
	for i, a := range ls.agents {
		dev(a.X(), ref.X(i))
		dev(a.Z(), ref.Z(i))
	}
	for k, e := range g.Edges {
		yi, ok1 := ls.agents[e.I].Dual(e.J)
		yj, ok2 := ls.agents[e.J].Dual(e.I)
		if !ok1 || !ok2 {
			t.Fatalf("edge %d {%d,%d}: agents do not hold its dual", k, e.I, e.J)
		}
		dev(yi, ref.Y(k))
		dev(yj, ref.Y(k))
	}
	return worst
}

func TestAgentsMatchReference(t *testing.T) {
	base := Steps{Eta: 0.5, Tau: 0.1, Rho: 1, Mu: 2, Beta: 0.05}
	cases := []struct {
		name       string
		p          float64
		params     Steps
		safeguard  string
		every      int
		sameDraw   bool
		scale      float64
		wantResets bool
	}{
		{name: "global every round", p: 0.5, params: withMy(base, 2), safeguard: SafeguardGlobal, every: 1, wantResets: true},
		{name: "global every 3 rounds, sqrt tau", p: 0.6, params: withSchedule(withMy(base, 2), TauSqrt), safeguard: SafeguardGlobal, every: 3, wantResets: true},
		{name: "edge safeguard", p: 0.5, params: withMy(base, 0.8), safeguard: SafeguardEdge, wantResets: true},
		{name: "same draw, no safeguard", p: 0.7, params: withMy(base, 1), safeguard: SafeguardNone, sameDraw: true},
		{name: "algorithm 1 (p = 1)", p: 1, params: withMy(base, 1), safeguard: SafeguardNone},
		{name: "scaled objective, global every round", p: 0.5, params: withMy(base, 0.8), safeguard: SafeguardGlobal, every: 1, scale: 7.5, wantResets: true},
	}
	const N, n, rounds = 6, 3, 240
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := randomGraph(N, 0.4, tc.p, 3)
			if err != nil {
				t.Fatal(err)
			}
			proc := graph.Bernoulli{G: g, Seed: 99}
			inst := newQuadInstance(N, n, 1, 0.3, 3, objective.Box{Lo: -2.5, Hi: 2.5}, 5)
			cfg := Config{Steps: tc.params, Safeguard: tc.safeguard, SafeguardEvery: tc.every, SameDraw: tc.sameDraw, Seed: 17, Rounds: rounds, Scale: tc.scale}
			ls, err := newLockstep(cfg, g, proc, inst)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := NewReference(cfg, g, proc, inst.locals, inst.box, inst.x0)
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			for r := 0; r < rounds; r++ {
				if err := ls.round(r); err != nil {
					t.Fatal(err)
				}
				if err := ref.Step(r); err != nil {
					t.Fatal(err)
				}
				worst = math.Max(worst, compare(t, ls, ref, g))
				if worst > relTol {
					t.Fatalf("round %d: agents deviate from the reference by %.3g (relative)", r, worst)
				}
			}
			var resets, dualSq float64
			var evals int64
			for _, a := range ls.agents {
				rep := a.Report()
				resets += rep.Measures[2]
				dualSq += rep.Measures[1]
				evals += rep.GradEvals
				if rep.Round != rounds {
					t.Errorf("agent %d reports %d rounds, want %d", a.ID(), rep.Round, rounds)
				}
			}
			if math.Abs(resets-float64(ref.Resets())) > 1e-9 {
				t.Errorf("agents count %v resets, reference %d", resets, ref.Resets())
			}
			most := rounds / 2 // at most one global reset per round
			if tc.safeguard == SafeguardEdge {
				most = rounds * len(g.Edges) / 4
			}
			if tc.wantResets && (ref.Resets() == 0 || ref.Resets() >= most) {
				t.Errorf("resets = %d: want some but not most rounds to reset", ref.Resets())
			}
			if !tc.wantResets && ref.Resets() != 0 {
				t.Errorf("resets = %d, want none", ref.Resets())
			}
			if evals != ref.GradEvals() || evals != int64(N*rounds) {
				t.Errorf("gradient samples: agents %d, reference %d, want %d", evals, ref.GradEvals(), N*rounds)
			}
			// Reports are in the units of f: the duals of sigma f over sigma.
			sigma := 1.0
			if tc.scale != 0 {
				sigma = tc.scale
			}
			var ysq float64
			for k := range g.Edges {
				yk := ref.Y(k)
				ysq += norm(yk) * norm(yk) / (sigma * sigma)
			}
			if math.Abs(dualSq-ysq) > 1e-12*math.Max(1, ysq) {
				t.Errorf("sum of DualSq shares %v, reference ||y/sigma||^2 %v", dualSq, ysq)
			}
			t.Logf("%d rounds, %d edges, max relative deviation %.2g, resets %d", rounds, len(g.Edges), worst, ref.Resets())
		})
	}
}

func withMy(p Steps, my float64) Steps     { p.My = my; return p }
func withSchedule(p Steps, s string) Steps { p.TauSchedule = s; return p }
