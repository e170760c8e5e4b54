// Package zosplm is the comparison of Dong, Zhao, Pu, Zhou and Yin's
// section 4 behind `consim reproduce zo-splm`: ZO-SPLM against ZO-ConEx
// and ZO-ALM on the nonconvex QCQP (Table 2: iterations and time to the
// stochastic eps-stationarity test; Figure 1: convergence).
//
// The methods are stepped by hand on one agent (consensus/zosplm's
// Driver) from consensus/zosplm's constructors: the experiment needs each
// method's multiplier and iterate after every iteration for the
// stationarity test, its oracle count and its time per iteration, and
// ZO-ConEx and ZO-ALM are baselines, not registered algorithms.
//
// The comparison runs in parameter regimes (Regime): the paper leaves
// every step and smoothing parameter unstated, and the ranking of the
// methods turns on them.
//
// zosplm imports consensus/zosplm, problems/qcqp, experiments,
// internal/proc and gonum; it must not import node, coordinator, sim or
// cmd.
package zosplm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/internal/proc"
)

// Config is the experiment of `consim reproduce zo-splm`: for each regime
// of Regimes and each n of Ns, Trials instances solved from x0 = 0 with
// mini-batch K by every method until the stochastic eps-stationarity test
// holds or MaxIter iterations (Table 2: iterations and time per
// iteration), and one instance per regime and n run for PlotIters
// iterations at mini-batch PlotK (Figure 1: the objective and the three
// measures).
type Config struct {
	// Ns are the problem dimensions n (the paper's 50, 100 and 200).
	Ns []int `json:"ns"`
	// Seed keys every instance and direction (see Experiment.Seed) (1).
	Seed uint64 `json:"seed"`
	// Trials is the number of instances per n of the table (20).
	Trials int `json:"trials"`
	// K is the mini-batch size k of the table runs (10,000); MaxIter
	// bounds their iterations (10,000): a run that has not met the test
	// by then is censored, and the table says so.
	K       int `json:"k"`
	MaxIter int `json:"max_iter"`
	// Eps is the tolerance eps of the stationarity test (1).
	Eps float64 `json:"eps"`
	// Regimes are the parameter regimes compared (EqualStep and Theory).
	Regimes []Regime `json:"regimes"`
	// PlotK is the mini-batch size k of the convergence runs (50; 0: no
	// convergence runs) and PlotIters their iterations (300).
	PlotK     int `json:"plot_k"`
	PlotIters int `json:"plot_iters"`
	// Parallel is the number of runs at once (the number of CPUs): the
	// runs are independent, and each is timed on its own thread.
	Parallel int `json:"-"`
	// Clock times the iterations; nil is the CPU time of the run's own
	// thread (user + system), so that the times hold on a shared machine
	// and with parallel runs. With Parallel > 1 it must be safe for
	// concurrent use.
	Clock func() time.Duration `json:"-"`
	// Log, if set, receives a progress line per table run.
	Log io.Writer `json:"-"`
}

// DefaultConfig is the paper's setting, in the equal-step and theory
// regimes.
func DefaultConfig() Config {
	return Config{Ns: []int{50, 100, 200}, Seed: 1, Trials: 20, K: 10000, MaxIter: 10000, Eps: 1,
		Regimes: []Regime{EqualStep, Theory}, PlotK: 50, PlotIters: 300, Parallel: runtime.NumCPU()}
}

// experiment is the table's experiment for regime and n.
func (c Config) experiment(r Regime, n int) Experiment {
	return Experiment{N: n, K: c.K, Trials: c.Trials, Seed: c.Seed, MaxIter: c.MaxIter, Eps: c.Eps, Regime: r}
}

// Validate checks the regimes and the sizes of every experiment.
func (c Config) Validate() error {
	if len(c.Ns) == 0 {
		return fmt.Errorf("zosplm: no dimensions n")
	}
	if len(c.Regimes) == 0 {
		return fmt.Errorf("zosplm: no regimes, want some of %v", Regimes)
	}
	if c.PlotK < 0 || (c.PlotK > 0 && c.PlotIters < 1) {
		return fmt.Errorf("zosplm: plot-k %d, plot-iters %d: want plot-k >= 0 and plot-iters >= 1", c.PlotK, c.PlotIters)
	}
	if c.Parallel < 1 {
		return fmt.Errorf("zosplm: parallel %d: want >= 1", c.Parallel)
	}
	for _, r := range c.Regimes {
		for _, n := range c.Ns {
			if err := c.experiment(r, n).Validate(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Trial is one method's trace with the regime, n and k of its experiment.
type Trial struct {
	Regime Regime
	N, K   int
	Trace  *Trace
}

// Result is the outcome of Run: the table's trials and the convergence
// runs, in the order regime, n, method, trial.
type Result struct {
	Config       Config
	Trials, Conv []Trial
}

// job is one run of Run.
type job struct {
	e      Experiment
	method string
	trial  int
	out    *Trial
}

// Run runs the table's trials and the convergence runs, Parallel at once
// (the largest n first, for balance). The result does not depend on
// Parallel except for the times.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	r := &Result{Config: c}
	var jobs []job
	for _, reg := range c.Regimes {
		for _, n := range c.Ns {
			e := c.experiment(reg, n)
			for _, m := range Methods {
				for trial := range e.Trials {
					r.Trials = append(r.Trials, Trial{Regime: reg, N: n, K: e.K})
					jobs = append(jobs, job{e: e, method: m, trial: trial})
				}
			}
			if c.PlotK > 0 {
				pe := Experiment{N: n, K: c.PlotK, Trials: 1, Seed: c.Seed, MaxIter: c.PlotIters, Eps: c.Eps, RunAll: true, Regime: reg}
				for _, m := range Methods {
					r.Conv = append(r.Conv, Trial{Regime: reg, N: n, K: pe.K})
					jobs = append(jobs, job{e: pe, method: m})
				}
			}
		}
	}
	// Point the jobs at their slots now that the slices are complete.
	ti, ci := 0, 0
	for i := range jobs {
		if jobs[i].e.RunAll {
			jobs[i].out = &r.Conv[ci]
			ci++
		} else {
			jobs[i].out = &r.Trials[ti]
			ti++
		}
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return jobs[order[a]].e.N > jobs[order[b]].e.N })

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errs := make([]error, c.Parallel)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range c.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The run's clock is its thread's CPU time: keep the
			// goroutine on one thread.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			clock := c.Clock
			if clock == nil {
				clock = proc.ThreadCPUTime
			}
			for i := range next {
				j := jobs[i]
				tr, err := j.e.runTrial(ctx, j.method, j.trial, clock)
				if err != nil {
					if j.e.RunAll {
						err = fmt.Errorf("convergence run %s n = %d: %w", j.e.Regime, j.e.N, err)
					} else {
						err = fmt.Errorf("%s n = %d: %w", j.e.Regime, j.e.N, err)
					}
					errs[w] = err
					cancel()
					return
				}
				j.out.Trace = tr
				if c.Log != nil && !j.e.RunAll {
					mu.Lock()
					reach := fmt.Sprintf("eps after %d iterations", tr.ItersToEps)
					if tr.ItersToEps < 0 {
						reach = fmt.Sprintf("eps not reached in %d iterations", tr.Iters)
					}
					fmt.Fprintf(c.Log, "%s n = %d %s trial %d: %s, %.4f CPU s/iteration\n",
						j.e.Regime, j.e.N, j.method, j.trial, reach, tr.SecondsPerIter())
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for _, i := range order {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// Write writes config.json, trials.csv, traces.csv, convergence.csv (with
// convergence runs) and their plots.
func (r *Result) Write(dir string) error {
	for _, reg := range r.Config.Regimes {
		for _, n := range r.Config.Ns {
			var runs []Trial
			for _, t := range r.Conv {
				if t.N == n && t.Regime == reg {
					runs = append(runs, t)
				}
			}
			if len(runs) == 0 {
				continue
			}
			if err := plotZOSPLM(dir, reg, n, r.Config.PlotK, r.Config.Eps, runs); err != nil {
				return fmt.Errorf("%s n = %d: %w", reg, n, err)
			}
		}
	}
	if err := writeConfig(filepath.Join(dir, "config.json"), r.Config); err != nil {
		return err
	}
	if err := writeZOSPLMTrials(filepath.Join(dir, "trials.csv"), r.Trials); err != nil {
		return err
	}
	if err := writeZOSPLMTraces(filepath.Join(dir, "traces.csv"), r.Trials); err != nil {
		return err
	}
	if len(r.Conv) > 0 {
		return writeZOSPLMTraces(filepath.Join(dir, "convergence.csv"), r.Conv)
	}
	return nil
}

// plotZOSPLM writes zosplm_<regime>_n<n>_objective.{png,svg} (f(x)
// against iterations, Figure 1) and zosplm_<regime>_n<n>_measures.{png,svg}
// (the largest of the three stationarity measures, log scale, with eps).
func plotZOSPLM(dir string, reg Regime, n, k int, eps float64, runs []Trial) error {
	obj := plot.New()
	obj.Title.Text = fmt.Sprintf("NC-QCQP, n = %d, k = %d, %s", n, k, reg)
	obj.X.Label.Text = "iteration"
	obj.Y.Label.Text = "objective f(x)"
	obj.X.Tick.Marker = experiments.PlainTicks{}
	obj.Y.Tick.Marker = experiments.PlainTicks{}
	meas := plot.New()
	meas.Title.Text = obj.Title.Text
	meas.X.Label.Text = "iteration"
	meas.Y.Label.Text = "max(stationarity, feasibility, complementarity)"
	meas.Y.Scale = plot.LogScale{}
	meas.Y.Tick.Marker = experiments.LogTicks{}
	meas.X.Tick.Marker = experiments.PlainTicks{}
	var objLines, measLines []any
	for _, r := range runs {
		var o, m plotter.XYs
		for i, p := range r.Trace.Points {
			if experiments.Finite(p.Objective) {
				o = append(o, plotter.XY{X: float64(i), Y: p.Objective})
			}
			if v := p.Max(); v > 0 && experiments.Finite(v) {
				m = append(m, plotter.XY{X: float64(i), Y: v})
			}
		}
		objLines = append(objLines, r.Trace.Method, o)
		measLines = append(measLines, r.Trace.Method, m)
	}
	if err := plotutil.AddLines(obj, objLines...); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	if err := plotutil.AddLines(meas, measLines...); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	if len(runs) > 0 {
		last := float64(len(runs[0].Trace.Points) - 1)
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: eps}, {X: last, Y: eps}})
		if err != nil {
			return fmt.Errorf("plotting: %w", err)
		}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		meas.Add(l)
		meas.Legend.Add(fmt.Sprintf("eps = %g", eps), l)
	}
	// Both curves fall from the top left: the legend goes top right.
	obj.Legend.Top, meas.Legend.Top = true, true
	base := filepath.Join(dir, fmt.Sprintf("zosplm_%s_n%d_", reg, n))
	if err := experiments.SavePlot(obj, base+"objective"); err != nil {
		return err
	}
	return experiments.SavePlot(meas, base+"measures")
}
