package observe

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// randomRun returns n reports in R^dim with two declared measures, a
// graph with random edges and a problem of n local objectives.
func randomRun(t *testing.T, n, dim int) ([]consensus.Report, *graph.Graph, *objective.Problem, []consensus.Measure) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	reps := make([]consensus.Report, n)
	locals := make([]objective.Local, n)
	for i := range reps {
		x, a := make([]float64, dim), make([]float64, dim)
		for k := range x {
			x[k], a[k] = rng.NormFloat64()*10, rng.NormFloat64()
		}
		reps[i] = consensus.Report{ID: i, Round: 4, X: x, GradEvals: int64(i), Measures: []float64{rng.Float64(), rng.NormFloat64()}}
		locals[i] = sqLocal{a}
	}
	var edges []graph.Edge
	seen := map[[2]int]bool{}
	for i := 0; i < n; i++ {
		for _, j := range []int{(i + 1) % n, (i*7 + 3) % n} {
			if j > i && !seen[[2]int{i, j}] {
				seen[[2]int{i, j}] = true
				edges = append(edges, graph.Edge{I: i, J: j, P: rng.Float64()})
			}
		}
	}
	g, err := graph.New(n, edges)
	if err != nil {
		t.Fatal(err)
	}
	p := &objective.Problem{Locals: locals, FStar: -1, XStar: make([]float64, dim)}
	decls := []consensus.Measure{{Name: "s", Reduce: consensus.ReduceSum}, {Name: "n", Reduce: consensus.ReduceNorm}}
	return reps, g, p, decls
}

// plain is the measures computed in the plain ascending order, every sum
// from zero over all agents (the order Measure has for runs of at most
// Chunk agents).
func plain(p *objective.Problem, g *graph.Graph, reps []consensus.Report) Metrics {
	dim := len(reps[0].X)
	xbar := make([]float64, dim)
	for _, r := range reps {
		for k, v := range r.X {
			xbar[k] += v
		}
	}
	inv := 1 / float64(len(reps))
	for k := range xbar {
		xbar[k] *= inv
	}
	var spread, mass, feas float64
	for _, r := range reps {
		for k, v := range r.X {
			d := v - xbar[k]
			spread += float64(d * d)
			mass += float64(v * v)
		}
	}
	for _, e := range g.Edges {
		feas += float64(e.P * e.P * sqDist(reps[e.I].X, reps[e.J].X))
	}
	obj := p.Value(xbar)
	return Metrics{ConsensusErr: spread * inv, ConsensusErrRel: spread / mass, Feasibility: math.Sqrt(feas),
		ObjValue: obj, OptGap: obj - p.FStar, DistToOpt: math.Sqrt(sqDist(xbar, p.XStar))}
}

func sameBits(t *testing.T, what string, got, want Metrics) {
	t.Helper()
	for _, f := range []struct {
		name string
		a, b float64
	}{
		{"consensus_err", got.ConsensusErr, want.ConsensusErr},
		{"consensus_err_rel", got.ConsensusErrRel, want.ConsensusErrRel},
		{"feasibility", got.Feasibility, want.Feasibility},
		{"obj_value", got.ObjValue, want.ObjValue},
		{"opt_gap", got.OptGap, want.OptGap},
		{"dist_to_opt", got.DistToOpt, want.DistToOpt},
	} {
		if math.Float64bits(f.a) != math.Float64bits(f.b) {
			t.Errorf("%s: %s = %.17g, want %.17g", what, f.name, f.a, f.b)
		}
	}
}

// TestMeasureSmallRunsPlainOrder: a run of at most Chunk agents is
// measured in the plain ascending order, bit for bit.
func TestMeasureSmallRunsPlainOrder(t *testing.T) {
	for _, n := range []int{1, 3, 50, Chunk} {
		reps, g, p, _ := randomRun(t, n, 3)
		got, err := Measure(p, g, reps)
		if err != nil {
			t.Fatal(err)
		}
		want := plain(p, g, reps)
		if n == 1 {
			want.ConsensusErrRel = 0
		}
		sameBits(t, fmt.Sprintf("n=%d", n), got, want)
	}
}

// TestMeasurementSplits: the chunks of a Measurement computed by several
// goroutines, in any split, give Measure's bits, and ReduceMeasures'.
func TestMeasurementSplits(t *testing.T) {
	n := 2*Chunk + 300
	reps, g, p, decls := randomRun(t, n, 4)
	want, err := Measure(p, g, reps)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := ReduceMeasures(decls, reps)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 3} {
		m, err := NewMeasurement(g, ProblemObjective(p), decls)
		if err != nil {
			t.Fatal(err)
		}
		each := func(nc int, f func(c int)) {
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for c := w * nc / workers; c < (w+1)*nc/workers; c++ {
						f(c)
					}
				})
			}
			wg.Wait()
		}
		each(m.Chunks(), func(c int) {
			for i := c * Chunk; i < min((c+1)*Chunk, n); i++ {
				if err := m.Add(i, reps[i]); err != nil {
					t.Error(err)
				}
			}
		})
		if err := m.Mean(); err != nil {
			t.Fatal(err)
		}
		each(m.Chunks(), m.Spread)
		got := m.Metrics()
		sameBits(t, fmt.Sprintf("%d workers", workers), got, want)
		for k := range extra {
			if math.Float64bits(got.Extra[k].Value) != math.Float64bits(extra[k].Value) {
				t.Errorf("%d workers: %s = %v, ReduceMeasures %v", workers, extra[k].Name, got.Extra[k].Value, extra[k].Value)
			}
		}
	}
	// The consensus error is the one of SpreadOf.
	xs := make([][]float64, n)
	for i := range reps {
		xs[i] = reps[i].X
	}
	if ce := ConsensusError(xs); math.Float64bits(ce) != math.Float64bits(want.ConsensusErr) {
		t.Errorf("ConsensusError = %v, Measure %v", ce, want.ConsensusErr)
	}
}

func TestMeasurementErrors(t *testing.T) {
	reps, g, p, decls := randomRun(t, 3, 2)
	for _, tc := range []struct {
		name string
		mod  func([]consensus.Report)
		want string
	}{
		{"id", func(r []consensus.Report) { r[1].ID = 2 }, "report 1 comes from agent 2"},
		{"round", func(r []consensus.Report) { r[2].Round = 5 }, "agent 2 reports round 5, agent 0 round 4"},
		{"length", func(r []consensus.Report) { r[1].X = r[1].X[:1] }, "agent 1 reports x of length 1, agent 0 of length 2"},
		{"empty", func(r []consensus.Report) { r[0].X = []float64{} }, "agent 0 reports an empty x"},
		{"measures", func(r []consensus.Report) { r[2].Measures = nil }, "agent 2 reports 0 measures, its algorithm declares 2"},
		{"all departed", func(r []consensus.Report) { r[0].X, r[1].X, r[2].X = nil, nil, nil }, "every agent has departed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := append([]consensus.Report(nil), reps...)
			tc.mod(bad)
			m, err := NewMeasurement(g, ProblemObjective(p), decls)
			if err != nil {
				t.Fatal(err)
			}
			if err := measureAll(m, bad); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestDiverged(t *testing.T) {
	ok := Metrics{ConsensusErr: 1, Feasibility: 2, ObjValue: math.NaN()}
	if err := Diverged(ok, 0); err != nil {
		t.Errorf("a finite run with an unknown objective: %v", err)
	}
	for _, tc := range []struct {
		m     Metrics
		bound float64
		want  string
	}{
		{Metrics{ConsensusErr: math.NaN()}, 0, "consensus_err is NaN"},
		{Metrics{Feasibility: math.NaN()}, 0, "feasibility is NaN"},
		{Metrics{ObjValue: math.Inf(-1)}, 0, "obj_value = -Inf is beyond 1e+50"},
		{Metrics{ConsensusErr: 11}, 10, "consensus_err = 11 is beyond 10"},
	} {
		if err := Diverged(tc.m, tc.bound); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Diverged(%+v, %v) = %v, want %q", tc.m, tc.bound, err, tc.want)
		}
	}
}

func TestEvaluated(t *testing.T) {
	cols := []consensus.Measure{{Name: "c", Reduce: consensus.ReduceMax}}
	reps := []consensus.Report{{ID: 0, Round: 3, X: []float64{1}, GradEvals: 2}, {ID: 1, Round: 3, X: []float64{2}, GradEvals: 5}, {ID: 2}}
	e := registry.Evaluation{ConsensusErr: 0.5, ObjValue: 2, OptGap: 1, DistToOpt: 3, Feasibility: 4, Values: []float64{9}}
	m, err := Evaluated(e, cols, reps)
	if err != nil {
		t.Fatal(err)
	}
	if m.Round != 3 || m.GradEvals != 7 || m.ConsensusErr != 0.5 || m.Feasibility != 4 || !math.IsNaN(m.DualDrift) ||
		len(m.Extra) != 1 || m.Extra[0] != (Named{Name: "c", Value: 9}) {
		t.Errorf("Evaluated = %+v", m)
	}
	reps[1].X[0] = math.Inf(1)
	if m, _ := Evaluated(e, cols, reps); !math.IsNaN(m.ConsensusErr) {
		t.Errorf("an infinite iterate: consensus error %v, want NaN", m.ConsensusErr)
	}
	if _, err := Evaluated(registry.Evaluation{}, cols, reps); err == nil || !strings.Contains(err.Error(), "0 values, its columns 1") {
		t.Errorf("missing values: %v", err)
	}
}
