package pushsum

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
)

// TestEvaluate checks push_sum's measures on hand-made reports: the
// average of the initial points (1, 2) and (3, 6) is (2, 4), f* =
// (1/2)(||(-1,-2)||^2 + ||(1,2)||^2)/2 = 2.5, and estimates (2, 5) and
// (4, 4) give zbar = (3, 4.5), gap (1/2)(1 + 0.25), max_err 2 and
// feasibility p ||z_0 - z_1|| on the one edge.
func TestEvaluate(t *testing.T) {
	g, err := graph.Path(2)
	if err != nil {
		t.Fatal(err)
	}
	g, _ = g.WithUniformP(0.5)
	x0 := [][]float64{{1, 2}, {3, 6}}
	env := &registry.Env{N: 2, Graph: g, Init: func(i int) []float64 { return append([]float64(nil), x0[i]...) }}
	r := &averageRun{env: env}
	fstar, convex, err := r.Optimum()
	if err != nil || fstar != 2.5 || !convex {
		t.Fatalf("Optimum = %v, %v, %v; want 2.5, true", fstar, convex, err)
	}
	e, err := r.Evaluate([]consensus.Report{{ID: 0, X: []float64{2, 5}}, {ID: 1, X: []float64{4, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	want := registry.Evaluation{ConsensusErr: 1.25, ObjValue: 2.5 + 0.625, OptGap: 0.625, DistToOpt: math.Sqrt(1.25),
		Feasibility: 0.5 * math.Sqrt(5), Values: []float64{2}}
	if e.ConsensusErr != want.ConsensusErr || e.ObjValue != want.ObjValue || e.OptGap != want.OptGap ||
		math.Abs(e.DistToOpt-want.DistToOpt) > 1e-15 || math.Abs(e.Feasibility-want.Feasibility) > 1e-15 || e.Values[0] != 2 {
		t.Errorf("Evaluate = %+v, want %+v", e, want)
	}
	if ms := r.Measures(); len(ms) != 1 || ms[0].Name != "max_err" || !ms[0].Evaluated {
		t.Errorf("measures %v", r.Measures())
	}
	e, err = r.Evaluate([]consensus.Report{{ID: 0}, {ID: 1, X: []float64{2, 4}}})
	if err != nil || e.Values[0] != 0 || e.OptGap != 0 || e.Feasibility != 0 {
		t.Errorf("one agent departed: %+v, %v", e, err)
	}
	if _, err := r.Evaluate([]consensus.Report{{ID: 0, X: []float64{1}}, {ID: 1}}); err == nil {
		t.Error("a report of the wrong length: no error")
	}
	if _, err := r.Evaluate([]consensus.Report{{ID: 0}, {ID: 1}}); err == nil {
		t.Error("no report: no error")
	}
}
