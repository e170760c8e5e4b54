package alm

import (
	"math"
	"slices"
	"testing"

	"github.com/consim/consim/consensus"
	driver "github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
	"github.com/consim/consim/observe"
)

// lossyDrop loses every message of phase ph from one agent to another
// independently with probability rate, per direction (one-sided loss):
// U(seed, t, StreamLoss.Phase(ph), from, to) < rate.
func lossyDrop(seed uint64, rate float64) func(t, ph, from, to int) bool {
	return func(t, ph, from, to int) bool {
		return graph.StreamLoss.Phase(ph).Uniform(seed, uint64(t), uint64(from), uint64(to)) < rate
	}
}

// TestOneSidedLossNoFork runs the agents under 10% one-sided loss of every
// message (both phases) and checks after every round, with o < u the
// endpoints of each edge:
//
//   - the reader's copy of y_ou is never newer than the owner's value,
//     and a copy of the owner's version is bit-identical to it (no fork);
//   - the copy is the owner's value whenever the owner's phase-1 message of
//     the round arrived (the delay ends at the first delivered copy);
//   - observe.DualDrift of the reports reads exactly 0 in every round.
//
// Convergence: on a static graph (p = 1, Algorithm 1) with exact
// gradients the run reaches the closed-form minimizer x* to 1e-8 despite
// the loss (a fixed point of the lossless iteration is one of the lossy
// one: at consensus the lost terms are zero and the copies are current).
// With random edges (p = 0.7) and exact gradients the random A(zeta1)^T y
// term leaves a noise floor even without loss; there the lossy run must
// end within 3 times the lossless run's distance to x*.
func TestOneSidedLossNoFork(t *testing.T) {
	const N, n, rounds, rate = 6, 3, 3000, 0.1
	cases := []struct {
		name string
		p    float64
	}{
		{"static graph", 1},
		{"random edges p = 0.7", 0.7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := randomGraph(N, 0.5, tc.p, 4)
			if err != nil {
				t.Fatal(err)
			}
			inst := newQuadInstance(N, n, N, 0, 3, objective.Box{Lo: -0.4, Hi: 0.4}, 6)
			consts, err := ConstantsFor(g, inst.locals)
			if err != nil {
				t.Fatal(err)
			}
			// The constant step of TestAlgorithm1Static.
			p := Practical(consts, 1)
			p.Beta = 0.5 * p.Tau * p.Mu
			cfg := Config{Steps: p, Safeguard: SafeguardGlobal, Seed: 3, ReportDuals: true}
			run := func(rate float64, check bool) float64 {
				ls, err := newLockstep(cfg, g, graph.Bernoulli{G: g, Seed: 5}, inst)
				if err != nil {
					t.Fatal(err)
				}
				drop := lossyDrop(77, rate)
				agents := make([]consensus.Agent, N)
				for i, a := range ls.agents {
					agents[i] = a
				}
				d, err := driver.New(agents, driver.WithDrop(drop))
				if err != nil {
					t.Fatal(err)
				}
				var lagRounds, lostCopies int
				var maxLag int64
				for r := range rounds {
					if err := d.Round(r); err != nil {
						t.Fatal(err)
					}
					if !check {
						continue
					}
					lagging := false
					for _, e := range g.Edges {
						o, u := ls.agents[e.I], ls.agents[e.J]
						yo, _ := o.Dual(e.J)
						yu, _ := u.Dual(e.I)
						vo, vu := version(o, e.J), version(u, e.I)
						switch {
						case vu > vo:
							t.Fatalf("round %d: edge {%d,%d}: reader's copy has version %d, newer than the owner's %d", r, e.I, e.J, vu, vo)
						case vu == vo && !slices.Equal(yo, yu):
							t.Fatalf("round %d: edge {%d,%d}: fork at version %d: owner %v, reader %v", r, e.I, e.J, vo, yo, yu)
						case vu < vo:
							lagging = true
							maxLag = max(maxLag, vo-vu)
						}
						pr := proc(ls)
						pushed := pr.Active(r, graph.DrawDual, e.I, e.J) || pr.Active(r, graph.DrawAdjoint, e.I, e.J)
						if pushed && !drop(r, 1, e.I, e.J) && vu != vo {
							t.Fatalf("round %d: edge {%d,%d}: the owner's copy arrived, yet the reader is at version %d, the owner at %d", r, e.I, e.J, vu, vo)
						}
						if pushed && drop(r, 1, e.I, e.J) {
							lostCopies++
						}
					}
					if lagging {
						lagRounds++
					}
					dr, ok := observe.DualDrift(reports(ls))
					if !ok || dr.Sum != 0 || dr.Edges+dr.Lagging != len(g.Edges) {
						t.Fatalf("round %d: drift %+v (ok %v) over %d edges, want sum 0 over all of them", r, dr, ok, len(g.Edges))
					}
				}
				var worst float64
				for _, a := range ls.agents {
					worst = math.Max(worst, dist(a.X(), inst.xstar))
				}
				if check {
					tr := d.Traffic()
					dr, _ := observe.DualDrift(reports(ls))
					t.Logf("loss %v: dropped %d of %d messages (%d copies); a copy lagged in %d of %d rounds, by up to %d rounds; final drift %+v; max_i ||x_i - x*|| = %.3g",
						rate, tr.Dropped, tr.Sent, lostCopies, lagRounds, rounds, maxLag, dr, worst)
					if tr.Dropped == 0 || lostCopies == 0 || lagRounds == 0 {
						t.Fatalf("%d messages and %d copies lost, %d lagging rounds: the loss exercised nothing", tr.Dropped, lostCopies, lagRounds)
					}
				}
				return worst
			}
			lossy := run(rate, true)
			if tc.p == 1 {
				if !(lossy < 1e-8) {
					t.Errorf("max_i ||x_i - x*|| = %.3g after %d rounds under %v one-sided loss, want < 1e-8", lossy, rounds, rate)
				}
				return
			}
			clean := run(0, false)
			t.Logf("without loss: max_i ||x_i - x*|| = %.3g", clean)
			if !(lossy < 3*clean) {
				t.Errorf("max_i ||x_i - x*|| = %.3g under loss, %.3g without: want within a factor 3", lossy, clean)
			}
		})
	}
}

// version returns agent a's version of the dual of edge {a.ID(), j}.
func version(a *Agent, j int) int64 {
	for k := range a.nb {
		if a.nb[k].j == j {
			return a.ver[k]
		}
	}
	return -1
}

// proc returns the edge process of the lockstep network's agents.
func proc(ls *lockstep) graph.EdgeProcess { return ls.agents[0].proc }

// reports returns the agents' reports, by id.
func reports(ls *lockstep) []consensus.Report {
	out := make([]consensus.Report, len(ls.agents))
	for i, a := range ls.agents {
		out[i] = a.Report()
	}
	return out
}
