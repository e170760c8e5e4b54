package tsp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/lockstep"
)

// smallParams are TSP constants that keep the small random instances
// stable and move every variable (lambda becomes positive early).
func smallParams(znew bool) Constants {
	return Constants{Alpha: 0.5, Beta: 0.05, Eta: 0.01, Tau: 0.05, Mu: 0.7, Theta: 0.8, Omega: 0.3, P: 1,
		Gamma: 0.5, Delta: 0.01, Lambda0: 0.1, ZNew: znew}
}

// TestStarMatchesCentralized runs the star of agents under lockstep and
// the centralized TSP on the joined problem from the same start: the
// iterates must be the same bits every round. The centralized TSP on the
// monolithic problem (one task, a different summation order) must agree to
// 1e-12.
func TestStarMatchesCentralized(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tasks   int
		classes int
		znew    bool
	}{
		{"4 tasks", 4, 10, false},
		{"4 tasks znew", 4, 10, true},
		{"1 task 3 classes", 1, 3, false},
		{"7 tasks 3 classes", 7, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := smallCleaning(t, 11, 45, tc.classes)
			rng := rand.New(rand.NewPCG(4, 4))
			split := h.Split(tc.tasks)
			joined, err := h.Split(tc.tasks).Join()
			if err != nil {
				t.Fatal(err)
			}
			mono, err := h.Bilevel()
			if err != nil {
				t.Fatal(err)
			}
			x0 := randVec(rng, joined.NX, 0.5)
			y0 := randVec(rng, joined.NY, 0.1)
			prm := smallParams(tc.znew)
			ref, err := NewTSP(joined, x0, y0, prm)
			if err != nil {
				t.Fatal(err)
			}
			mref, err := NewTSP(mono, x0, y0, prm)
			if err != nil {
				t.Fatal(err)
			}
			star, err := NewStar(split, x0, y0, prm)
			if err != nil {
				t.Fatal(err)
			}
			if len(star.Tasks) != tc.tasks {
				t.Fatalf("%d tasks, want %d", len(star.Tasks), tc.tasks)
			}
			drv, err := lockstep.New(star.Agents())
			if err != nil {
				t.Fatal(err)
			}
			var lamMax float64
			for r := range 60 {
				if err := drv.Round(r); err != nil {
					t.Fatal(err)
				}
				ref.Step()
				mref.Step()
				x, y := star.Point()
				if !bitsEqual(x, ref.X) || !bitsEqual(y, ref.Y) || !bitsEqual(star.Upper.Z, ref.Z) ||
					star.Upper.Lambda != ref.Lambda || star.Upper.H != ref.H {
					t.Fatalf("round %d: star and centralized differ (lambda %v vs %v)", r, star.Upper.Lambda, ref.Lambda)
				}
				if d := math.Max(maxRel(ref.X, mref.X), maxRel(ref.Y, mref.Y)); d > 1e-12 || math.Abs(ref.Lambda-mref.Lambda) > 1e-12 {
					t.Fatalf("round %d: joined and monolithic differ by %g", r, d)
				}
				lamMax = math.Max(lamMax, ref.Lambda)
			}
			if lamMax == 0 || maxRel(ref.X, x0) == 0 {
				t.Fatal("the run did not exercise the dual or the x update")
			}
			// The reports carry the same point.
			var reps []consensus.Report
			for _, a := range star.Agents() {
				reps = append(reps, a.Report())
			}
			x, y, err := PointFromReports(reps)
			if err != nil || !bitsEqual(x, ref.X) || !bitsEqual(y, ref.Y) {
				t.Fatalf("PointFromReports: %v", err)
			}
			if reps[0].Round != 60 || reps[1].Round != 60 {
				t.Fatalf("report rounds %d, %d", reps[0].Round, reps[1].Round)
			}
		})
	}
}

func bitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestStarLostBroadcast checks that a lost broadcast is an error, not a
// silent divergence.
func TestStarLostBroadcast(t *testing.T) {
	h := smallCleaning(t, 3, 12, 10)
	split := h.Split(3)
	star, err := NewStar(split, make([]float64, 12), make([]float64, split.NY), smallParams(false))
	if err != nil {
		t.Fatal(err)
	}
	drv, err := lockstep.New(star.Agents(), lockstep.WithDrop(func(t, ph, from, to int) bool { return to == 2 && ph == 0 }))
	if err != nil {
		t.Fatal(err)
	}
	if err := drv.Round(0); err == nil {
		t.Fatal("lost broadcast not reported")
	}
}

func TestPointFromReportsErrors(t *testing.T) {
	for _, reps := range [][]consensus.Report{
		{{ID: 0}},
		{{ID: 0}, {ID: 0}},
		{{ID: 0}, {ID: 5}},
	} {
		if _, _, err := PointFromReports(reps); err == nil {
			t.Errorf("%v accepted", reps)
		}
	}
}
