package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/consensus/almstorm"
	"github.com/consim/consim/consensus/fair"
	"github.com/consim/consim/consensus/metrics"
	"github.com/consim/consim/consensus/penalty"
	"github.com/consim/consim/consensus/slicing"
	"github.com/consim/consim/consensus/zosplm"
	"github.com/consim/consim/dataset"
)

// numbers collects the values of an experiment, one record a line, every
// number written exactly (fmt's %v: strconv 'g', -1 for floats).
type numbers struct{ strings.Builder }

func (n *numbers) line(v ...any) { fmt.Fprintln(n, v...) }

// floorFit writes the fields of a fitted rate.
func (n *numbers) floorFit(name string, f metrics.FloorFit) {
	n.line(name, f.Rate, f.Lo, f.Hi, f.From, f.To, f.Floor, f.FloorStart, f.FloorLevel, f.TailRate)
}

// TestGoldenNumbers runs the experiments of TestGoldenReproduce's cases
// without their clocks and compares every number they compute with
// testdata/golden/numbers/<case>.txt, bit for bit.
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
			checkGolden(t, filepath.Join("testdata", "golden", "numbers", c.name+".txt"), n.String())
		})
	}
}

func goldenADMM(t *testing.T, n *numbers) {
	exp := admm.PortfolioExperiment{Assets: 20, Periods: 200, MeanHi: 0.1, Mu: 0.01,
		Params: admm.Params{Eta: 0.005, Rho: 1, K: 400, Batch: 2}, Outer: 6, Seed: 3, Alg2: true}
	for ci, cov := range []float64{2, 10} {
		e := exp
		e.Cov, e.Instance = cov, uint64(ci)
		res, err := admm.RunPortfolioExperiment(e, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		n.line("cov", cov, s.PStar, s.InitialGap, s.M, s.N, s.SGDSteps)
		for _, r := range res.Records {
			n.line(r.Method, r.Outer, r.Calls, r.Gap)
		}
	}
}

func goldenZOSPLM(t *testing.T, n *numbers) {
	trace := func(e zosplm.Experiment, m string, trial int) {
		tr, err := e.RunTrial(m, trial, nil)
		if err != nil {
			t.Fatal(err)
		}
		n.line(e.N, e.K, tr.Method, tr.Trial, tr.ItersToEps, tr.Iters, tr.Evals)
		for i, p := range tr.Points {
			n.line(i, p.Objective, p.Stationarity, p.Feasibility, p.Complementarity)
		}
	}
	for _, dim := range []int{6, 8} {
		e := zosplm.Experiment{N: dim, K: 200, Trials: 2, Seed: 3, MaxIter: 60, Eps: 1}
		for _, m := range zosplm.Methods {
			for trial := range e.Trials {
				trace(e, m, trial)
			}
		}
		pe := zosplm.Experiment{N: dim, K: 20, Trials: 1, Seed: 3, MaxIter: 15, Eps: 1, RunAll: true}
		for _, m := range zosplm.Methods {
			trace(pe, m, 0)
		}
	}
}

// penaltyTraces writes the traces and claims of a penalty section.
func penaltyTraces(n *numbers, traces []penalty.Trace, claims []penalty.Claim) {
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
	spec := penalty.PaperSynthetic(2)
	spec.N, spec.Samples, spec.Core = 10, 400, 5
	r, err := penalty.Experiment51(spec, 150, 5)
	if err != nil {
		t.Fatal(err)
	}
	n.line("opt", r.Opt.F, r.Opt.KKT.Max())
	penaltyTraces(n, []penalty.Trace{r.Constant, r.Dynamic}, r.Claims)
}

func goldenPenalty52(t *testing.T, n *numbers) {
	d, err := dataset.LoadLIBSVM(filepath.Join(sharedData, "a9a/a9a.gz"), dataset.LIBSVMOptions{Dim: 123})
	if err != nil {
		t.Fatal(err)
	}
	rows := min(d.Rows(), 1000)
	y, err := dataset.SignLabels(d.Y[:rows])
	if err != nil {
		t.Fatal(err)
	}
	spec := penalty.PaperFiniteSum(1)
	spec.Core = 5
	r, err := penalty.Experiment52(mat.NewDense(rows, d.Dim, d.X[:rows*d.Dim]), y, spec, 8, 2,
		[]penalty.Rule2{penalty.Thm3i, penalty.Thm3ii, penalty.Thm4i, penalty.Thm4ii})
	if err != nil {
		t.Fatal(err)
	}
	n.line("opt", r.Problem.Opt.F, r.Problem.Opt.KKT.Max())
	penaltyTraces(n, append(r.Alg2, r.EAG), r.Claims)
}

func goldenTSP(t *testing.T, n *numbers) {
	f := tspFlags{seed: 3, seeds: 2, rounds: 4, every: 2, train: 60, val: 60, methods: "TSP,BOME,PBGD,MEHA"}
	train, test, err := loadDigits(filepath.Join(sharedData, "mnist"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.seeds {
		res, err := f.experiment(f.seed+uint64(i)).Run(train, test, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range res.Traces {
			n.line(res.Seed, tr.Method, tr.Diverged)
			for _, p := range tr.Points {
				n.line(p.Round, p.Evals, p.Accuracy, p.F1, p.Multiplier)
			}
		}
	}
}

func goldenSlicing(t *testing.T, n *numbers) {
	opt := slicing.DefaultTable()
	opt.Seeds, opt.Rounds, opt.Every, opt.Losses = []uint64{4, 5}, 60, 20, []float64{0, 0.2}
	opt.Gen.Nodes, opt.Gen.Flows = 12, 3
	rows, sums, err := slicing.Table(opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		n.line(r.Seed, r.Loss, r.LP, r.Objective, r.Gap, r.Violation, r.BinaryFrac, r.Binary, r.Feasible,
			r.RoundFeasible, r.RoundObjective, r.RoundGap, r.Rounds, r.Messages, r.Bytes, r.Dropped)
	}
	for _, s := range sums {
		n.line(s.Loss, s.Instances, s.BinaryFeasible, s.RoundFeasible, s.MeanGap, s.MeanRoundGap, s.MeanRounds, s.MeanMessages, s.MeanBytes)
	}
}

func goldenRates(t *testing.T, n *numbers) {
	f := ratesFlags{n: 6, erQ: 0.5, seed: 1, budget: 2000, almSeeds: 10, almRounds: 300, batches: 10}
	graphs, err := f.graphs()
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"gossip", "alm"} {
		for _, rg := range graphs {
			for _, p := range []float64{1, 0.5} {
				g, err := rg.g.WithUniformP(p)
				if err != nil {
					t.Fatal(err)
				}
				var r rateRow
				if method == "gossip" {
					r, err = f.gossipRow(rg.name, g, p)
				} else {
					r, err = f.almRow(rg.name, g, p)
				}
				if err != nil {
					t.Fatal(err)
				}
				n.line(r.method, r.graph, r.p, r.pred1, r.pred2, r.pred3, r.exact, r.predSE, r.obs2Start, r.winMean, r.winMS, r.seeds, r.rounds)
				n.floorFit("obs", r.obs)
				n.floorFit("obs2", r.obs2)
				n.line("errors", r.obsErr, "|", r.obs2Err)
			}
		}
	}
}

func goldenStorm(t *testing.T, n *numbers) {
	f := stormFlags{seeds: 2, fitFrom: 100, agents: 4, dim: 3, batch: 2, p: 1, points: 4, stormCTau: almstorm.PracticalCTau, certBatch: 1000}
	var runs []stormRun
	for _, m := range f.methods() {
		for s := 1; s <= f.seeds; s++ {
			for _, T := range []int{64, 125, 216} {
				r, pts, err := f.one(m, uint64(s), T)
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, r)
				n.line(r.method, r.seed, r.T, r.samples, r.meanZ, r.lastZ, r.lastX, r.tStar, r.cert.KKT, r.cert.Feasibility, r.cert.GradMap)
				for _, p := range pts {
					n.line(p.round, p.samples, p.statZ, p.statX)
				}
			}
		}
	}
	for _, ft := range f.fit(runs) {
		n.line(ft.method, ft.paper, ft.slopes, ft.mean, ft.half, ft.lastMean, ft.lastHalf, ft.agree, ft.window)
	}
}

func goldenCompare(t *testing.T, n *numbers) {
	f := compareFlags{seeds: 2, rounds: 300, every: 50, consTol: 1e-3, statTol: 0.03, dgdC: 0.5, gtC: 0.2}
	all := f.allCompareMethods()
	for _, p := range []float64{1, 0.5} {
		for _, name := range []string{"alm", "alm_storm", "dgd", "dgd_sqrt", "tracking", "penalty_asg", "penalty_asg_constant", "alm_nodual"} {
			for s := 1; s <= f.seeds; s++ {
				r, err := f.one(all[name], p, uint64(s))
				if err != nil {
					t.Fatal(err)
				}
				n.line(r.method, r.p, r.seed, r.cons.round, r.cons.messages, r.cons.samples,
					r.stat.round, r.stat.messages, r.stat.samples, r.finalCons, r.finalStat)
			}
		}
	}
}

// fairnessRows writes the rows of a fairness table.
func fairnessRows(t *testing.T, n *numbers, dir string, losses []string, p fair.Params) {
	train, test, err := loadAdult(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ls []fair.Loss
	for _, s := range losses {
		l, err := fair.ParseLoss(s)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	rows, err := fair.Table(train, test, ls, []float64{math.Inf(1), 0.01}, p, 1e-4, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		n.line(r.Loss, r.C, r.Sampled, r.TrainCov, r.TrainObj, r.TestAcc, r.TestPRule, r.Certificate, r.RefObj, r.RefCov, r.RefTestAcc, r.Samples)
	}
}

func goldenFairness(t *testing.T, n *numbers) {
	dir := t.TempDir()
	train := strings.Join(adultLines, "\n") + "\n"
	test := "|1x3 Cross validator\n" + strings.ReplaceAll(train, "50K\n", "50K.\n")
	if err := os.WriteFile(filepath.Join(dir, "adult.data"), []byte(train), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "adult.test"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	fairnessRows(t, n, dir, []string{"logistic", "logdiff", "smooth01"}, fair.Params{Rounds: 200, Batch: 2, Seed: 1})
}

func goldenFairnessAdult(t *testing.T, n *numbers) {
	fairnessRows(t, n, filepath.Join(sharedData, "adult"), []string{"logdiff", "smooth01"},
		fair.Params{Rounds: 200, Batch: 8, Seed: 2, SampledConstraint: true})
}
