package observe

import (
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
)

func TestReduceMeasures(t *testing.T) {
	decls := []consensus.Measure{
		{Name: "s", Reduce: consensus.ReduceSum}, {Name: "m", Reduce: consensus.ReduceMean},
		{Name: "hi", Reduce: consensus.ReduceMax}, {Name: "lo", Reduce: consensus.ReduceMin},
		{Name: "n", Reduce: consensus.ReduceNorm},
	}
	x := []float64{0}
	reps := []consensus.Report{
		{ID: 0, X: x, Measures: []float64{1, 2, 3, 4, 9}},
		{ID: 1}, // departed: takes no part
		{ID: 2, X: x, Measures: []float64{5, 6, -7, 8, 16}},
	}
	got, err := ReduceMeasures(decls, reps)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{6, 4, 3, 4, 5}
	for k, g := range got {
		if g.Name != decls[k].Name || g.Value != want[k] {
			t.Errorf("%s = %v, want %v", g.Name, g.Value, want[k])
		}
	}
	reps[2].Measures = reps[2].Measures[:2]
	if _, err := ReduceMeasures(decls, reps); err == nil || !strings.Contains(err.Error(), "agent 2 reports 2 measures") {
		t.Errorf("short report: %v", err)
	}
	if got, _ := ReduceMeasures(nil, reps); got != nil {
		t.Errorf("no declarations: %v", got)
	}
	nan := []consensus.Report{{ID: 0, X: x, Measures: []float64{math.NaN(), 0, 0, 0, 0}}}
	if got, _ := ReduceMeasures(decls, nan); !math.IsNaN(got[0].Value) {
		t.Errorf("a NaN must propagate, got %v", got[0].Value)
	}
}

func TestCheckMeasures(t *testing.T) {
	for _, c := range []struct {
		decls []consensus.Measure
		want  string
	}{
		{[]consensus.Measure{{Name: "ok_1", Reduce: consensus.ReduceSum}}, ""},
		{[]consensus.Measure{{Name: "Bad", Reduce: consensus.ReduceSum}}, "lower case"},
		{[]consensus.Measure{{Name: "round", Reduce: consensus.ReduceSum}}, "fixed column"},
		{[]consensus.Measure{{Name: "a", Reduce: consensus.ReduceSum}, {Name: "a", Reduce: consensus.ReduceMax}}, "twice"},
		{[]consensus.Measure{{Name: "a", Reduce: "median"}}, "not one of sum, mean, max, min, norm"},
	} {
		err := CheckMeasures(c.decls, []string{"round"})
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.decls, err, c.want)
		}
	}
}
