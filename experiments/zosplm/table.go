package zosplm

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/consim/consim/experiments"
)

// Level is the confidence level of the table's intervals, and Resamples
// the bootstrap resamples of its ratios.
const (
	Level     = 0.95
	Resamples = 10000
)

// Cell is one (regime, n, method) group of the table's runs.
type Cell struct {
	Regime Regime
	N      int
	Method string
	// Trials are the instance indices, ascending; Iters[i] is the
	// iterations to eps of trial Trials[i], or the iteration limit if the
	// run was censored (Censored[i]).
	Trials   []int
	Iters    []float64
	Censored []bool
	// SecondsPerIter and Seconds are each run's CPU time per iteration
	// and in total.
	SecondsPerIter, Seconds []float64
}

// Reached is the number of runs that met the test.
func (c *Cell) Reached() int {
	n := 0
	for _, v := range c.Censored {
		if !v {
			n++
		}
	}
	return n
}

// cells groups the table's trials by (regime, n, method), the trials of
// each in ascending order; limit is the iteration limit.
func cells(trials []Trial, limit int) map[[3]string]*Cell {
	out := map[[3]string]*Cell{}
	for _, t := range trials {
		k := [3]string{string(t.Regime), strconv.Itoa(t.N), t.Trace.Method}
		c := out[k]
		if c == nil {
			c = &Cell{Regime: t.Regime, N: t.N, Method: t.Trace.Method}
			out[k] = c
		}
		c.Trials = append(c.Trials, t.Trace.Trial)
		it, cens := float64(t.Trace.ItersToEps), t.Trace.ItersToEps < 0
		if cens {
			it = float64(limit)
		}
		c.Iters = append(c.Iters, it)
		c.Censored = append(c.Censored, cens)
		c.SecondsPerIter = append(c.SecondsPerIter, t.Trace.SecondsPerIter())
		c.Seconds = append(c.Seconds, t.Trace.Seconds)
	}
	for _, c := range out {
		idx := make([]int, len(c.Trials))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return c.Trials[idx[a]] < c.Trials[idx[b]] })
		perm := func(v []float64) []float64 {
			w := make([]float64, len(v))
			for i, j := range idx {
				w[i] = v[j]
			}
			return w
		}
		tr, cens := make([]int, len(idx)), make([]bool, len(idx))
		for i, j := range idx {
			tr[i], cens[i] = c.Trials[j], c.Censored[j]
		}
		c.Trials, c.Censored = tr, cens
		c.Iters, c.SecondsPerIter, c.Seconds = perm(c.Iters), perm(c.SecondsPerIter), perm(c.Seconds)
	}
	return out
}

// Ratio is the ratio of a baseline's mean iterations to ZO-SPLM's over
// the same instances, with its paired bootstrap interval; Censored
// reports that a run of either was censored (the ratio then counts it at
// the limit).
type Ratio struct {
	experiments.RatioInterval
	Censored bool
}

// ratio returns mean(b)/mean(s) for the cells of a baseline b and of
// ZO-SPLM s, paired by instance, with bootstrap seed seed.
func ratio(b, s *Cell, seed uint64) (Ratio, error) {
	if len(b.Trials) != len(s.Trials) || len(s.Trials) < 2 {
		return Ratio{}, fmt.Errorf("zosplm: %s n = %d: %d %s runs and %d %s runs, want the same instances, at least 2",
			s.Regime, s.N, len(b.Trials), b.Method, len(s.Trials), s.Method)
	}
	for i := range s.Trials {
		if b.Trials[i] != s.Trials[i] {
			return Ratio{}, fmt.Errorf("zosplm: %s n = %d: %s and %s ran different instances", s.Regime, s.N, b.Method, s.Method)
		}
	}
	r := Ratio{RatioInterval: experiments.PairedRatioCI(b.Iters, s.Iters, Level, Resamples, seed)}
	for i := range s.Censored {
		r.Censored = r.Censored || s.Censored[i] || b.Censored[i]
	}
	return r, nil
}

// atLeast prefixes "≥ " to a number that a censored run can only make
// larger.
func atLeast(censored bool, s string) string {
	if censored {
		return "≥ " + s
	}
	return s
}

// itersCells renders the mean with its t interval and the median with
// its order-statistic interval of a cell; censored runs count at the
// limit, so a statistic they enter is a lower bound.
func itersCells(c *Cell, limit int) (mean, median string) {
	anyCens := c.Reached() < len(c.Iters)
	if len(c.Iters) >= 2 {
		m, h := experiments.MeanCI(c.Iters)
		mean = atLeast(anyCens, fmt.Sprintf("%.1f [%.1f, %.1f]", m, m-h, m+h))
	} else {
		mean = atLeast(anyCens, fmt.Sprintf("%.1f", c.Iters[0]))
	}
	ci := experiments.MedianCI(c.Iters, Level)
	med := experiments.Median(c.Iters)
	hi := fmt.Sprintf("%g", ci.Hi)
	if anyCens && ci.Hi >= float64(limit) {
		hi = "≥ " + hi
	}
	median = fmt.Sprintf("%s [%g, %s] (%.1f%%)", atLeast(anyCens && med >= float64(limit), fmt.Sprintf("%g", med)), ci.Lo, hi, 100*ci.Coverage)
	return mean, median
}

// ratioText renders a ratio with its interval.
func ratioText(r Ratio) string {
	s := fmt.Sprintf("%.2f [%.2f, %.2f]", r.Ratio, r.Lo, r.Hi)
	if r.Censored {
		s += " (censored runs at the limit)"
	}
	return s
}

// paperRatio is the paper's ratio of a baseline's mean iterations to
// ZO-SPLM's at n (NaN if n is not in Table 2).
func paperRatio(n int, method string) float64 {
	b, okB := zosplmPaper(n, method)
	s, okS := zosplmPaper(n, MethodSPLM)
	if !okB || !okS {
		return math.NaN()
	}
	return float64(b.Iters) / float64(s.Iters)
}

// Table renders table.md: per regime, the iterations to eps of every
// method (mean and median with intervals) beside the paper's Table 2 and
// the baselines' ratios to ZO-SPLM; the settings of every regime; the
// paper's claims read in each regime; and the convergence runs.
func (r *Result) Table() string {
	f := r.Config
	var b strings.Builder
	b.WriteString("# ZO-SPLM: nonconvex QCQP (Dong et al., Table 2 and Figure 1)\n\n")
	fmt.Fprintf(&b, "%d instances per n (seed %d), x0 = 0, y0 = 0, mini-batch k = %d sphere directions, smoothing radius 1e-5, the same directions for every method on an instance. A run stops when stationarity, feasibility and complementarity (Definition 1, exact gradients, the method's own multiplier) are all < eps = %g, or after %d iterations: such a run is censored, counted at the limit, and a statistic it enters is marked ≥. Mean: 95%% Student-t interval. Median: distribution-free order-statistic interval, its coverage in parentheses. Ratio of mean iterations, paired by instance: 95%% percentile bootstrap interval (%d resamples). CPU time is the user + system time of the run's own thread; the paper's times are wall times on its machine and its iterations means over 20 trials.\n",
		f.Trials, f.Seed, f.K, f.Eps, f.MaxIter, Resamples)
	cs := cells(r.Trials, f.MaxIter)
	get := func(reg Regime, n int, m string) *Cell { return cs[[3]string{string(reg), strconv.Itoa(n), m}] }
	ratios := map[[3]string]Ratio{}
	var errs []string
	for _, reg := range f.Regimes {
		fmt.Fprintf(&b, "\n## Regime %s\n\n%s.\n\n", reg, upperFirst(reg.Describe()))
		b.WriteString("| n | method | reached | iterations: mean [95% CI] | median [CI] (coverage) | CPU s/iter (median) | paper: mean iterations | paper: s/iter |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|\n")
		for _, n := range f.Ns {
			for _, m := range Methods {
				c := get(reg, n, m)
				if c == nil {
					continue
				}
				mean, median := itersCells(c, f.MaxIter)
				paper, paperSPI := "-", "-"
				if p, ok := zosplmPaper(n, m); ok {
					paper, paperSPI = strconv.Itoa(p.Iters), fmt.Sprintf("%.3f", p.PerIterSec)
				}
				fmt.Fprintf(&b, "| %d | %s | %d/%d | %s | %s | %.4f | %s | %s |\n",
					n, display(m), c.Reached(), len(c.Iters), mean, median, experiments.Median(c.SecondsPerIter), paper, paperSPI)
			}
		}
		b.WriteString("\nIterations of each baseline over ZO-SPLM's (ratio of means over the same instances; above 1: ZO-SPLM needs fewer):\n\n")
		b.WriteString("| n | ZO-ALM / ZO-SPLM [95% CI] | paper | ZO-ConEX / ZO-SPLM [95% CI] | paper |\n|---|---|---|---|---|\n")
		for _, n := range f.Ns {
			s := get(reg, n, MethodSPLM)
			if s == nil {
				continue
			}
			row := []string{strconv.Itoa(n)}
			for _, m := range []string{MethodALM, MethodConEx} {
				c := get(reg, n, m)
				if c == nil {
					row = append(row, "-", "-")
					continue
				}
				rt, err := ratio(c, s, f.Seed)
				if err != nil {
					errs = append(errs, err.Error())
					row = append(row, "-", "-")
					continue
				}
				ratios[[3]string{string(reg), strconv.Itoa(n), m}] = rt
				row = append(row, ratioText(rt), paperText(n, m))
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
	}
	for _, e := range errs {
		fmt.Fprintf(&b, "\nError: %s\n", e)
	}

	r.writeSettings(&b)
	r.writeClaims(&b, get, ratios)

	if len(r.Conv) > 0 {
		fmt.Fprintf(&b, "\n## Convergence runs (Figure 1)\n\nOne instance per regime and n, k = %d, %d iterations: the first iteration below eps and the final objective.\n\n", f.PlotK, f.PlotIters)
		b.WriteString("| regime | n | method | iterations to eps | f(x0) | final f(x) | final max measure |\n|---|---|---|---|---|---|---|\n")
		for _, c := range r.Conv {
			t := c.Trace
			first, last := t.Points[0], t.Points[len(t.Points)-1]
			reach := "not reached"
			if t.ItersToEps >= 0 {
				reach = strconv.Itoa(t.ItersToEps)
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %.4f | %.4f | %.3g |\n", c.Regime, c.N, display(t.Method), reach, first.Objective, last.Objective, last.Max())
		}
	}
	return b.String()
}

// writeSettings writes the settings table: every regime's rule for every
// parameter, its source, and its values on trial 0 of each n.
func (r *Result) writeSettings(b *strings.Builder) {
	f := r.Config
	var ns []string
	for _, n := range f.Ns {
		ns = append(ns, strconv.Itoa(n))
	}
	fmt.Fprintf(b, "\n## Settings\n\nThe paper states the estimator, the instance generator, m, r, k and eps; everything else is ours. Source: paper, computed (from the instance or a bound of the analysis) or chosen. Values on instance 0 of n = %s.\n\n", strings.Join(ns, ", "))
	b.WriteString("| regime | method | setting | rule | source | values |\n|---|---|---|---|---|---|\n")
	type inst struct {
		p Params
		k Constants
	}
	for _, reg := range f.Regimes {
		var insts []inst
		for _, n := range f.Ns {
			e := Experiment{N: n, Seed: f.Seed}
			q, err := e.Instance(0)
			if err != nil {
				fmt.Fprintf(b, "| %s | all | instance | n = %d: %s | - | - |\n", reg, n, experiments.MDCell(err.Error()))
				return
			}
			p, err := reg.Params(q)
			if err != nil {
				fmt.Fprintf(b, "| %s | all | parameters | n = %d: %s | - | - |\n", reg, n, experiments.MDCell(err.Error()))
				return
			}
			insts = append(insts, inst{p, InstanceConstants(q)})
		}
		for _, s := range reg.Settings() {
			vals := "-"
			if s.Value != nil {
				var vs []string
				for _, in := range insts {
					vs = append(vs, fmt.Sprintf("%.4g", s.Value(in.p, in.k)))
				}
				vals = strings.Join(vs, " / ")
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", reg, s.Method, experiments.MDCell(s.Name), experiments.MDCell(s.Rule), s.Source, vals)
		}
	}
}

// writeClaims writes the paper's claims read in each regime.
func (r *Result) writeClaims(b *strings.Builder, get func(Regime, int, string) *Cell, ratios map[[3]string]Ratio) {
	f := r.Config
	b.WriteString("\n## The paper's claims, on our numbers\n\nFewer iterations holds when the ratio's 95% interval lies above 1 at every n; growing with n when the ratio rises from each n to the next.\n\n")
	b.WriteString("| regime | claim | verdict | numbers |\n|---|---|---|---|\n")
	for _, reg := range f.Regimes {
		for _, m := range []string{MethodConEx, MethodALM} {
			fewer, grows, any := true, true, false
			var nums []string
			prev := math.Inf(-1)
			for _, n := range f.Ns {
				rt, ok := ratios[[3]string{string(reg), strconv.Itoa(n), m}]
				if !ok {
					continue
				}
				any = true
				fewer = fewer && rt.Lo > 1
				grows = grows && rt.Ratio > prev
				prev = rt.Ratio
				nums = append(nums, fmt.Sprintf("n = %d: %s (paper %s)", n, ratioText(rt), paperText(n, m)))
			}
			if !any {
				continue
			}
			text := strings.Join(nums, "; ")
			fmt.Fprintf(b, "| %s | ZO-SPLM needs fewer iterations than %s | %s | %s / ZO-SPLM: %s |\n", reg, display(m), experiments.Verdict(fewer), display(m), text)
			if len(nums) > 1 {
				fmt.Fprintf(b, "| %s | the advantage over %s grows with n | %s | %s |\n", reg, display(m), experiments.Verdict(grows), text)
			}
		}
		for _, m := range []string{MethodConEx, MethodALM} {
			ok, any := true, false
			var nums []string
			for _, n := range f.Ns {
				s, c := get(reg, n, MethodSPLM), get(reg, n, m)
				if s == nil || c == nil {
					continue
				}
				any = true
				ts, tc := experiments.MeanStd(s.Seconds).Mean, experiments.MeanStd(c.Seconds).Mean
				ok = ok && ts < tc
				nums = append(nums, fmt.Sprintf("n = %d: %.2f vs %.2f", n, ts, tc))
			}
			if any {
				fmt.Fprintf(b, "| %s | ZO-SPLM takes less total time than %s | %s | CPU s per instance (mean, to eps or the limit): %s |\n", reg, display(m), experiments.Verdict(ok), strings.Join(nums, "; "))
			}
		}
	}
	// Time per iteration does not depend on the regime: every method makes
	// k + 1 evaluations per iteration. Equal costs within 5% are a tie.
	for _, m := range []string{MethodConEx, MethodALM} {
		for _, n := range f.Ns {
			var s, c []float64
			for _, reg := range f.Regimes {
				if cs, cc := get(reg, n, MethodSPLM), get(reg, n, m); cs != nil && cc != nil {
					s, c = append(s, cs.SecondsPerIter...), append(c, cc.SecondsPerIter...)
				}
			}
			if len(s) == 0 {
				continue
			}
			ms, mc := experiments.Median(s), experiments.Median(c)
			paper := ""
			if p, ok := zosplmPaper(n, m); ok {
				ps, _ := zosplmPaper(n, MethodSPLM)
				paper = fmt.Sprintf("; paper %.3f vs %.3f s", ps.PerIterSec, p.PerIterSec)
			}
			fmt.Fprintf(b, "| all | n = %d: ZO-SPLM takes less time per iteration than %s (by 5%% or more) | %s | %.4f vs %.4f CPU s (median over every regime's runs)%s |\n",
				n, display(m), experiments.Verdict(ms < 0.95*mc), ms, mc, paper)
		}
	}
}

// display is a method's name in the table.
func display(method string) string {
	switch method {
	case MethodSPLM:
		return "ZO-SPLM"
	case MethodConEx:
		return "ZO-ConEX"
	case MethodALM:
		return "ZO-ALM"
	}
	return method
}

// paperText renders the paper's ratio of a baseline to ZO-SPLM at n.
func paperText(n int, method string) string {
	if p := paperRatio(n, method); !math.IsNaN(p) {
		return fmt.Sprintf("%.2f", p)
	}
	return "-"
}

// upperFirst capitalizes s's first letter.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
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
