package radmm

import (
	"math"
	"slices"
	"testing"

	"github.com/consim/consim/consensus/lockstep"
	"github.com/consim/consim/graph"
)

// TestMessageLoss checks the edge replicas under injected loss on top of
// random edge activation (p = 0.6), with the exact method on least
// squares:
//
//   - after every round, an edge both of whose messages arrived has
//     bit-identical replicas z_e and y_e at its endpoints, and an edge with
//     neither message arrived kept both endpoints' replicas unchanged;
//   - symmetric loss (both directions lost together) never makes the
//     replicas differ, and the run converges to x* to 1e-8;
//   - one-sided loss makes them differ (the drift is reported through
//     Report.EdgeDuals), the drift heals at the next two-way exchange, and
//     the run still converges to x* to 1e-8 with sum_i Lambda_i -> 0.
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
		{"symmetric loss", func(t, _, from, to int) bool {
			return graph.StreamLoss.Uniform(99, uint64(t), uint64(min(from, to)), uint64(max(from, to))) < 0.2
		}, true},
		{"one-sided loss", func(t, _, from, to int) bool {
			return graph.StreamLoss.Uniform(99, uint64(t), uint64(from), uint64(to)) < 0.2
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nw := newNetwork(t, Config{Rho: 0.05, ReportDuals: true}, g, proc, p, x0, lockstep.WithDrop(tc.drop))
			var maxDrift float64
			var oneSided, healed int
			for r := range rounds {
				before := make(map[[2]int][2][]float64) // (i, j) -> agent i's z_e, y_e
				for _, e := range g.Edges {
					for _, ij := range [][2]int{{e.I, e.J}, {e.J, e.I}} {
						a := nw.agents[ij[0]]
						before[ij] = [2][]float64{a.EdgeZ(ij[1]), a.EdgeY(ij[1])}
					}
				}
				dyBefore, _ := nw.drift(g)
				nw.run(t, r, 1)
				for _, e := range g.Edges {
					if !proc.Active(r, graph.DrawDual, e.I, e.J) {
						continue
					}
					ai, aj := nw.agents[e.I], nw.agents[e.J]
					gotI, gotJ := !tc.drop(r, 0, e.J, e.I), !tc.drop(r, 0, e.I, e.J)
					switch {
					case gotI && gotJ:
						if !slices.Equal(ai.EdgeZ(e.J), aj.EdgeZ(e.I)) || !slices.Equal(ai.EdgeY(e.J), aj.EdgeY(e.I)) {
							t.Fatalf("round %d: edge {%d,%d} arrived both ways but its replicas differ", r, e.I, e.J)
						}
					case !gotI && !gotJ:
						for _, ij := range [][2]int{{e.I, e.J}, {e.J, e.I}} {
							a := nw.agents[ij[0]]
							if !slices.Equal(a.EdgeZ(ij[1]), before[ij][0]) || !slices.Equal(a.EdgeY(ij[1]), before[ij][1]) {
								t.Fatalf("round %d: edge {%d,%d} lost both ways but agent %d changed its replicas", r, e.I, e.J, ij[0])
							}
						}
					default:
						oneSided++
					}
				}
				dy, _ := nw.drift(g)
				if dyBefore > 0 && dy < dyBefore {
					healed++
				}
				maxDrift = math.Max(maxDrift, dy)
				if tc.symmetric && dy != 0 {
					t.Fatalf("round %d: symmetric loss, yet replicas differ by %.3g", r, dy)
				}
			}
			tr := nw.drv.Traffic()
			dy, dz := nw.drift(g)
			e := nw.maxDist(p.XStar)
			t.Logf("dropped %d of %d messages, %d one-sided edge-rounds; max drift of y %.3g (at the end: y %.3g, z %.3g); %d rounds reduced the drift; max_i ||x_i - x*|| = %.3g; ||sum_i Lambda_i|| = %.3g",
				tr.Dropped, tr.Sent, oneSided, maxDrift, dy, dz, healed, e, norm(nw.lambdaSum()))
			if tr.Dropped == 0 {
				t.Fatal("no message was dropped")
			}
			if !(e < 1e-8) {
				t.Errorf("max_i ||x_i - x*|| = %.3g after %d rounds, want < 1e-8", e, rounds)
			}
			if !tc.symmetric {
				if oneSided == 0 || maxDrift == 0 || healed == 0 {
					t.Errorf("one-sided loss: %d one-sided edge-rounds, max drift %.3g, %d healing rounds; want all > 0", oneSided, maxDrift, healed)
				}
				if s := norm(nw.lambdaSum()); s > 1e-8 {
					t.Errorf("||sum_i Lambda_i|| = %.3g at the end, want -> 0", s)
				}
			}
			// The reported replicas are the agent's.
			rep := nw.agents[0].Report()
			for _, ed := range rep.EdgeDuals {
				if !slices.Equal(ed.Y, nw.agents[0].EdgeY(ed.Peer)) {
					t.Errorf("Report.EdgeDuals for peer %d = %v, want %v", ed.Peer, ed.Y, nw.agents[0].EdgeY(ed.Peer))
				}
			}
			if len(rep.EdgeDuals) != len(g.Neighbors(0)) {
				t.Errorf("%d edge duals reported, agent 0 has %d edges", len(rep.EdgeDuals), len(g.Neighbors(0)))
			}
		})
	}
}
