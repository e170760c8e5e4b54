package observe

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus"
)

func TestDualDrift(t *testing.T) {
	dual := func(peer int, y ...float64) consensus.EdgeDual { return consensus.EdgeDual{Peer: peer, Y: y} }
	// Path 0 - 1 - 2: edge {0,1} replicas (1,2) and (1,2); edge {1,2}
	// replicas (0,0) at 1 and (3,4) at 2: drift 25.
	reps := func() []consensus.Report {
		return []consensus.Report{
			{ID: 0, EdgeDuals: []consensus.EdgeDual{dual(1, 1, 2)}},
			{ID: 1, EdgeDuals: []consensus.EdgeDual{dual(0, 1, 2), dual(2, 0, 0)}},
			{ID: 2, EdgeDuals: []consensus.EdgeDual{dual(1, 3, 4)}},
		}
	}
	tests := []struct {
		name string
		reps []consensus.Report
		want Drift
		ok   bool
	}{
		{"one drifting edge", reps(), Drift{Sum: 25, Max: 25, Edges: 2}, true},
		{"equal replicas", func() []consensus.Report {
			r := reps()
			r[2].EdgeDuals[0].Y = []float64{0, 0}
			return r
		}(), Drift{Edges: 2}, true},
		{"two drifting edges", func() []consensus.Report {
			r := reps()
			r[0].EdgeDuals[0].Y = []float64{1, 1}
			return r
		}(), Drift{Sum: 26, Max: 25, Edges: 2}, true},
		{"missing replica side", func() []consensus.Report {
			r := reps()
			r[2].EdgeDuals = nil
			return r
		}(), Drift{Edges: 1}, true},
		{"no duals", []consensus.Report{{ID: 0}, {ID: 1}}, Drift{}, false},
		// Versioned (single-writer) duals: a copy at an older version is
		// a lag, not compared; the same version with different values is
		// a fork and is.
		{"lagging copy", func() []consensus.Report {
			r := reps()
			r[1].EdgeDuals[1].Version = 7 // writer 1 wrote {1,2} in round 6
			r[2].EdgeDuals[0].Version = 3 // reader 2 holds the value of round 2
			return r
		}(), Drift{Edges: 1, Lagging: 1, MaxLag: 4}, true},
		{"fork at one version", func() []consensus.Report {
			r := reps()
			r[1].EdgeDuals[1].Version = 7
			r[2].EdgeDuals[0].Version = 7
			return r
		}(), Drift{Sum: 25, Max: 25, Edges: 2}, true},
		{"only lagging edges", func() []consensus.Report {
			r := reps()[1:]
			r[0].EdgeDuals[1].Version = 2
			return r
		}(), Drift{Lagging: 1, MaxLag: 2}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := DualDrift(tc.reps)
			if got != tc.want || ok != tc.ok {
				t.Errorf("DualDrift = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestMeasureDualDrift(t *testing.T) {
	m, err := Measure(origin(), path(t), reports())
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(m.DualDrift) {
		t.Errorf("DualDrift without edge duals = %v, want NaN", m.DualDrift)
	}
	reps := reports()
	reps[0].EdgeDuals = []consensus.EdgeDual{{Peer: 1, Y: []float64{1, 0}}}
	reps[1].EdgeDuals = []consensus.EdgeDual{{Peer: 0, Y: []float64{0, 0}}, {Peer: 2, Y: []float64{2, 2}}}
	reps[2].EdgeDuals = []consensus.EdgeDual{{Peer: 1, Y: []float64{2, 0}}}
	if m, err = Measure(origin(), path(t), reps); err != nil {
		t.Fatal(err)
	}
	if m.DualDrift != 5 {
		t.Errorf("DualDrift = %v, want 1 + 4 = 5", m.DualDrift)
	}
}

// TestMeasureDeparted: agent 2 of the path has departed (nil x); the
// measures run over agents 0 and 1, at x_0 = (0,0), x_1 = (2,0): xbar =
// (1,0), consensus error (1 + 1)/2 = 1, feasibility over edge {0,1} only:
// sqrt(1/4 * 4) = 1, and f(xbar) = ||xbar||^2/2 = 1/2.
func TestMeasureDeparted(t *testing.T) {
	reps := reports()
	reps[2] = consensus.Report{ID: 2, Round: 99}
	m, err := Measure(origin(), path(t), reps)
	if err != nil {
		t.Fatal(err)
	}
	if m.Round != 7 || m.ConsensusErr != 1 || m.Feasibility != 1 || m.ObjValue != 0.5 || m.GradEvals != 30 {
		t.Errorf("got round %d, consensus %v, feasibility %v, f %v, grad evals %d; want 7, 1, 1, 0.5, 30",
			m.Round, m.ConsensusErr, m.Feasibility, m.ObjValue, m.GradEvals)
	}
}
