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
// zosplm imports consensus/zosplm, experiments, internal/proc and gonum;
// it must not import node, coordinator, sim or cmd.
package zosplm

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/internal/proc"
)

// Config is the experiment of `consim reproduce zo-splm`: for each n of
// Ns, Trials instances solved from x0 = 0 with mini-batch K until the
// stochastic eps-stationarity test holds or MaxIter iterations (Table 2:
// iterations and time per iteration), and one instance per n run for
// PlotIters iterations at mini-batch PlotK (Figure 1: the objective and
// the three measures).
type Config struct {
	// Ns are the problem dimensions n (the paper's 50, 100 and 200).
	Ns []int
	// Seed keys every instance and direction (see Experiment.Seed) (1).
	Seed uint64
	// Trials is the number of instances per n of the table (20).
	Trials int
	// K is the mini-batch size k of the table runs (10,000); MaxIter
	// bounds their iterations (3000).
	K, MaxIter int
	// Eps is the tolerance eps of the stationarity test (1).
	Eps float64
	// PlotK is the mini-batch size k of the convergence runs (50; 0: no
	// convergence runs) and PlotIters their iterations (300).
	PlotK, PlotIters int
	// Clock times the iterations; nil is the process CPU time (user +
	// system), so that the times hold on a shared machine.
	Clock func() time.Duration
	// Log, if set, receives a progress line per table run.
	Log io.Writer
}

// DefaultConfig is the paper's setting.
func DefaultConfig() Config {
	return Config{Ns: []int{50, 100, 200}, Seed: 1, Trials: 20, K: 10000, MaxIter: 3000, Eps: 1, PlotK: 50, PlotIters: 300}
}

// experiment is the table's experiment for n.
func (c Config) experiment(n int) Experiment {
	return Experiment{N: n, K: c.K, Trials: c.Trials, Seed: c.Seed, MaxIter: c.MaxIter, Eps: c.Eps}
}

// Validate checks the sizes of every experiment.
func (c Config) Validate() error {
	if len(c.Ns) == 0 {
		return fmt.Errorf("zosplm: no dimensions n")
	}
	if c.PlotK < 0 || (c.PlotK > 0 && c.PlotIters < 1) {
		return fmt.Errorf("zosplm: plot-k %d, plot-iters %d: want plot-k >= 0 and plot-iters >= 1", c.PlotK, c.PlotIters)
	}
	for _, n := range c.Ns {
		if err := c.experiment(n).Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Trial is one method's trace with the n and k of its experiment.
type Trial struct {
	N, K  int
	Trace *Trace
}

// Result is the outcome of Run: the table's trials and the convergence
// runs, in the order run (n, then method, then trial).
type Result struct {
	Config       Config
	Trials, Conv []Trial
}

// Run runs the table's trials and the convergence runs.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	clock := c.Clock
	if clock == nil {
		clock = proc.CPUTime
	}
	r := &Result{Config: c}
	for _, n := range c.Ns {
		e := c.experiment(n)
		for _, m := range Methods {
			for trial := range e.Trials {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				tr, err := e.RunTrial(m, trial, clock)
				if err != nil {
					return nil, fmt.Errorf("n = %d: %w", e.N, err)
				}
				if c.Log != nil {
					fmt.Fprintf(c.Log, "n = %d %s trial %d: eps after %d iterations, %.4f CPU s/iteration\n",
						e.N, m, trial, tr.ItersToEps, tr.SecondsPerIter())
				}
				r.Trials = append(r.Trials, Trial{e.N, e.K, tr})
			}
		}
		if c.PlotK > 0 {
			pe := Experiment{N: e.N, K: c.PlotK, Trials: 1, Seed: c.Seed, MaxIter: c.PlotIters, Eps: c.Eps, RunAll: true}
			for _, m := range Methods {
				tr, err := pe.RunTrial(m, 0, clock)
				if err != nil {
					return nil, fmt.Errorf("convergence run n = %d: %w", e.N, err)
				}
				r.Conv = append(r.Conv, Trial{e.N, pe.K, tr})
			}
		}
	}
	return r, nil
}

// Write writes trials.csv, traces.csv, convergence.csv (with convergence
// runs) and their plots.
func (r *Result) Write(dir string) error {
	for _, n := range r.Config.Ns {
		var runs []Trial
		for _, t := range r.Conv {
			if t.N == n {
				runs = append(runs, t)
			}
		}
		if len(runs) == 0 {
			continue
		}
		if err := plotZOSPLM(dir, n, r.Config.PlotK, r.Config.Eps, runs); err != nil {
			return fmt.Errorf("n = %d: %w", n, err)
		}
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

// writeZOSPLMTrials writes n,k,method,trial,iters_to_eps,iters,evals,
// cpu_seconds,cpu_seconds_per_iter: one row per table run.
func writeZOSPLMTrials(path string, runs []Trial) error {
	rows := make([][]string, 0, len(runs))
	for _, r := range runs {
		t := r.Trace
		rows = append(rows, []string{
			strconv.Itoa(r.N), strconv.Itoa(r.K), t.Method, strconv.Itoa(t.Trial),
			strconv.Itoa(t.ItersToEps), strconv.Itoa(t.Iters), strconv.FormatInt(t.Evals, 10),
			experiments.G(t.Seconds), experiments.G(t.SecondsPerIter()),
		})
	}
	return experiments.WriteCSV(path, []string{"n", "k", "method", "trial", "iters_to_eps", "iters", "evals", "cpu_seconds", "cpu_seconds_per_iter"}, rows)
}

// writeZOSPLMTraces writes n,k,method,trial,iter,objective,stationarity,
// feasibility,complementarity: the measures after every iteration.
func writeZOSPLMTraces(path string, runs []Trial) error {
	var rows [][]string
	for _, r := range runs {
		t := r.Trace
		for i, p := range t.Points {
			rows = append(rows, []string{
				strconv.Itoa(r.N), strconv.Itoa(r.K), t.Method, strconv.Itoa(t.Trial), strconv.Itoa(i),
				experiments.G(p.Objective), experiments.G(p.Stationarity), experiments.G(p.Feasibility), experiments.G(p.Complementarity),
			})
		}
	}
	return experiments.WriteCSV(path, []string{"n", "k", "method", "trial", "iter", "objective", "stationarity", "feasibility", "complementarity"}, rows)
}

// plotZOSPLM writes zosplm_n<n>_objective.{png,svg} (f(x) against
// iterations, Figure 1) and zosplm_n<n>_measures.{png,svg} (the largest of
// the three stationarity measures, log scale, with eps).
func plotZOSPLM(dir string, n, k int, eps float64, runs []Trial) error {
	obj := plot.New()
	obj.Title.Text = fmt.Sprintf("NC-QCQP, n = %d, k = %d", n, k)
	obj.X.Label.Text = "iteration"
	obj.Y.Label.Text = "objective f(x)"
	obj.X.Tick.Marker = experiments.PlainTicks{}
	obj.Y.Tick.Marker = experiments.PlainTicks{}
	meas := plot.New()
	meas.Title.Text = fmt.Sprintf("NC-QCQP, n = %d, k = %d", n, k)
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
	base := filepath.Join(dir, fmt.Sprintf("zosplm_n%d_", n))
	if err := experiments.SavePlot(obj, base+"objective"); err != nil {
		return err
	}
	return experiments.SavePlot(meas, base+"measures")
}

// Table renders table.md: per n and method, our median iterations to eps
// with quartiles and CPU seconds per iteration next to the paper's Table
// 2 means, then the paper's claims read on our numbers.
func (r *Result) Table() string {
	f, ns, table, conv := r.Config, r.Config.Ns, r.Trials, r.Conv
	var b strings.Builder
	b.WriteString("# ZO-SPLM: nonconvex QCQP (Dong et al., Table 2 and Figure 1)\n\n")
	fmt.Fprintf(&b, "%d instances per n (seed %d), x0 = 0, mini-batch k = %d, smoothing radius 1e-5, stop when stationarity, feasibility and complementarity are all < eps = %g, at most %d iterations. Default parameter rules of each method. Time is process CPU time (user + system) per iteration; the paper's is wall time on its machine, means over 20 trials.\n\n",
		f.Trials, f.Seed, f.K, f.Eps, f.MaxIter)
	b.WriteString("| n | method | reached | iterations median [Q1, Q3] | mean | CPU s/iter median | CPU s total (mean) | paper iterations | paper s/iter | paper total s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	sums := map[[2]string]Summary{}
	totals := map[[2]string]float64{}
	for _, n := range ns {
		for _, m := range Methods {
			var trs []*Trace
			var total float64
			for _, r := range table {
				if r.N == n && r.Trace.Method == m {
					trs = append(trs, r.Trace)
					total += r.Trace.Seconds
				}
			}
			s := SummarizeTraces(trs)
			s.Method = m
			sums[[2]string{strconv.Itoa(n), m}] = s
			totals[[2]string{strconv.Itoa(n), m}] = total / float64(max(1, len(trs)))
			iters := "not reached"
			mean := "-"
			if s.Reached > 0 {
				iters = fmt.Sprintf("%g [%g, %g]", s.Iters.Median, s.Iters.Q1, s.Iters.Q3)
				mean = fmt.Sprintf("%.1f", s.Iters.Mean)
			}
			paper := "-"
			paperSPI, paperTot := "-", "-"
			if p, ok := zosplmPaper(n, m); ok {
				paper = strconv.Itoa(p.Iters)
				paperSPI = fmt.Sprintf("%.3f", p.PerIterSec)
				paperTot = fmt.Sprintf("%.2f", p.TotalSec)
			}
			fmt.Fprintf(&b, "| %d | %s | %d/%d | %s | %s | %.4f | %.2f | %s | %s | %s |\n",
				n, m, s.Reached, s.Trials, iters, mean, s.SecondsPerIter.Median, total/float64(max(1, len(trs))), paper, paperSPI, paperTot)
		}
	}

	b.WriteString("\nThe paper's claims, on our numbers (medians over the instances):\n\n")
	b.WriteString("| n | claim | holds | numbers |\n|---|---|---|---|\n")
	for _, n := range ns {
		key := strconv.Itoa(n)
		sp := sums[[2]string{key, MethodSPLM}]
		for _, m := range []string{MethodConEx, MethodALM} {
			o := sums[[2]string{key, m}]
			holds := sp.Reached == sp.Trials && (o.Reached < o.Trials || sp.Iters.Median < o.Iters.Median)
			fmt.Fprintf(&b, "| %d | ZO-SPLM needs fewer iterations than %s | %s | %s vs %s |\n",
				n, m, experiments.Verdict(holds), zosplmItersText(sp), zosplmItersText(o))
			ts, to := totals[[2]string{key, MethodSPLM}], totals[[2]string{key, m}]
			fmt.Fprintf(&b, "| %d | ZO-SPLM takes less total time than %s | %s | %.2f vs %.2f CPU s (mean over instances, to eps or the limit) |\n",
				n, m, experiments.Verdict(ts < to), ts, to)
			// Equal costs within 5% are a tie: every method makes k + 1
			// evaluations per iteration.
			holdsT := sp.SecondsPerIter.Median < 0.95*o.SecondsPerIter.Median
			fmt.Fprintf(&b, "| %d | ZO-SPLM takes less time per iteration than %s (by 5%% or more) | %s | %.4f vs %.4f CPU s |\n",
				n, m, experiments.Verdict(holdsT), sp.SecondsPerIter.Median, o.SecondsPerIter.Median)
		}
	}
	if len(conv) > 0 {
		fmt.Fprintf(&b, "\nConvergence runs (Figure 1): one instance per n, k = %d, %d iterations; first iteration below eps and the final objective.\n\n", f.PlotK, f.PlotIters)
		b.WriteString("| n | method | iterations to eps | f(x0) | final f(x) | final max measure |\n|---|---|---|---|---|---|\n")
		for _, r := range conv {
			t := r.Trace
			first, last := t.Points[0], t.Points[len(t.Points)-1]
			reach := "not reached"
			if t.ItersToEps >= 0 {
				reach = strconv.Itoa(t.ItersToEps)
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %.4f | %.4f | %.3g |\n", r.N, t.Method, reach, first.Objective, last.Objective, last.Max())
		}
	}
	return b.String()
}

// zosplmItersText is a summary's iteration count for the claims table.
func zosplmItersText(s Summary) string {
	if s.Reached == 0 {
		return fmt.Sprintf("%s: not reached (0/%d)", s.Method, s.Trials)
	}
	return fmt.Sprintf("%s %g (%d/%d reached)", s.Method, s.Iters.Median, s.Reached, s.Trials)
}

// zosplmPaper returns the paper's Table 2 row of (n, method).
func zosplmPaper(n int, method string) (PaperRow, bool) {
	for _, r := range PaperTable2 {
		if r.N == n && r.Method == method {
			return r, true
		}
	}
	return PaperRow{}, false
}
