package observe

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus"
)

// TestReplicas: the consensus error of replicas, against a hand
// computation; a departed agent and agents outside ids take no part.
func TestReplicas(t *testing.T) {
	reps := []consensus.Report{
		{ID: 0, X: []float64{1, 2}},
		{ID: 1, X: []float64{3, 2}},
		{ID: 2},                         // departed
		{ID: 3, X: []float64{100, 100}}, // not a replica of the others
	}
	// xbar = (2, 2); ||x_0 - xbar||^2 = 1, ||x_1 - xbar||^2 = 1; (1/2)(1 + 1) = 1.
	if got := Replicas(reps, []int{0, 1, 2}); got != 1 {
		t.Errorf("Replicas = %v, want 1", got)
	}
	if got := Replicas(reps, []int{0}); got != 0 {
		t.Errorf("one replica: %v, want 0", got)
	}
	reps[1].X = []float64{3}
	if got := Replicas(reps, []int{0, 1}); !math.IsNaN(got) {
		t.Errorf("different lengths: %v, want NaN", got)
	}
}

// TestFinite: a NaN or an infinity anywhere in the reports is caught.
func TestFinite(t *testing.T) {
	ok := []consensus.Report{{X: []float64{1, -2}}, {X: nil}}
	if !Finite(ok) {
		t.Error("finite reports reported non-finite")
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		bad := []consensus.Report{{X: []float64{1}}, {X: []float64{0, v}}}
		if Finite(bad) {
			t.Errorf("%v not caught", v)
		}
	}
}
