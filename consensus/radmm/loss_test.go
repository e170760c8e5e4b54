package radmm

import (
	"slices"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/observe"
)

// TestMessageLoss checks the edge variables under injected loss (20% of
// every message, phase by phase) on top of random edge activation (p =
// 0.6), with the exact method on least squares. Every edge's z_e and y_e
// have one writer, the lower endpoint o; the higher endpoint u holds
// copies. After every round, for every edge:
//
//   - u's copies are never of a newer version than o's values, and copies
//     of o's version are bit-identical to them (no fork), so
//     observe.DualDrift of the reports reads exactly 0;
//   - a present edge whose x_u did not reach o kept o's values and
//     version (the round's update is left out, not applied at one end);
//   - a present edge whose three messages arrived (x both ways, o's
//     values to u) has equal values and versions at both ends.
//
// Both symmetric loss (both directions together) and one-sided loss must
// still converge to x* to 1e-8 with sum_i Lambda_i -> 0; one-sided loss
// must have delayed some copies (Lagging > 0 in some round).
func TestMessageLoss(t *testing.T) {
	const N, n, rounds = 6, 3, 3000
	p := lsProblem(t, N, n, 30, 1, 0.01, 5)
	g := randomGraph(t, N, 0.4, 0.6, 3)
	proc := graph.Bernoulli{G: g, Seed: 8}
	x0 := startPoints(N, n, 3, 4)
	tests := []struct {
		name      string
		drop      lockstep.DropFunc
		symmetric bool
	}{
		{"symmetric loss", func(t, ph, from, to int) bool {
			return graph.StreamLoss.Phase(ph).Uniform(99, uint64(t), uint64(min(from, to)), uint64(max(from, to))) < 0.2
		}, true},
		{"one-sided loss", func(t, ph, from, to int) bool {
			return graph.StreamLoss.Phase(ph).Uniform(99, uint64(t), uint64(from), uint64(to)) < 0.2
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nw := newNetwork(t, Config{Rho: 0.05, ReportDuals: true}, g, proc, p, x0, lockstep.WithDrop(tc.drop))
			var lagRounds, leftOut int
			for r := range rounds {
				type state struct {
					z, y []float64
					v    int64
				}
				before := make(map[[2]int]state) // owner's (z_e, y_e, version) by edge
				for _, e := range g.Edges {
					o := nw.agents[e.I]
					before[[2]int{e.I, e.J}] = state{o.EdgeZ(e.J), o.EdgeY(e.J), o.EdgeVersion(e.J)}
				}
				nw.run(t, r, 1)
				for _, e := range g.Edges {
					o, u := nw.agents[e.I], nw.agents[e.J]
					vo, vu := o.EdgeVersion(e.J), u.EdgeVersion(e.I)
					same := slices.Equal(o.EdgeZ(e.J), u.EdgeZ(e.I)) && slices.Equal(o.EdgeY(e.J), u.EdgeY(e.I))
					switch {
					case vu > vo:
						t.Fatalf("round %d: edge {%d,%d}: the copy's version %d is newer than the owner's %d", r, e.I, e.J, vu, vo)
					case vu == vo && !same:
						t.Fatalf("round %d: edge {%d,%d}: fork at version %d", r, e.I, e.J, vo)
					}
					if !proc.Active(r, graph.DrawDual, e.I, e.J) {
						continue
					}
					toO, toU := !tc.drop(r, 0, e.J, e.I), !tc.drop(r, 0, e.I, e.J)
					if !toO {
						b := before[[2]int{e.I, e.J}]
						if vo != b.v || !slices.Equal(o.EdgeZ(e.J), b.z) || !slices.Equal(o.EdgeY(e.J), b.y) {
							t.Fatalf("round %d: edge {%d,%d}: x_%d was lost, yet the owner wrote the edge", r, e.I, e.J, e.J)
						}
						leftOut++
					}
					if toO && toU && !tc.drop(r, 1, e.I, e.J) && (vo != vu || !same) {
						t.Fatalf("round %d: edge {%d,%d}: every message arrived, yet the ends hold versions %d and %d", r, e.I, e.J, vo, vu)
					}
				}
				reps := make([]consensus.Report, N)
				for i, a := range nw.agents {
					reps[i] = a.Report()
				}
				d, ok := observe.DualDrift(reps)
				if !ok || d.Sum != 0 || d.Edges+d.Lagging != len(g.Edges) {
					t.Fatalf("round %d: drift %+v (ok %v), want sum 0 over all %d edges", r, d, ok, len(g.Edges))
				}
				if d.Lagging > 0 {
					lagRounds++
				}
			}
			tr := nw.drv.Traffic()
			dy, dz := nw.drift(g)
			e := nw.maxDist(p.XStar)
			s := norm(nw.lambdaSum())
			t.Logf("dropped %d of %d messages, %d edge-rounds left out at the owner; a copy lagged in %d rounds; at the end max ||y_o - y_u|| %.3g, ||z_o - z_u|| %.3g; max_i ||x_i - x*|| = %.3g; ||sum_i Lambda_i|| = %.3g",
				tr.Dropped, tr.Sent, leftOut, lagRounds, dy, dz, e, s)
			if tr.Dropped == 0 || leftOut == 0 {
				t.Fatalf("%d messages dropped, %d updates left out: the loss exercised nothing", tr.Dropped, leftOut)
			}
			if !tc.symmetric && lagRounds == 0 {
				t.Errorf("one-sided loss never delayed a copy")
			}
			if !(e < 1e-8) {
				t.Errorf("max_i ||x_i - x*|| = %.3g after %d rounds, want < 1e-8", e, rounds)
			}
			if !(s < 1e-8) {
				t.Errorf("||sum_i Lambda_i|| = %.3g at the end, want -> 0", s)
			}
			// The reported duals are the agent's, with their versions.
			rep := nw.agents[0].Report()
			for _, ed := range rep.EdgeDuals {
				if !slices.Equal(ed.Y, nw.agents[0].EdgeY(ed.Peer)) || ed.Version != nw.agents[0].EdgeVersion(ed.Peer) {
					t.Errorf("Report.EdgeDuals for peer %d = %v version %d, want %v version %d", ed.Peer, ed.Y, ed.Version, nw.agents[0].EdgeY(ed.Peer), nw.agents[0].EdgeVersion(ed.Peer))
				}
			}
			if len(rep.EdgeDuals) != len(g.Neighbors(0)) {
				t.Errorf("%d edge duals reported, agent 0 has %d edges", len(rep.EdgeDuals), len(g.Neighbors(0)))
			}
		})
	}
}
