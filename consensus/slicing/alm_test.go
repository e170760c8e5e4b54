package slicing

import (
	"math"
	"testing"

	problem "github.com/consim/consim/problems/slicing"
)

// small returns the example instance (ExampleJSON) and its model.
func small(t *testing.T) (*problem.Instance, *problem.Model) {
	t.Helper()
	in, err := problem.DecodeInstance([]byte(problem.ExampleJSON))
	if err != nil {
		t.Fatal(err)
	}
	md, err := problem.NewModel(in)
	if err != nil {
		t.Fatal(err)
	}
	return in, md
}

// TestSmallMustShow: on the example instance the distributed regularized
// ALM (agents in lockstep) ends at a binary placement whose objective is
// within 1% of the binary optimum found by enumeration, with violation
// below 1e-4, and rounding it gives a feasible slice of the same cost.
func TestSmallMustShow(t *testing.T) {
	_, md := small(t)
	bin, err := problem.BinaryOptimum(md, 1000)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Practical(md, 2, 0.5, 0.05, 0)
	res, err := Run(cfg, md, RunOptions{Rounds: 20000, Every: 50, Tol: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	ms := res.Measures
	t.Logf("binary optimum %.6f over %d placements; ALM after %d rounds: g %.6f, violation %.2e, binary %.2f, %d messages, %d bytes",
		bin.Objective, bin.Placements, res.Rounds, ms.Objective, ms.Violation, ms.BinaryFrac, res.Messages, res.Bytes)
	if !ms.Binary {
		t.Errorf("placement is not binary: fraction %v", ms.BinaryFrac)
	}
	if ms.Violation >= 1e-4 {
		t.Errorf("violation %v >= 1e-4", ms.Violation)
	}
	if gap := (ms.Objective - bin.Objective) / bin.Objective; math.Abs(gap) > 0.01 {
		t.Errorf("objective %v is %.2f%% from the binary optimum %v", ms.Objective, 100*gap, bin.Objective)
	}
	rd, err := problem.Round(md, res.W)
	if err != nil {
		t.Fatal(err)
	}
	if !rd.Feasible || math.Abs(rd.Objective-bin.Objective) > 1e-6*bin.Objective {
		t.Errorf("rounding: feasible %v, objective %v, binary optimum %v", rd.Feasible, rd.Objective, bin.Objective)
	}
	// Two phases per round; each node sends to every out- and
	// in-neighbour once per phase.
	links := int64(len(md.Inst.Links))
	if want := 2 * links * int64(res.Rounds); res.Messages != want {
		t.Errorf("messages %d, want 2 |L| rounds = %d", res.Messages, want)
	}
}

// TestLossRun runs the example under 10% emulated loss: the agents keep
// stepping on the last received values, the loss is counted, the run
// replays bit for bit, and it still ends binary and feasible.
func TestLossRun(t *testing.T) {
	_, md := small(t)
	cfg := Practical(md, 2, 0.5, 0.05, 0)
	opt := RunOptions{Rounds: 20000, Every: 50, Tol: 1e-4, Loss: 0.1, LossSeed: 3}
	a, err := Run(cfg, md, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(cfg, md, opt)
	if err != nil {
		t.Fatal(err)
	}
	if frac := float64(a.Dropped) / float64(a.Messages); frac < 0.07 || frac > 0.13 {
		t.Errorf("dropped %d of %d messages (%.3f), want about 10%%", a.Dropped, a.Messages, frac)
	}
	for c := range a.W {
		if math.Float64bits(a.W[c]) != math.Float64bits(b.W[c]) {
			t.Fatalf("replay differs at w[%d]: %v vs %v", c, a.W[c], b.W[c])
		}
	}
	t.Logf("10%% loss: %d rounds, g %.6f, violation %.2e, binary %.2f, dropped %d of %d",
		a.Rounds, a.Measures.Objective, a.Measures.Violation, a.Measures.BinaryFrac, a.Dropped, a.Messages)
	if !a.Measures.Binary || a.Measures.Violation >= 1e-4 {
		t.Errorf("under loss: binary %v, violation %v", a.Measures.Binary, a.Measures.Violation)
	}
}
