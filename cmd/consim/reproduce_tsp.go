package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/consim/consim/consensus/tsp"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/problems/hyperclean"
	"github.com/consim/consim/sim"
)

// defaultMNIST is where `consim reproduce tsp` looks for the MNIST files:
// the shared data directory beside the repository.
const defaultMNIST = "../shared/data/mnist"

// tspFlags are the flags of `consim reproduce tsp`.
type tspFlags struct {
	out, mnist, methods                        string
	seed                                       uint64
	seeds, rounds, every, train, val, parallel int
}

// reproduceTSPCmd is `consim reproduce tsp`: TSP and the penalty
// baselines on MNIST data hyper-cleaning (Lu, ICML 2025, Section 4).
func (a *app) reproduceTSPCmd() *cobra.Command {
	var f tspFlags
	def := tsp.DefaultExperiment(1, tsp.DefaultRounds)
	cmd := &cobra.Command{
		Use:   "tsp",
		Short: "TSP, BOME, V-PBGD and MEHA on MNIST data hyper-cleaning (Lu, ICML 2025, §4)",
		Long: `Tsp runs TSP (Algorithm 1) and the baselines BOME, V-PBGD and MEHA on the
data hyper-cleaning problem of Lu's Section 4: 5,000 MNIST training
samples, half of them with a wrong label, 5,000 validation samples and
the 10,000 test images (--mnist DIR holds the four MNIST .gz files). Each
of --seeds seeds (--seed, --seed+1, ...) draws its own split and
corruption; every method runs --rounds rounds from x = 0, y = 0 and is
measured every --every rounds: the test accuracy of y and the F1 of the
clean-sample detection x_i >= 0. It writes tsp.csv, plots (PNG and SVG) of
both measures against rounds (means over the seeds) and table.md (peak and
final accuracy and F1, mean ± std over the seeds, next to the paper's),
which it also prints with the wall time, into a new directory: --out must
not exist. The seconds in tsp.csv are the process CPU time of the
method's steps; --parallel runs that many seeds at once, and the seconds
are then wall time.`,
		Example: `  consim reproduce tsp
  consim reproduce tsp --seeds 2 --parallel 2
  consim reproduce tsp --mnist /data/mnist --rounds 300 --seeds 1`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce tsp: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fl := cmd.Flags()
	addOutFlag(cmd, &f.out, "output `DIR`, which must not exist (default results/reproduce-tsp-<UTC time>-<4 hex>)")
	fl.StringVar(&f.mnist, "mnist", defaultMNIST, "`DIR` holding {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz")
	mustComplete(cmd, "mnist", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	fl.Uint64Var(&f.seed, "seed", 1, "first seed; seed i is --seed + i")
	fl.IntVar(&f.seeds, "seeds", 5, "number of seeds (split and corruption draws)")
	fl.IntVar(&f.rounds, "rounds", tsp.DefaultRounds, "rounds (outer iterations) of every method")
	fl.IntVar(&f.every, "every", def.Every, "measure every this many rounds")
	fl.StringVar(&f.methods, "methods", strings.Join(def.Methods, ","), "comma-separated methods among TSP, BOME, PBGD, MEHA")
	fl.IntVar(&f.train, "train", def.Data.Train, "training samples (half corrupted)")
	fl.IntVar(&f.val, "val", def.Data.Val, "validation samples")
	fl.IntVar(&f.parallel, "parallel", 1, "seeds run at once")
	for _, n := range []string{"seed", "seeds", "rounds", "every", "methods", "train", "val", "parallel"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(a.stdout, a.stderr)
	})
	return cmd
}

// experiment returns the experiment of seed from the flags: the paper's
// setting with --train, --val, --rounds, --every and --methods.
func (f *tspFlags) experiment(seed uint64) tsp.Experiment {
	e := tsp.DefaultExperiment(seed, f.rounds)
	e.Every = f.every
	e.Data.Train, e.Data.Val = f.train, f.val
	e.Methods = strings.Split(f.methods, ",")
	for i := range e.Methods {
		e.Methods[i] = strings.TrimSpace(e.Methods[i])
	}
	// The constants are stated for a mean over the training samples and
	// converted to the sum of e.Data.Train samples.
	e.Convert(tsp.DefaultMeanUnits(), e.Data.Train, f.rounds)
	return e
}

// run resolves the flags, loads MNIST, runs the seeds and writes the
// results.
func (f *tspFlags) run(stdout, stderr io.Writer) error {
	switch {
	case f.seeds < 1:
		return usagef("reproduce tsp: --seeds %d: want >= 1", f.seeds)
	case f.parallel < 1:
		return usagef("reproduce tsp: --parallel %d: want >= 1", f.parallel)
	case f.train < 10 || f.val < 10:
		return usagef("reproduce tsp: --train %d, --val %d: want >= 10", f.train, f.val)
	}
	if err := f.experiment(f.seed).Validate(); err != nil {
		return usagef("reproduce tsp: %w", err)
	}
	train, test, err := loadDigits(f.mnist)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usagef("reproduce tsp: --mnist: %w", err)
		}
		return fmt.Errorf("reproduce tsp: %w", err)
	}
	if f.train+f.val > train.N {
		return usagef("reproduce tsp: --train %d + --val %d exceed the %d MNIST training images", f.train, f.val, train.N)
	}
	out := f.out
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-tsp"))
	}
	if err := createNewDir(out); err != nil {
		return fmt.Errorf("reproduce tsp: %w", err)
	}
	start := time.Now()
	results := make([]*tsp.Result, f.seeds)
	errs := make([]error, f.seeds)
	var mu sync.Mutex
	sem := make(chan struct{}, f.parallel)
	var wg sync.WaitGroup
	for i := range f.seeds {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			e := f.experiment(f.seed + uint64(i))
			e.OnPoint = func(method string, p tsp.Point) {
				if p.Round%(100*f.every) == 0 || p.Round == f.rounds {
					mu.Lock()
					fmt.Fprintf(stderr, "seed %d %s round %d: accuracy %.4f, F1 %.4f\n", e.Seed, method, p.Round, p.Accuracy, p.F1)
					mu.Unlock()
				}
			}
			// One run at a time reads the process CPU time; parallel runs
			// read the wall clock, since they share the process.
			clock := cpuTime
			if f.parallel > 1 {
				t0 := time.Now()
				clock = func() time.Duration { return time.Since(t0) }
			}
			results[i], errs[i] = e.Run(train, test, clock)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("reproduce tsp: %w", err)
	}
	if err := writeTSPCSV(filepath.Join(out, "tsp.csv"), results); err != nil {
		return fmt.Errorf("reproduce tsp: %w", err)
	}
	if err := plotTSP(out, f, results); err != nil {
		return fmt.Errorf("reproduce tsp: %w", err)
	}
	md := tspTable(f, results) + wallLine(time.Since(start))
	if err := writeNewFile(filepath.Join(out, "table.md"), strings.NewReader(md)); err != nil {
		return fmt.Errorf("reproduce tsp: %w", err)
	}
	_, err = io.WriteString(stdout, md)
	return err
}

// loadDigits reads the MNIST training and test sets from dir.
func loadDigits(dir string) (train, test hyperclean.Digits, err error) {
	read := func(prefix string) (hyperclean.Digits, error) {
		im, lb, err := dataset.ReadMNIST(filepath.Join(dir, prefix+"-images-idx3-ubyte.gz"), filepath.Join(dir, prefix+"-labels-idx1-ubyte.gz"))
		if err != nil {
			return hyperclean.Digits{}, err
		}
		return hyperclean.Digits{N: im.N, Dim: im.Rows * im.Cols, Pixels: im.Pixels, Labels: lb}, nil
	}
	if train, err = read("train"); err != nil {
		return train, test, err
	}
	test, err = read("t10k")
	return train, test, err
}

// writeTSPCSV writes seed,method,round,evals,accuracy,f1,multiplier,
// seconds: every measurement of every run.
func writeTSPCSV(path string, results []*tsp.Result) error {
	var rows [][]string
	for _, r := range results {
		for _, t := range r.Traces {
			for _, p := range t.Points {
				rows = append(rows, []string{strconv.FormatUint(r.Seed, 10), t.Method, strconv.Itoa(p.Round),
					strconv.FormatInt(p.Evals, 10), fmtG(p.Accuracy), fmtG(p.F1), fmtG(p.Multiplier), fmtG(p.Seconds)})
			}
		}
	}
	return writeCSVFile(path, []string{"seed", "method", "round", "evals", "accuracy", "f1", "multiplier", "seconds"}, rows)
}

// plotTSP writes tsp_accuracy.{png,svg} and tsp_f1.{png,svg}: the measure
// in percent against rounds, the mean over the seeds at every round all
// seeds measured, one line per method.
func plotTSP(dir string, f *tspFlags, results []*tsp.Result) error {
	for _, m := range []struct {
		name, label string
		v           func(tsp.Point) float64
	}{
		{"accuracy", "test accuracy (%)", func(p tsp.Point) float64 { return 100 * p.Accuracy }},
		{"f1", "F1 of clean-sample detection (%)", func(p tsp.Point) float64 { return 100 * p.F1 }},
	} {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("MNIST data hyper-cleaning, %d training samples, mean over %d seeds", f.train, len(results))
		if len(results) == 1 {
			p.Title.Text = fmt.Sprintf("MNIST data hyper-cleaning, %d training samples, seed %d", f.train, results[0].Seed)
		}
		p.X.Label.Text = "round"
		p.Y.Label.Text = m.label
		p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
		var lines []any
		for _, method := range tspMethodOrder(results) {
			sum, count := map[int]float64{}, map[int]int{}
			for _, r := range results {
				for _, t := range r.Traces {
					if t.Method != method {
						continue
					}
					for _, pt := range t.Points {
						sum[pt.Round] += m.v(pt)
						count[pt.Round]++
					}
				}
			}
			var xys plotter.XYs
			for _, round := range sortedKeys(sum) {
				if count[round] == len(results) {
					xys = append(xys, plotter.XY{X: float64(round), Y: sum[round] / float64(count[round])})
				}
			}
			if len(xys) > 0 {
				lines = append(lines, method, xys)
			}
		}
		if err := plotutil.AddLines(p, lines...); err != nil {
			return fmt.Errorf("plotting: %w", err)
		}
		// The legend goes bottom right, below the data on an axis
		// extended downwards.
		p.Legend.Top = false
		p.Y.Min -= 0.45 * (p.Y.Max - p.Y.Min)
		if err := savePlot(p, filepath.Join(dir, "tsp_"+m.name)); err != nil {
			return err
		}
	}
	return nil
}

// tspMethodOrder lists the methods in first-appearance order.
func tspMethodOrder(results []*tsp.Result) []string {
	var names []string
	for _, r := range results {
		for _, t := range r.Traces {
			if !slices.Contains(names, t.Method) {
				names = append(names, t.Method)
			}
		}
	}
	return names
}

// tspTable renders table.md: per method, peak and final accuracy and F1
// (mean ± std over the seeds, percent) next to the paper's peak values,
// and the paper's claims read on them.
func tspTable(f *tspFlags, results []*tsp.Result) string {
	var b strings.Builder
	b.WriteString("# TSP: MNIST data hyper-cleaning (Lu, ICML 2025, §4)\n\n")
	e := f.experiment(f.seed)
	fmt.Fprintf(&b, "%d training samples (%.0f%% with a wrong label), %d validation samples, 10,000 test images; %d seeds (%d..%d), %d rounds from x = 0, y = 0, measured every %d rounds. Constants (mean-normalized lower level): tau = %g, p = %g, alpha = %g, beta = %g, eta = %g, gamma = %g; V-PBGD gamma_max = %g, BOME T = %d, MEHA c_k = %g (k+1)^%g.\n\n",
		f.train, 100*e.Data.Corrupt, f.val, f.seeds, f.seed, f.seed+uint64(f.seeds-1), f.rounds, f.every,
		tsp.DefaultMeanUnits().Tau, tsp.DefaultMeanUnits().P, tsp.DefaultMeanUnits().Alpha, tsp.DefaultMeanUnits().Beta,
		tsp.DefaultMeanUnits().Eta, tsp.DefaultMeanUnits().Gamma, tsp.DefaultMeanUnits().PBGDGamma, tsp.DefaultMeanUnits().BOMEInner,
		tsp.DefaultMeanUnits().MEHAC, tsp.DefaultMeanUnits().MEHAPower)
	sums := tsp.Summarize(results)
	paper := map[string]tsp.PaperRow{}
	for _, r := range tsp.PaperTable() {
		paper[r.Method] = r
	}
	pm := func(s tsp.Stat) string { return fmt.Sprintf("%.2f ± %.2f", 100*s.Mean, 100*s.Std) }
	b.WriteString("Percent, mean ± std over the seeds (std 0 with one seed). The paper reports peak values; for TSP it gives variances (shown as ± sqrt). Step time is the mean time of a run's steps, measurements excluded (process CPU time; wall time with --parallel above 1).\n\n")
	b.WriteString("| method | peak accuracy | paper accuracy | peak F1 | paper F1 | final accuracy | final F1 | diverged | step time (s) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	// Mean time of a run's steps (measurements excluded).
	steps := map[string][]float64{}
	for _, r := range results {
		for _, t := range r.Traces {
			if len(t.Points) > 0 {
				steps[t.Method] = append(steps[t.Method], t.Points[len(t.Points)-1].Seconds)
			}
		}
	}
	for _, s := range sums {
		pa, pf := "-", "-"
		if p, ok := paper[s.Method]; ok {
			pa, pf = tspPaperCell(p.Accuracy, p.AccuracyPM, p.VarAccuracy), tspPaperCell(p.F1, p.F1PM, p.VarF1)
		}
		var sec float64
		for _, v := range steps[s.Method] {
			sec += v / float64(len(steps[s.Method]))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d/%d | %.0f |\n", s.Method, pm(s.PeakAccuracy), pa, pm(s.PeakF1), pf,
			pm(s.FinalAccuracy), pm(s.FinalF1), s.Diverged, s.Seeds, sec)
	}
	b.WriteString("\nThe paper's claims, on our numbers:\n\n| claim | verdict | numbers |\n|---|---|---|\n")
	for _, s := range sums {
		p, ok := paper[s.Method]
		if !ok {
			continue
		}
		da, df := 100*s.PeakAccuracy.Mean-p.Accuracy, 100*s.PeakF1.Mean-p.F1
		within := da >= -1 && da <= 1 && df >= -1 && df <= 1
		fmt.Fprintf(&b, "| %s peaks within 1 point of the paper's accuracy and F1 | %s | accuracy %+.2f, F1 %+.2f points |\n",
			s.Method, holdsWord(within), da, df)
	}
	// The paper's order of the peak accuracies, best first.
	var paperOrder, ourOrder []string
	for _, r := range tsp.PaperTable() {
		for _, s := range sums {
			if s.Method == r.Method {
				paperOrder = append(paperOrder, r.Method)
			}
		}
	}
	if len(paperOrder) > 1 {
		slices.SortStableFunc(paperOrder, func(a, b string) int { return cmpDesc(paper[a].Accuracy, paper[b].Accuracy) })
		acc := map[string]float64{}
		for _, s := range sums {
			acc[s.Method] = s.PeakAccuracy.Mean
		}
		ourOrder = slices.Clone(paperOrder)
		slices.SortStableFunc(ourOrder, func(a, b string) int { return cmpDesc(acc[a], acc[b]) })
		var nums []string
		for _, m := range ourOrder {
			nums = append(nums, fmt.Sprintf("%s %.2f", m, 100*acc[m]))
		}
		fmt.Fprintf(&b, "| peak accuracies in the paper's order (%s) | %s | ours: %s |\n",
			strings.Join(paperOrder, " > "), holdsWord(slices.Equal(paperOrder, ourOrder)), strings.Join(nums, " > "))
		if paperOrder[0] == tsp.NameTSP {
			fmt.Fprintf(&b, "| TSP has the highest peak accuracy | %s | best: %s |\n", holdsWord(ourOrder[0] == tsp.NameTSP), ourOrder[0])
		}
	}
	return b.String()
}

// tspPaperCell renders one of the paper's values: v ± pm, or v with its
// variance as ± math.Sqrt(variance).
func tspPaperCell(v, pm, variance float64) string {
	switch {
	case pm > 0:
		return fmt.Sprintf("%.2f ± %.2f", v, pm)
	case variance > 0:
		return fmt.Sprintf("%.2f ± %.2f (var %g)", v, math.Sqrt(variance), variance)
	}
	return fmt.Sprintf("%.2f", v)
}

// cmpDesc orders larger values first.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
