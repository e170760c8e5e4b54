package experiments_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	penaltyalg "github.com/consim/consim/consensus/penalty"
	"github.com/consim/consim/experiments/admm"
	"github.com/consim/consim/experiments/compare"
	"github.com/consim/consim/experiments/fairness"
	"github.com/consim/consim/experiments/penalty"
	"github.com/consim/consim/experiments/rates"
	"github.com/consim/consim/experiments/slicing"
	"github.com/consim/consim/experiments/storm"
	"github.com/consim/consim/experiments/tsp"
	"github.com/consim/consim/experiments/zosplm"
	"github.com/consim/consim/observe"
)

// update rewrites the golden files from the current code:
// go test ./experiments -run Golden -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// sharedData is the shared data directory (a9a, MNIST, Adult) that the
// tests of every package read, when it is present.
const sharedData = "/work/shared/data"

// noClock is a clock that never advances: the numbers do not depend on it.
func noClock() time.Duration { return 0 }

// numbers collects the values of an experiment, one record a line, every
// number written exactly (fmt's %v: strconv 'g', -1 for floats).
type numbers struct{ strings.Builder }

func (n *numbers) line(v ...any) { fmt.Fprintln(n, v...) }

// floorFit writes the fields of a fitted rate.
func (n *numbers) floorFit(name string, f observe.FloorFit) {
	n.line(name, f.Rate, f.Lo, f.Hi, f.From, f.To, f.Floor, f.FloorStart, f.FloorLevel, f.TailRate)
}

// TestGoldenNumbers runs every experiment at the small size of the
// golden test of `consim reproduce` (cmd/consim, TestGoldenReproduce),
// without its clock, and compares every number it computes with
// testdata/golden/<case>.txt, bit for bit. The files were recorded from
// the experiments as they were before they became this package's
// children; a change of layout must leave them as they are.
func TestGoldenNumbers(t *testing.T) {
	for _, c := range []struct {
		name, data string
		run        func(t *testing.T, n *numbers)
	}{
		{"admm", "", goldenADMM},
		{"zo-splm", "", goldenZOSPLM},
		{"penalty-5.1", "", goldenPenalty51},
		{"penalty-5.2", "a9a/a9a.gz", goldenPenalty52},
		{"tsp", "mnist", goldenTSP},
		{"slicing", "", goldenSlicing},
		{"rates", "", goldenRates},
		{"storm", "", goldenStorm},
		{"compare", "", goldenCompare},
		{"fairness", "", goldenFairness},
		{"fairness-adult", "adult", goldenFairnessAdult},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.data != "" {
				if _, err := os.Stat(filepath.Join(sharedData, c.data)); err != nil {
					t.Skipf("data not found: %v", err)
				}
			}
			var n numbers
			c.run(t, &n)
			checkGolden(t, filepath.Join("testdata", "golden", c.name+".txt"), n.String())
		})
	}
}

func goldenADMM(t *testing.T, n *numbers) {
	c := admm.QuickConfig()
	c.Experiment.Seed, c.Experiment.Outer, c.Experiment.Alg2, c.Clock = 3, 6, true, noClock
	r, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for ci, cov := range c.Covs {
		s := r.Summaries[ci]
		n.line("cov", cov, s.PStar, s.InitialGap, s.M, s.N, s.SGDSteps)
		for _, rec := range r.Records {
			if rec.Cov == cov {
				n.line(rec.Method, rec.Outer, rec.Calls, rec.Gap)
			}
		}
	}
}

func goldenZOSPLM(t *testing.T, n *numbers) {
	c := zosplm.Config{Ns: []int{6, 8}, Seed: 3, Trials: 2, K: 200, MaxIter: 60, Eps: 1, PlotK: 20, PlotIters: 15, Clock: noClock,
		Regimes: []zosplm.Regime{zosplm.Tuned, zosplm.EqualStep, zosplm.Theory}, Parallel: 2}
	r, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	trace := func(t zosplm.Trial) {
		tr := t.Trace
		n.line(t.N, t.K, tr.Method, tr.Trial, tr.ItersToEps, tr.Iters, tr.Evals)
		for i, p := range tr.Points {
			n.line(i, p.Objective, p.Stationarity, p.Feasibility, p.Complementarity)
		}
	}
	for _, reg := range c.Regimes {
		if reg != zosplm.Tuned {
			// The tuned regime's lines come first, unlabelled: they are the
			// lines recorded before the regimes existed.
			n.line("regime", reg)
		}
		for _, dim := range c.Ns {
			for _, tr := range r.Trials {
				if tr.N == dim && tr.Regime == reg {
					trace(tr)
				}
			}
			for _, tr := range r.Conv {
				if tr.N == dim && tr.Regime == reg {
					trace(tr)
				}
			}
		}
	}
}

// penaltyTraces writes the traces and claims of a penalty section.
func penaltyTraces(n *numbers, traces []penaltyalg.Trace, claims []penalty.Claim) {
	for _, tr := range traces {
		n.line(tr.Method, tr.FStar)
		for _, r := range tr.Records {
			n.line(r.Iter, r.GradEvals, r.Objective, r.Violation, r.Rho)
		}
	}
	for _, c := range claims {
		n.line(c.Section, c.Holds, c.Text, c.Detail)
	}
}

func goldenPenalty51(t *testing.T, n *numbers) {
	c := penalty.DefaultConfig()
	c.Do52, c.Seed, c.K51, c.Every51, c.N, c.Samples, c.Core = false, 2, 150, 5, 10, 400, 5
	r, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n.line("opt", r.R51.Opt.F, r.R51.Opt.KKT.Max())
	penaltyTraces(n, []penaltyalg.Trace{r.R51.Constant, r.R51.Dynamic}, r.R51.Claims)
	f := r.R51.Finding
	n.line("finding", f.MaxAbsXStar, f.FStarMinusLn2, f.Lambda, f.MaxGradW0, f.SteinFactor, f.MaxStein, f.Lf, f.Lc2, f.SpectralSq)
	n.line("steps", f.StepSum, f.ProxBound, f.Moved, f.Left)
	for _, s := range f.Sensitivity {
		n.line("lc2", s.Lc2, s.Label, s.StepSum, s.Gap)
	}
}

func goldenPenalty52(t *testing.T, n *numbers) {
	c := penalty.DefaultConfig()
	c.Do51, c.Core, c.K52, c.Every52 = false, 5, 8, 2
	var err error
	if c.A9A, err = penalty.LoadA9A(filepath.Join(sharedData, "a9a/a9a.gz"), 1000); err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n.line("opt", r.R52.Problem.Opt.F, r.R52.Problem.Opt.KKT.Max())
	penaltyTraces(n, append(r.R52.Alg2, r.R52.EAG), r.R52.Claims)
}

func goldenTSP(t *testing.T, n *numbers) {
	c := tsp.DefaultConfig()
	c.Seed, c.Seeds, c.Rounds, c.Every, c.Train, c.Val, c.Clock = 3, 2, 4, 2, 60, 60, noClock
	var err error
	if c.Data, err = tsp.LoadMNIST(filepath.Join(sharedData, "mnist")); err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range r.Results {
		for _, tr := range res.Traces {
			n.line(res.Seed, tr.Method, tr.Diverged)
			for _, p := range tr.Points {
				n.line(p.Round, p.Evals, p.Accuracy, p.F1, p.Multiplier)
			}
		}
	}
}

func goldenSlicing(t *testing.T, n *numbers) {
	c := slicing.DefaultConfig()
	c.Seeds, c.Rounds, c.Every, c.Losses = []uint64{4, 5}, 60, 20, []float64{0, 0.2}
	c.Gen.Nodes, c.Gen.Flows = 12, 3
	r, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range r.Rows {
		n.line(r.Seed, r.Loss, r.LP, r.Objective, r.Gap, r.Violation, r.BinaryFrac, r.Binary, r.Feasible,
			r.RoundFeasible, r.RoundObjective, r.RoundGap, r.Rounds, r.Messages, r.Bytes, r.Dropped,
			r.BinaryOpt, r.BBNodes, r.SliceBinary, r.SliceFeasible, r.SliceCost, r.SliceViolation, r.PlaceCost, r.PlaceAbove, r.SliceAbove)
	}
	for _, s := range r.Sums {
		n.line(s.Loss, s.Instances, s.BinaryFeasible, s.RoundFeasible, s.MeanGap, s.MeanRoundGap, s.MeanRounds, s.MeanMessages, s.MeanBytes,
			s.SliceBinary, s.SliceFeasible, s.Routable, s.MedianPlaceAbove, s.WorstPlaceAbove, s.MedianSliceAbove, s.WorstSliceAbove)
	}
}

func goldenRates(t *testing.T, n *numbers) {
	c := rates.Config{Ps: []float64{1, 0.5}, Methods: []string{"gossip", "alm"}, N: 6, ERQ: 0.5, Seed: 1,
		Budget: 2000, ALMSeeds: 10, ALMRounds: 300, Batches: 10}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		n.line(r.Method, r.Graph, r.P, r.Pred1, r.Pred2, r.Pred3, r.Exact, r.PredSE, r.Obs2Start, r.WinMean, r.WinMS, r.Seeds, r.Rounds)
		n.floorFit("obs", r.Obs)
		n.floorFit("obs2", r.Obs2)
		n.line("errors", r.ObsErr, "|", r.Obs2Err)
	}
}

func goldenStorm(t *testing.T, n *numbers) {
	c := storm.DefaultConfig()
	c.Seeds, c.Horizons, c.FitFrom, c.Agents, c.Dim, c.Batch, c.Points = 2, []int{64, 125, 216}, 100, 4, 3, 2, 4
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		n.line(r.Method, r.Seed, r.T, r.Samples, r.MeanZ, r.LastZ, r.LastX, r.TStar, r.Cert.KKT, r.Cert.Feasibility, r.Cert.GradMap)
		for _, p := range res.Points {
			if p.Method == r.Method && p.Seed == r.Seed && p.T == r.T {
				n.line(p.Round, p.Samples, p.StatZ, p.StatX)
			}
		}
	}
	for _, ft := range res.Fits {
		n.line(ft.Method, ft.Paper, ft.Slopes, ft.Mean, ft.Half, ft.LastMean, ft.LastHalf, ft.Agree, ft.Window)
	}
}

func goldenCompare(t *testing.T, n *numbers) {
	c := compare.DefaultConfig()
	c.Seeds, c.Ps, c.Rounds, c.Every, c.ConsTol, c.StatTol = 2, []float64{1, 0.5}, 300, 50, 1e-3, 0.03
	c.Methods = []string{"alm", "alm_storm", "dgd", "dgd_sqrt", "tracking", "penalty_asg", "penalty_asg_constant", "alm_nodual"}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		n.line(r.Method, r.P, r.Seed, r.Cons.Round, r.Cons.Messages, r.Cons.Samples,
			r.Stat.Round, r.Stat.Messages, r.Stat.Samples, r.FinalCons, r.FinalStat)
	}
}

// fairnessRows writes the rows of the fairness table of c on the Adult
// files of dir.
func fairnessRows(t *testing.T, n *numbers, dir string, c fairness.Config) {
	var err error
	if c.Data, err = fairness.LoadAdult(dir); err != nil {
		t.Fatal(err)
	}
	c.Cs = []float64{math.Inf(1), 0.01}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		n.line(r.Loss, r.C, r.Sampled, r.TrainCov, r.TrainObj, r.TestAcc, r.TestPRule, r.Certificate, r.RefObj, r.RefCov, r.RefTestAcc, r.Samples,
			r.RefPRule, r.RefGap, r.RefKKT)
	}
}

func goldenFairness(t *testing.T, n *numbers) {
	c := fairness.DefaultConfig()
	c.Params.Rounds, c.Params.Batch = 200, 2
	fairnessRows(t, n, filepath.Join("testdata", "adult-small"), c)
}

func goldenFairnessAdult(t *testing.T, n *numbers) {
	c := fairness.DefaultConfig()
	c.Losses = []string{"logdiff", "smooth01"}
	c.Params.Rounds, c.Params.Batch, c.Params.Seed, c.Params.SampledConstraint = 200, 8, 2, true
	fairnessRows(t, n, filepath.Join(sharedData, "adult"), c)
}

// checkGolden compares got with the golden file path, or writes it with
// -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to record it)", err)
	}
	if got != string(want) {
		w, g := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := range max(len(w), len(g)) {
			if i >= len(w) || i >= len(g) || w[i] != g[i] {
				t.Fatalf("%s differs from the golden file from line %d:\n  want %q\n  got  %q", path, i+1, at(w, i), at(g, i))
			}
		}
	}
}

// at is lines[i], or "" past the end.
func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}
