// Package tsp is the data hyper-cleaning comparison of Lu (ICML 2025,
// Section 4) behind `consim reproduce tsp`: TSP (Algorithm 1) against
// BOME, V-PBGD and MEHA on MNIST, half of the training labels corrupted,
// measured by the test accuracy of the model and the F1 of the
// clean-sample detection x_i >= 0.
//
// The methods are stepped by hand in their centralized form
// (consensus/tsp's Method): the comparison needs every method's iterate
// at the measured rounds and the time of its steps alone, and BOME,
// V-PBGD and MEHA are baselines, not registered algorithms.
//
// tsp imports consensus/tsp, dataset, experiments, internal/proc and
// gonum; it must not import node, coordinator, sim or cmd.
package tsp

import (
	"context"
	"errors"
	"fmt"
	"github.com/consim/consim/problems/hyperclean"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	tspalg "github.com/consim/consim/consensus/tsp"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/experiments"
	"github.com/consim/consim/internal/proc"
)

// MNIST holds the MNIST training and test digits.
type MNIST struct{ Train, Test hyperclean.Digits }

// LoadMNIST reads the MNIST training and test sets from dir, which holds
// {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz. A missing file is an
// error wrapping fs.ErrNotExist.
func LoadMNIST(dir string) (*MNIST, error) {
	read := func(prefix string) (hyperclean.Digits, error) {
		im, lb, err := dataset.ReadMNIST(filepath.Join(dir, prefix+"-images-idx3-ubyte.gz"), filepath.Join(dir, prefix+"-labels-idx1-ubyte.gz"))
		if err != nil {
			return hyperclean.Digits{}, err
		}
		return hyperclean.Digits{N: im.N, Dim: im.Rows * im.Cols, Pixels: im.Pixels, Labels: lb}, nil
	}
	train, err := read("train")
	if err != nil {
		return nil, err
	}
	test, err := read("t10k")
	if err != nil {
		return nil, err
	}
	return &MNIST{Train: train, Test: test}, nil
}

// Config is the experiment of `consim reproduce tsp`: Seeds seeds (Seed,
// Seed+1, ...), each drawing its own split and corruption, on which every
// method of Methods runs Rounds rounds from x = 0, y = 0 and is measured
// every Every rounds.
type Config struct {
	// Seed is the first seed (1) and Seeds their number (5).
	Seed  uint64
	Seeds int
	// Rounds are the rounds (outer iterations) of every method
	// (DefaultRounds), measured every Every rounds (10).
	Rounds, Every int
	// Methods are among TSP, BOME, PBGD and MEHA (all four).
	Methods []string
	// Train is the number of training samples (half corrupted) and Val
	// that of validation samples (5,000 each).
	Train, Val int
	// Parallel is how many seeds run at once (1).
	Parallel int
	// Data is MNIST (LoadMNIST; none by default, which Run needs).
	Data *MNIST
	// Clock times the methods' steps; nil is the process CPU time with one
	// seed at a time, and the wall time of each run with Parallel above 1,
	// since parallel runs share the process.
	Clock func() time.Duration
	// Log, if set, receives a progress line every 100 measurements of a
	// method and at its last round.
	Log io.Writer
}

// DefaultConfig is the paper's setting (5,000 training samples, half of
// them corrupted, 5,000 validation samples, the 10,000 test images) with
// all four methods, five seeds, without the data.
func DefaultConfig() Config {
	e := DefaultExperiment(1, DefaultRounds)
	return Config{Seed: 1, Seeds: 5, Rounds: DefaultRounds, Every: e.Every, Methods: e.Methods,
		Train: e.Data.Train, Val: e.Data.Val, Parallel: 1}
}

// experiment returns the experiment of seed: the paper's setting with
// c's sizes, rounds and methods.
func (c Config) experiment(seed uint64) Experiment {
	e := DefaultExperiment(seed, c.Rounds)
	e.Every = c.Every
	e.Data.Train, e.Data.Val = c.Train, c.Val
	e.Methods = slices.Clone(c.Methods)
	// The constants are stated for a mean over the training samples and
	// converted to the sum of e.Data.Train samples.
	e.Convert(tspalg.DefaultMeanUnits(), e.Data.Train, c.Rounds)
	return e
}

// Validate checks the sizes and the experiment of the first seed, and
// that the data, when loaded, has the samples.
func (c Config) Validate() error {
	switch {
	case c.Seeds < 1:
		return fmt.Errorf("tsp: seeds %d: want >= 1", c.Seeds)
	case c.Parallel < 1:
		return fmt.Errorf("tsp: parallel %d: want >= 1", c.Parallel)
	case c.Train < 10 || c.Val < 10:
		return fmt.Errorf("tsp: train %d, val %d: want >= 10", c.Train, c.Val)
	case c.Data != nil && c.Train+c.Val > c.Data.Train.N:
		return fmt.Errorf("tsp: train %d + val %d exceed the %d MNIST training images", c.Train, c.Val, c.Data.Train.N)
	}
	return c.experiment(c.Seed).Validate()
}

// Result is the outcome of Run: one result per seed, in seed order.
type Result struct {
	Config  Config
	Results []*ExperimentResult
}

// Run runs the seeds, Parallel at once.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Data == nil {
		return nil, fmt.Errorf("tsp: no MNIST data (LoadMNIST)")
	}
	results := make([]*ExperimentResult, c.Seeds)
	errs := make([]error, c.Seeds)
	var mu sync.Mutex
	sem := make(chan struct{}, c.Parallel)
	var wg sync.WaitGroup
	for i := range c.Seeds {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			e := c.experiment(c.Seed + uint64(i))
			e.OnPoint = func(method string, p Point) {
				if c.Log != nil && (p.Round%(100*c.Every) == 0 || p.Round == c.Rounds) {
					mu.Lock()
					fmt.Fprintf(c.Log, "seed %d %s round %d: accuracy %.4f, F1 %.4f\n", e.Seed, method, p.Round, p.Accuracy, p.F1)
					mu.Unlock()
				}
			}
			clock := c.Clock
			if clock == nil {
				// One run at a time reads the process CPU time; parallel
				// runs read the wall clock, since they share the process.
				clock = proc.CPUTime
				if c.Parallel > 1 {
					t0 := time.Now()
					clock = func() time.Duration { return time.Since(t0) }
				}
			}
			results[i], errs[i] = e.Run(c.Data.Train, c.Data.Test, clock)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Result{Config: c, Results: results}, nil
}

// Write writes tsp.csv and the plots.
func (r *Result) Write(dir string) error {
	if err := writeTSPCSV(filepath.Join(dir, "tsp.csv"), r.Results); err != nil {
		return err
	}
	return plotTSP(dir, r.Config, r.Results)
}

// writeTSPCSV writes seed,method,round,evals,accuracy,f1,multiplier,
// seconds: every measurement of every run.
func writeTSPCSV(path string, results []*ExperimentResult) error {
	var rows [][]string
	for _, r := range results {
		for _, t := range r.Traces {
			for _, p := range t.Points {
				rows = append(rows, []string{strconv.FormatUint(r.Seed, 10), t.Method, strconv.Itoa(p.Round),
					strconv.FormatInt(p.Evals, 10), experiments.G(p.Accuracy), experiments.G(p.F1), experiments.G(p.Multiplier), experiments.G(p.Seconds)})
			}
		}
	}
	return experiments.WriteCSV(path, []string{"seed", "method", "round", "evals", "accuracy", "f1", "multiplier", "seconds"}, rows)
}

// plotTSP writes tsp_accuracy.{png,svg} and tsp_f1.{png,svg}: the measure
// in percent against rounds, the mean over the seeds at every round all
// seeds measured, one line per method.
func plotTSP(dir string, f Config, results []*ExperimentResult) error {
	for _, m := range []struct {
		name, label string
		v           func(Point) float64
	}{
		{"accuracy", "test accuracy (%)", func(p Point) float64 { return 100 * p.Accuracy }},
		{"f1", "F1 of clean-sample detection (%)", func(p Point) float64 { return 100 * p.F1 }},
	} {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("MNIST data hyper-cleaning, %d training samples, mean over %d seeds", f.Train, len(results))
		if len(results) == 1 {
			p.Title.Text = fmt.Sprintf("MNIST data hyper-cleaning, %d training samples, seed %d", f.Train, results[0].Seed)
		}
		p.X.Label.Text = "round"
		p.Y.Label.Text = m.label
		p.X.Tick.Marker, p.Y.Tick.Marker = experiments.PlainTicks{}, experiments.PlainTicks{}
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
			for _, round := range slices.Sorted(maps.Keys(sum)) {
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
		if err := experiments.SavePlot(p, filepath.Join(dir, "tsp_"+m.name)); err != nil {
			return err
		}
	}
	return nil
}

// tspMethodOrder lists the methods in first-appearance order.
func tspMethodOrder(results []*ExperimentResult) []string {
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

// Table renders table.md: per method, peak and final accuracy and F1
// (mean ± std over the seeds, percent) next to the paper's peak values,
// and the paper's claims read on them.
func (r *Result) Table() string {
	f, results := r.Config, r.Results
	var b strings.Builder
	b.WriteString("# TSP: MNIST data hyper-cleaning (Lu, ICML 2025, §4)\n\n")
	e := f.experiment(f.Seed)
	fmt.Fprintf(&b, "%d training samples (%.0f%% with a wrong label), %d validation samples, 10,000 test images; %d seeds (%d..%d), %d rounds from x = 0, y = 0, measured every %d rounds. Constants (mean-normalized lower level): tau = %g, p = %g, alpha = %g, beta = %g, eta = %g, gamma = %g; V-PBGD gamma_max = %g, BOME T = %d, MEHA c_k = %g (k+1)^%g.\n\n",
		f.Train, 100*e.Data.Corrupt, f.Val, f.Seeds, f.Seed, f.Seed+uint64(f.Seeds-1), f.Rounds, f.Every,
		tspalg.DefaultMeanUnits().Tau, tspalg.DefaultMeanUnits().P, tspalg.DefaultMeanUnits().Alpha, tspalg.DefaultMeanUnits().Beta,
		tspalg.DefaultMeanUnits().Eta, tspalg.DefaultMeanUnits().Gamma, tspalg.DefaultMeanUnits().PBGDGamma, tspalg.DefaultMeanUnits().BOMEInner,
		tspalg.DefaultMeanUnits().MEHAC, tspalg.DefaultMeanUnits().MEHAPower)
	sums := Summarize(results)
	paper := map[string]PaperRow{}
	for _, r := range PaperTable() {
		paper[r.Method] = r
	}
	pm := func(s experiments.Stat) string { return fmt.Sprintf("%.2f ± %.2f", 100*s.Mean, 100*s.Std) }
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
			s.Method, experiments.Verdict(within), da, df)
	}
	// The paper's order of the peak accuracies, best first.
	var paperOrder, ourOrder []string
	for _, r := range PaperTable() {
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
			strings.Join(paperOrder, " > "), experiments.Verdict(slices.Equal(paperOrder, ourOrder)), strings.Join(nums, " > "))
		if paperOrder[0] == tspalg.NameTSP {
			fmt.Fprintf(&b, "| TSP has the highest peak accuracy | %s | best: %s |\n", experiments.Verdict(ourOrder[0] == tspalg.NameTSP), ourOrder[0])
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
