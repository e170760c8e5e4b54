package alm

import (
	"math"
	"testing"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// runRounds drives a lockstep network through rounds from, ..., from+rounds-1.
func runRounds(t *testing.T, ls *lockstep, from, rounds int) {
	t.Helper()
	for r := from; r < from+rounds; r++ {
		if err := ls.round(r); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAlgorithm1Static runs the agents with every p_ij = 1, exact gradients
// and no safeguard (Algorithm 1 on a static graph) and checks that they
// reach the known minimizer proj_X(sum a_i c_i / sum a_i) of a convex
// quadratic, with an active bound.
func TestAlgorithm1Static(t *testing.T) {
	cases := []struct {
		name   string
		N, n   int
		q      float64
		rounds int
	}{
		{name: "ring N=5", N: 5, n: 3, q: 0, rounds: 3000},
		{name: "random N=8", N: 8, n: 4, q: 0.4, rounds: 3000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := randomGraph(tc.N, tc.q, 1, 21)
			if err != nil {
				t.Fatal(err)
			}
			inst := newQuadInstance(tc.N, tc.n, float64(tc.N), 0, 3, objective.Box{Lo: -0.4, Hi: 0.4}, 8)
			consts, err := ConstantsFor(g, inst.locals)
			if err != nil {
				t.Fatal(err)
			}
			// Exact gradients and a deterministic A: the practical preset
			// with horizon 1 takes the constant step tau = 1/(2 L_K), and
			// beta = 0.5 tau mu keeps the proximal center below the
			// preset's c_beta = 1 for this deterministic run.
			p := Practical(consts, 1)
			p.Beta = 0.5 * p.Tau * p.Mu
			cfg := Config{Steps: p, Safeguard: SafeguardNone}
			ls, err := newLockstep(cfg, g, graph.Bernoulli{G: g, Seed: 1}, inst)
			if err != nil {
				t.Fatal(err)
			}
			ce0, _ := consensusErr(ls.xs())
			runRounds(t, ls, 0, tc.rounds)
			ce, xbar := consensusErr(ls.xs())
			gap := inst.value(xbar) - inst.value(inst.xstar)
			var kkt float64
			for _, a := range ls.agents {
				kkt += a.Report().Measures[0]
			}
			active := 0
			for _, v := range inst.xstar {
				if v == inst.box.Lo || v == inst.box.Hi {
					active++
				}
			}
			t.Logf("consensus error %.3g -> %.3g, ||xbar - x*|| = %.3g, gap %.3g, KKT^2 %.3g, %d active bounds",
				ce0, ce, dist(xbar, inst.xstar), gap, kkt, active)
			if active == 0 {
				t.Errorf("instance has no active bound at x*; the box test is vacuous")
			}
			if ce > 1e-20 || dist(xbar, inst.xstar) > 1e-10 || math.Abs(gap) > 1e-12 || kkt > 1e-20 {
				t.Errorf("not converged: consensus %.3g, distance %.3g, gap %.3g, KKT^2 %.3g", ce, dist(xbar, inst.xstar), gap, kkt)
			}
		})
	}
}

// TestPracticalStochastic runs the practical preset on a stochastic
// quadratic over a random graph whose edges are present with p = 0.5, from
// initial points spread over [-10, 10]^n, and checks that the consensus
// error (averaged over the last 500 rounds) falls by at least 1e4.
func TestPracticalStochastic(t *testing.T) {
	cases := []struct {
		name     string
		cBeta    float64 // beta = cBeta tau mu; 0 keeps the preset
		seed     uint64
		wantDist float64 // bound on ||xbar - x*|| at the end; 0 skips
	}{
		{name: "preset, seed 1", seed: 1},
		{name: "preset, seed 2", seed: 2},
		{name: "c_beta = 0.5", cBeta: 0.5, seed: 3, wantDist: 0.05},
	}
	const N, n, rounds, tail = 8, 5, 4000, 500
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := randomGraph(N, 0.4, 0.5, 20+tc.seed)
			if err != nil {
				t.Fatal(err)
			}
			inst := newQuadInstance(N, n, N, 1, 10, objective.Box{Lo: -20, Hi: 20}, tc.seed)
			consts, err := ConstantsFor(g, inst.locals)
			if err != nil {
				t.Fatal(err)
			}
			p := Practical(consts, rounds)
			if tc.cBeta > 0 {
				p.Beta = tc.cBeta * p.Tau * p.Mu
			}
			cfg := Config{Steps: p, Safeguard: SafeguardGlobal, Seed: tc.seed, Rounds: rounds}
			ls, err := newLockstep(cfg, g, graph.Bernoulli{G: g, Seed: tc.seed}, inst)
			if err != nil {
				t.Fatal(err)
			}
			ce0, _ := consensusErr(ls.xs())
			runRounds(t, ls, 0, rounds-tail)
			var ce float64
			var xbar []float64
			for r := rounds - tail; r < rounds; r++ {
				runRounds(t, ls, r, 1)
				var c float64
				c, xbar = consensusErr(ls.xs())
				ce += c / tail
			}
			d := dist(xbar, inst.xstar)
			t.Logf("consensus error %.3g -> %.3g (ratio %.3g), ||xbar - x*|| = %.3g, tau %.3g eta %.3g beta %.3g",
				ce0, ce, ce0/ce, d, p.Tau, p.Eta, p.Beta)
			if ce0/ce < 1e4 {
				t.Errorf("consensus error fell by %.3g, want at least 1e4", ce0/ce)
			}
			if tc.wantDist > 0 && d > tc.wantDist {
				t.Errorf("||xbar - x*|| = %.3g, want at most %.3g", d, tc.wantDist)
			}
		})
	}
}
