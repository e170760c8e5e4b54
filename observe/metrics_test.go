package observe

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// sqLocal is f_i(x) = (1/2) ||x - a||^2.
type sqLocal struct{ a []float64 }

func (l sqLocal) Dim() int { return len(l.a) }
func (l sqLocal) Value(x []float64) float64 {
	var s float64
	for k, v := range x {
		d := v - l.a[k]
		s += d * d
	}
	return s / 2
}
func (l sqLocal) Grad(x, g []float64) {
	for k, v := range x {
		g[k] = v - l.a[k]
	}
}
func (l sqLocal) StochGrad(x, g []float64, _ *rand.Rand) int { l.Grad(x, g); return 1 }
func (l sqLocal) Smoothness() float64                        { return 1 }

// origin is min (1/3) sum_i (1/2)||x||^2 with x* = 0, f* = 0, on three agents.
func origin() *objective.Problem {
	z := []float64{0, 0}
	return &objective.Problem{
		Name:   "origin",
		Locals: []objective.Local{sqLocal{z}, sqLocal{z}, sqLocal{z}},
		Box:    objective.Box{Lo: math.Inf(-1), Hi: math.Inf(1)},
		XStar:  []float64{0, 0},
		FStar:  0,
		Convex: true,
	}
}

// path is the path 0 - 1 - 2 with p_01 = 1/2, p_12 = 1.
func path(t *testing.T) *graph.Graph {
	t.Helper()
	g, err := graph.New(3, []graph.Edge{{I: 0, J: 1, P: 0.5}, {I: 1, J: 2, P: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// reports returns three reports of round 7 at x_0 = (0,0), x_1 = (2,0),
// x_2 = (1,3): xbar = (1,1).
func reports() []consensus.Report {
	return []consensus.Report{
		{ID: 0, Round: 7, X: []float64{0, 0}, GradEvals: 10},
		{ID: 1, Round: 7, X: []float64{2, 0}, GradEvals: 20},
		{ID: 2, Round: 7, X: []float64{1, 3}, GradEvals: 30},
	}
}

func TestMeasure(t *testing.T) {
	nan := math.NaN()
	// Hand-computed for reports(): ||x_i - xbar||^2 = 2, 2, 4, so the
	// consensus error is 8/3; ||x_i||^2 = 0, 4, 10, so the relative error
	// is 8/14. ||x_0 - x_1||^2 = 4 and ||x_1 - x_2||^2 = 10, so the
	// feasibility is sqrt(1/4 * 4 + 1 * 10) = sqrt(11). f(xbar) = 1,
	// ||xbar|| = sqrt(2).
	want := Metrics{
		Round: 7, ConsensusErr: 8.0 / 3, ConsensusErrRel: 8.0 / 14,
		ObjValue: 1, OptGap: 1, DistToOpt: math.Sqrt2,
		Feasibility: math.Sqrt(11), GradEvals: 60,
	}
	noOpt := want
	noOpt.OptGap = nan
	noOpt.DistToOpt = nan
	noProblem := noOpt
	noProblem.ObjValue = nan

	zero := reports()
	for i := range zero {
		zero[i].X = []float64{0, 0}
	}
	shifted := origin()
	shifted.FStar = -0.5
	shifted.XStar = []float64{1, 0}

	tests := []struct {
		name string
		p    *objective.Problem
		reps []consensus.Report
		want Metrics
	}{
		{"hand computed", origin(), reports(), want},
		{"shifted optimum", shifted, reports(), func() Metrics { m := want; m.OptGap = 1.5; m.DistToOpt = 1; return m }()},
		{"unknown optimum", func() *objective.Problem { p := origin(); p.FStar = nan; p.XStar = nil; return p }(), reports(), noOpt},
		{"no problem", nil, reports(), noProblem},
		{"all at zero", origin(), zero, Metrics{Round: 7, GradEvals: 60}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Measure(tc.p, path(t), tc.reps)
			if err != nil {
				t.Fatal(err)
			}
			if got.Round != tc.want.Round || got.GradEvals != tc.want.GradEvals {
				t.Errorf("round, grad evals = %d, %d; want %d, %d", got.Round, got.GradEvals, tc.want.Round, tc.want.GradEvals)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"ConsensusErr", got.ConsensusErr, tc.want.ConsensusErr},
				{"ConsensusErrRel", got.ConsensusErrRel, tc.want.ConsensusErrRel},
				{"ObjValue", got.ObjValue, tc.want.ObjValue},
				{"OptGap", got.OptGap, tc.want.OptGap},
				{"DistToOpt", got.DistToOpt, tc.want.DistToOpt},
				{"Feasibility", got.Feasibility, tc.want.Feasibility},
			} {
				if !same(f.got, f.want) {
					t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
				}
			}
		})
	}
}

func TestMeasureNaNPropagates(t *testing.T) {
	reps := reports()
	reps[1].X[0] = math.NaN()
	got, err := Measure(origin(), path(t), reps)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]float64{"ConsensusErr": got.ConsensusErr, "Feasibility": got.Feasibility, "OptGap": got.OptGap} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v with a NaN iterate, want NaN", name, v)
		}
	}
	if got.GradEvals != 60 {
		t.Errorf("GradEvals = %v, want 60 (it does not depend on x)", got.GradEvals)
	}
}

func TestMeasureRejects(t *testing.T) {
	tests := []struct {
		name   string
		g      func(*testing.T) *graph.Graph
		p      *objective.Problem
		edit   func([]consensus.Report) []consensus.Report
		substr string
	}{
		{"nil graph", func(*testing.T) *graph.Graph { return nil }, origin(), nil, "nil graph"},
		{"no reports", path, origin(), func([]consensus.Report) []consensus.Report { return nil }, "no reports"},
		{"too few", path, origin(), func(r []consensus.Report) []consensus.Report { return r[:2] }, "2 reports for a graph of 3"},
		{"not indexed by id", path, origin(), func(r []consensus.Report) []consensus.Report { r[0], r[1] = r[1], r[0]; return r }, "indexed by agent id"},
		{"mixed rounds", path, origin(), func(r []consensus.Report) []consensus.Report { r[2].Round = 8; return r }, "one round"},
		{"mixed dims", path, origin(), func(r []consensus.Report) []consensus.Report { r[1].X = []float64{1}; return r }, "length 1"},
		{"empty x", path, origin(), func(r []consensus.Report) []consensus.Report {
			for i := range r {
				r[i].X = []float64{}
			}
			return r
		}, "empty x"},
		{"all departed", path, origin(), func(r []consensus.Report) []consensus.Report {
			for i := range r {
				r[i].X = nil
			}
			return r
		}, "every agent has departed"},
		{"x* of wrong length", path, func() *objective.Problem { p := origin(); p.XStar = []float64{0}; return p }(), nil, "x* has length 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reps := reports()
			if tc.edit != nil {
				reps = tc.edit(reps)
			}
			_, err := Measure(tc.p, tc.g(t), reps)
			if err == nil || !strings.Contains(err.Error(), tc.substr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.substr)
			}
		})
	}
}

// same reports whether a and b agree to 1e-12 relative, NaN matching NaN.
func same(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}
