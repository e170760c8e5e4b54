package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/consim/consim/consensus/zosplm"
	"github.com/consim/consim/sim"
)

// zosplmFlags are the flags of `consim reproduce zo-splm`.
type zosplmFlags struct {
	out, n                               string
	seed                                 uint64
	trials, k, maxIter, plotK, plotIters int
	eps                                  float64
}

// reproduceZOSPLMCmd is `consim reproduce zo-splm`: ZO-SPLM, ZO-ConEx and
// ZO-ALM on the nonconvex QCQP of Dong et al. (Table 2 and Figure 1).
func (a *app) reproduceZOSPLMCmd() *cobra.Command {
	var f zosplmFlags
	cmd := &cobra.Command{
		Use:   "zo-splm",
		Short: "ZO-SPLM and its baselines on the nonconvex QCQP (Dong et al., Table 2 and Figure 1)",
		Long: `Zo-splm runs ZO-SPLM, ZO-ConEx and ZO-ALM on the nonconvex QCQP of Dong,
Zhao, Pu, Zhou and Yin for each n of --n: --trials instances solved from
x0 = 0 with mini-batch --k until the stochastic eps-stationarity test
holds (Table 2: iterations and CPU seconds per iteration, the process's
user + system time), and one instance per n run for --plot-iters
iterations at mini-batch --plot-k (Figure 1: the objective, and the three
measures). It writes trials.csv, traces.csv, convergence.csv, plots (PNG
and SVG) and table.md, which it also prints with the wall time, into a
new directory: --out must not exist.`,
		Example: `  consim reproduce zo-splm
  consim reproduce zo-splm --n 50 --trials 5 --out results/zosplm-n50`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce zo-splm: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fs := cmd.Flags()
	addOutFlag(cmd, &f.out, "output `DIR`, which must not exist (default results/reproduce-zo-splm-<UTC time>-<4 hex>)")
	fs.StringVar(&f.n, "n", "50,100,200", "comma-separated problem dimensions n")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of every instance and direction")
	fs.IntVar(&f.trials, "trials", 20, "instances per n for the table")
	fs.IntVar(&f.k, "k", 10000, "mini-batch size k of the table runs")
	fs.IntVar(&f.maxIter, "max-iter", 3000, "iteration limit of a table run")
	fs.Float64Var(&f.eps, "eps", 1, "tolerance eps of the stationarity test")
	fs.IntVar(&f.plotK, "plot-k", 50, "mini-batch size k of the convergence runs (0: no convergence runs)")
	fs.IntVar(&f.plotIters, "plot-iters", 300, "iterations of the convergence runs")
	for _, n := range []string{"n", "seed", "trials", "k", "max-iter", "eps", "plot-k", "plot-iters"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(a.stdout, a.stderr)
	})
	return cmd
}

// zosplmRun is one method's trace with the experiment it belongs to.
type zosplmRun struct {
	n, k  int
	trace *zosplm.Trace
}

// run resolves the flags, runs the table and the convergence runs, and
// writes the results.
func (f *zosplmFlags) run(stdout, stderr io.Writer) error {
	ns, err := parseInts(f.n)
	if err != nil {
		return usagef("reproduce zo-splm: --n: %w", err)
	}
	if f.plotK < 0 || (f.plotK > 0 && f.plotIters < 1) {
		return usagef("reproduce zo-splm: --plot-k %d, --plot-iters %d: want plot-k >= 0 and plot-iters >= 1", f.plotK, f.plotIters)
	}
	exps := make([]zosplm.Experiment, len(ns))
	for i, n := range ns {
		exps[i] = zosplm.Experiment{N: n, K: f.k, Trials: f.trials, Seed: f.seed, MaxIter: f.maxIter, Eps: f.eps}
		if err := exps[i].Validate(); err != nil {
			return usagef("reproduce zo-splm: %w", err)
		}
	}
	out := f.out
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-zo-splm"))
	}
	if err := createNewDir(out); err != nil {
		return fmt.Errorf("reproduce zo-splm: %w", err)
	}
	start := time.Now()

	var table, conv []zosplmRun
	for _, e := range exps {
		for _, m := range zosplm.Methods {
			for trial := range e.Trials {
				tr, err := e.RunTrial(m, trial, cpuTime)
				if err != nil {
					return fmt.Errorf("reproduce zo-splm: n = %d: %w", e.N, err)
				}
				fmt.Fprintf(stderr, "n = %d %s trial %d: eps after %d iterations, %.4f CPU s/iteration\n",
					e.N, m, trial, tr.ItersToEps, tr.SecondsPerIter())
				table = append(table, zosplmRun{e.N, e.K, tr})
			}
		}
		if f.plotK > 0 {
			pe := zosplm.Experiment{N: e.N, K: f.plotK, Trials: 1, Seed: f.seed, MaxIter: f.plotIters, Eps: f.eps, RunAll: true}
			var runs []zosplmRun
			for _, m := range zosplm.Methods {
				tr, err := pe.RunTrial(m, 0, cpuTime)
				if err != nil {
					return fmt.Errorf("reproduce zo-splm: convergence run n = %d: %w", e.N, err)
				}
				runs = append(runs, zosplmRun{e.N, pe.K, tr})
			}
			if err := plotZOSPLM(out, e.N, pe.K, f.eps, runs); err != nil {
				return fmt.Errorf("reproduce zo-splm: n = %d: %w", e.N, err)
			}
			conv = append(conv, runs...)
		}
	}
	if err := writeZOSPLMTrials(filepath.Join(out, "trials.csv"), table); err != nil {
		return fmt.Errorf("reproduce zo-splm: %w", err)
	}
	if err := writeZOSPLMTraces(filepath.Join(out, "traces.csv"), table); err != nil {
		return fmt.Errorf("reproduce zo-splm: %w", err)
	}
	if len(conv) > 0 {
		if err := writeZOSPLMTraces(filepath.Join(out, "convergence.csv"), conv); err != nil {
			return fmt.Errorf("reproduce zo-splm: %w", err)
		}
	}
	md := zosplmTable(f, ns, table, conv) + wallLine(time.Since(start))
	if err := writeNewFile(filepath.Join(out, "table.md"), strings.NewReader(md)); err != nil {
		return fmt.Errorf("reproduce zo-splm: %w", err)
	}
	_, err = io.WriteString(stdout, md)
	return err
}

// writeZOSPLMTrials writes n,k,method,trial,iters_to_eps,iters,evals,
// cpu_seconds,cpu_seconds_per_iter: one row per table run.
func writeZOSPLMTrials(path string, runs []zosplmRun) error {
	rows := make([][]string, 0, len(runs))
	for _, r := range runs {
		t := r.trace
		rows = append(rows, []string{
			strconv.Itoa(r.n), strconv.Itoa(r.k), t.Method, strconv.Itoa(t.Trial),
			strconv.Itoa(t.ItersToEps), strconv.Itoa(t.Iters), strconv.FormatInt(t.Evals, 10),
			fmtG(t.Seconds), fmtG(t.SecondsPerIter()),
		})
	}
	return writeCSVFile(path, []string{"n", "k", "method", "trial", "iters_to_eps", "iters", "evals", "cpu_seconds", "cpu_seconds_per_iter"}, rows)
}

// writeZOSPLMTraces writes n,k,method,trial,iter,objective,stationarity,
// feasibility,complementarity: the measures after every iteration.
func writeZOSPLMTraces(path string, runs []zosplmRun) error {
	var rows [][]string
	for _, r := range runs {
		t := r.trace
		for i, p := range t.Points {
			rows = append(rows, []string{
				strconv.Itoa(r.n), strconv.Itoa(r.k), t.Method, strconv.Itoa(t.Trial), strconv.Itoa(i),
				fmtG(p.Objective), fmtG(p.Stationarity), fmtG(p.Feasibility), fmtG(p.Complementarity),
			})
		}
	}
	return writeCSVFile(path, []string{"n", "k", "method", "trial", "iter", "objective", "stationarity", "feasibility", "complementarity"}, rows)
}

// plotZOSPLM writes zosplm_n<n>_objective.{png,svg} (f(x) against
// iterations, Figure 1) and zosplm_n<n>_measures.{png,svg} (the largest of
// the three stationarity measures, log scale, with eps).
func plotZOSPLM(dir string, n, k int, eps float64, runs []zosplmRun) error {
	obj := plot.New()
	obj.Title.Text = fmt.Sprintf("NC-QCQP, n = %d, k = %d", n, k)
	obj.X.Label.Text = "iteration"
	obj.Y.Label.Text = "objective f(x)"
	obj.X.Tick.Marker = plainTicks{}
	obj.Y.Tick.Marker = plainTicks{}
	meas := plot.New()
	meas.Title.Text = fmt.Sprintf("NC-QCQP, n = %d, k = %d", n, k)
	meas.X.Label.Text = "iteration"
	meas.Y.Label.Text = "max(stationarity, feasibility, complementarity)"
	meas.Y.Scale = plot.LogScale{}
	meas.Y.Tick.Marker = logTicks{}
	meas.X.Tick.Marker = plainTicks{}
	var objLines, measLines []any
	for _, r := range runs {
		var o, m plotter.XYs
		for i, p := range r.trace.Points {
			if finite(p.Objective) {
				o = append(o, plotter.XY{X: float64(i), Y: p.Objective})
			}
			if v := p.Max(); v > 0 && finite(v) {
				m = append(m, plotter.XY{X: float64(i), Y: v})
			}
		}
		objLines = append(objLines, r.trace.Method, o)
		measLines = append(measLines, r.trace.Method, m)
	}
	if err := plotutil.AddLines(obj, objLines...); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	if err := plotutil.AddLines(meas, measLines...); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	if len(runs) > 0 {
		last := float64(len(runs[0].trace.Points) - 1)
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
	if err := savePlot(obj, base+"objective"); err != nil {
		return err
	}
	return savePlot(meas, base+"measures")
}

// zosplmTable renders table.md: per n and method, our median iterations
// to eps with quartiles and CPU seconds per iteration next to the paper's
// Table 2 means, then the paper's claims read on our numbers.
func zosplmTable(f *zosplmFlags, ns []int, table, conv []zosplmRun) string {
	var b strings.Builder
	b.WriteString("# ZO-SPLM: nonconvex QCQP (Dong et al., Table 2 and Figure 1)\n\n")
	fmt.Fprintf(&b, "%d instances per n (seed %d), x0 = 0, mini-batch k = %d, smoothing radius 1e-5, stop when stationarity, feasibility and complementarity are all < eps = %g, at most %d iterations. Default parameter rules of each method. Time is process CPU time (user + system) per iteration; the paper's is wall time on its machine, means over 20 trials.\n\n",
		f.trials, f.seed, f.k, f.eps, f.maxIter)
	b.WriteString("| n | method | reached | iterations median [Q1, Q3] | mean | CPU s/iter median | CPU s total (mean) | paper iterations | paper s/iter | paper total s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	sums := map[[2]string]zosplm.Summary{}
	totals := map[[2]string]float64{}
	for _, n := range ns {
		for _, m := range zosplm.Methods {
			var trs []*zosplm.Trace
			var total float64
			for _, r := range table {
				if r.n == n && r.trace.Method == m {
					trs = append(trs, r.trace)
					total += r.trace.Seconds
				}
			}
			s := zosplm.SummarizeTraces(trs)
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
		sp := sums[[2]string{key, zosplm.MethodSPLM}]
		for _, m := range []string{zosplm.MethodConEx, zosplm.MethodALM} {
			o := sums[[2]string{key, m}]
			holds := sp.Reached == sp.Trials && (o.Reached < o.Trials || sp.Iters.Median < o.Iters.Median)
			fmt.Fprintf(&b, "| %d | ZO-SPLM needs fewer iterations than %s | %s | %s vs %s |\n",
				n, m, holdsWord(holds), zosplmItersText(sp), zosplmItersText(o))
			ts, to := totals[[2]string{key, zosplm.MethodSPLM}], totals[[2]string{key, m}]
			fmt.Fprintf(&b, "| %d | ZO-SPLM takes less total time than %s | %s | %.2f vs %.2f CPU s (mean over instances, to eps or the limit) |\n",
				n, m, holdsWord(ts < to), ts, to)
			// Equal costs within 5% are a tie: every method makes k + 1
			// evaluations per iteration.
			holdsT := sp.SecondsPerIter.Median < 0.95*o.SecondsPerIter.Median
			fmt.Fprintf(&b, "| %d | ZO-SPLM takes less time per iteration than %s (by 5%% or more) | %s | %.4f vs %.4f CPU s |\n",
				n, m, holdsWord(holdsT), sp.SecondsPerIter.Median, o.SecondsPerIter.Median)
		}
	}
	if len(conv) > 0 {
		fmt.Fprintf(&b, "\nConvergence runs (Figure 1): one instance per n, k = %d, %d iterations; first iteration below eps and the final objective.\n\n", f.plotK, f.plotIters)
		b.WriteString("| n | method | iterations to eps | f(x0) | final f(x) | final max measure |\n|---|---|---|---|---|---|\n")
		for _, r := range conv {
			t := r.trace
			first, last := t.Points[0], t.Points[len(t.Points)-1]
			reach := "not reached"
			if t.ItersToEps >= 0 {
				reach = strconv.Itoa(t.ItersToEps)
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %.4f | %.4f | %.3g |\n", r.n, t.Method, reach, first.Objective, last.Objective, last.Max())
		}
	}
	return b.String()
}

// zosplmItersText is a summary's iteration count for the claims table.
func zosplmItersText(s zosplm.Summary) string {
	if s.Reached == 0 {
		return fmt.Sprintf("%s: not reached (0/%d)", s.Method, s.Trials)
	}
	return fmt.Sprintf("%s %g (%d/%d reached)", s.Method, s.Iters.Median, s.Reached, s.Trials)
}

// zosplmPaper returns the paper's Table 2 row of (n, method).
func zosplmPaper(n int, method string) (zosplm.PaperRow, bool) {
	for _, r := range zosplm.PaperTable2 {
		if r.N == n && r.Method == method {
			return r, true
		}
	}
	return zosplm.PaperRow{}, false
}

// The helpers below are shared by the reproduce commands.

// wallLine is the last line of a table.md: the command's wall time.
func wallLine(d time.Duration) string {
	return fmt.Sprintf("\nWall time: %.1f s.\n", d.Seconds())
}

// holdsWord renders a claim's verdict.
func holdsWord(ok bool) string {
	if ok {
		return "holds"
	}
	return "does not hold"
}

// parseInts parses a comma-separated list of positive integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q: want positive integers separated by commas", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseFloats parses a comma-separated list of numbers.
func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !finite(v) {
			return nil, fmt.Errorf("%q: want numbers separated by commas", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// fmtG formats v with 6 significant digits.
func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// writeCSVFile creates path, which must not exist, with header and rows.
func writeCSVFile(path string, header []string, rows [][]string) (err error) {
	f, err := createNewFile(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing %s: %w", path, cerr)
		}
	}()
	w := csv.NewWriter(f)
	if err := w.Write(header); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.WriteAll(rows); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// savePlot writes p as base.png and base.svg, 7 x 4.5 inches; neither
// file may exist.
func savePlot(p *plot.Plot, base string) error {
	for _, format := range []string{"png", "svg"} {
		w, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, format)
		if err != nil {
			return fmt.Errorf("rendering %s.%s: %w", base, format, err)
		}
		if err := writeNewFile(base+"."+format, w); err != nil {
			return fmt.Errorf("saving plot: %w", err)
		}
	}
	return nil
}

// plainTicks is gonum's default ticker with labels written as plain
// numbers (12000, 0.05), never in exponent form.
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = plainNumber(ticks[i].Value)
		}
	}
	return ticks
}

// logTicks marks every power of ten on a log axis and labels about six of
// them as plain numbers (0.001, 1, 10000000); beyond 1e-6 and 1e9 the
// labels are 1e-k and 1ek. An axis spanning less than three decades also gets
// labelled ticks at 2 and 5 times each power of ten.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	a, b := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	every := max(1, (b-a+5)/6)
	label := func(e int, v float64) string {
		if e < -6 || e > 9 {
			return fmt.Sprintf("%.0fe%d", v/math.Pow(10, float64(e)), e)
		}
		return plainNumber(v)
	}
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		p := math.Pow(10, float64(e))
		t := plot.Tick{Value: p}
		if e%every == 0 {
			t.Label = label(e, p)
		}
		ticks = append(ticks, t)
		if b-a > 3 || e == b {
			continue
		}
		for m := 2; m <= 9; m++ {
			t := plot.Tick{Value: float64(m) * p}
			if m == 2 || m == 5 {
				t.Label = label(e, t.Value)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// plainNumber formats v without an exponent and without trailing zeros.
func plainNumber(v float64) string {
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	// Rounding noise of a tick value (0.30000000000000004) is cut at
	// 10 significant digits.
	if len(strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(s, "-"), ".", ""), "0")) > 10 {
		s = strconv.FormatFloat(v, 'f', max(0, 9-int(math.Floor(math.Log10(math.Abs(v))))), 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
	}
	return s
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
