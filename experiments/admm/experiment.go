// Package admm is the portfolio experiment of Yu and Huang, "Fast
// Stochastic Variance Reduced ADMM for Stochastic Composition
// Optimization" (Section 4.1, Figures 1 and 2), behind `consim reproduce
// admm`: com-SVR-ADMM against com-SVRG-1, com-SVRG-2 and SGD (and
// com-SVR-ADMM-2) on the mean-variance portfolio problem, for each
// covariance condition number of Config.Covs.
//
// The methods are stepped by hand, one epoch at a time, from
// consensus/admm: they are centralized stochastic composition solvers
// with an oracle counter, not registered decentralized algorithms, and
// the baselines exist only for this comparison.
//
// admm imports consensus/admm, graph, experiments and gonum; it must not
// import node, coordinator, sim or cmd.
package admm

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	admmalg "github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/experiments"
)

// Config is the experiment of `consim reproduce admm`: the portfolio
// experiment of Yu and Huang (Section 4.1, Figures 1 and 2).
//
// Problem: mean-variance portfolio (eq. 24) with N = assets and n = periods
// rewards r_i ~ N(nu, Sigma), Sigma = Q diag(lambda) Q^T with condition
// number cov (admm.ReturnsConfig), nu_k ~ U[0, 0.1], plus R(w) = (mu/2)||w||^2
// through the splitting x - w = 0 (A = I, B = -I).
//
// Default steps (full size, both cov): eta = 0.001 for every method,
// rho = 1, K = 2000 inner iterations (about m), mini-batch N = 5, mu = 0.01,
// 70 outer iterations. On the grid eta in {0.001, 0.0015, 0.002}, 0.001 is
// the only step at which all three variance-reduced methods converge for
// both cov values (com-SVRG-1 stalls at 0.0015 and diverges at 0.002 for
// cov = 2); rho in [0.1, 10] barely changes com-SVR-ADMM.
// SGD uses the same eta with K_SGD steps per recorded epoch, K_SGD chosen so
// that one SGD epoch costs about as many oracle calls as one com-SVR-ADMM
// outer iteration, and runs until it has used as many oracle calls as the
// most expensive of the other three runs.
//
// With Alg2, com-SVR-ADMM-2 (Algorithm 2, the general convex case) runs
// as a fifth method for the same outer iterations with L_F = 1/eta, the
// same rho and K, and the exact g(x^k) in every inner step; its point is
// the paper's output x-bar, the mean of x~^1..x~^s. It does not change the
// SGD budget, so the other four runs are the same with or without it.
type Config struct {
	// Covs are the condition numbers of Sigma, one instance each (the
	// paper's 2 and 10).
	Covs []float64
	// Experiment is the experiment of every instance (200 assets, 2000
	// periods, the steps above, 70 outer iterations, seed 1, without
	// Algorithm 2); Cov and Instance (the index of Cov in Covs) are set
	// per run.
	Experiment PortfolioExperiment
	// Clock is the time the methods' epochs are charged with; nil is the
	// wall time since Run began. The instances run concurrently, one
	// goroutine each, and each runs its methods one after the other, so on
	// a machine with a core per instance an epoch's time is its own.
	Clock func() time.Duration
}

// DefaultConfig is the paper's setting: 200 assets, 2000 periods, both
// covariance condition numbers, the steps above, seed 1.
func DefaultConfig() Config {
	return Config{Covs: []float64{2, 10}, Experiment: PortfolioExperiment{
		Assets: 200, Periods: 2000, MeanHi: 0.1, Mu: 0.01,
		Params: admmalg.Params{Eta: 0.001, Rho: 1, K: 2000, Batch: 5},
		Outer:  70, Seed: 1,
	}}
}

// QuickConfig is DefaultConfig on a small instance, 20 assets and 200
// periods: the component Lipschitz constants scale with the number of
// assets, so the step grows and K shrinks with it (eta = 0.005, K = 400,
// N = 2, 20 outer iterations).
func QuickConfig() Config {
	c := DefaultConfig()
	e := &c.Experiment
	e.Assets, e.Periods = 20, 200
	e.Outer, e.Params.K, e.Params.Batch, e.Params.Eta = 20, 400, 2, 0.005
	return c
}

// Validate checks the covariance list and the run parameters.
func (c Config) Validate() error {
	if len(c.Covs) == 0 {
		return fmt.Errorf("admm: no covariance condition numbers")
	}
	return c.Experiment.Validate()
}

// Record is one row of admm.csv: the state of a method after an outer
// iteration on the cov instance.
type Record struct {
	Cov float64
	EpochRecord
}

// Result is the outcome of Run: every method's records on every instance,
// and the summary and a note per instance, in the order of Config.Covs.
type Result struct {
	Config    Config
	Records   []Record
	Summaries []PortfolioSummary
	Notes     []string
}

// Thresholds are the gaps the table reports oracle calls for.
var Thresholds = []float64{1e-6, 1e-10}

// Run runs every instance of c.Covs, concurrently, and collects the
// records.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	clock := c.Clock
	if clock == nil {
		start := time.Now()
		clock = func() time.Duration { return time.Since(start) }
	}
	results := make([]*PortfolioResult, len(c.Covs))
	errs := make([]error, len(c.Covs))
	var wg sync.WaitGroup
	for ci, cov := range c.Covs {
		exp := c.Experiment
		exp.Cov, exp.Instance = cov, uint64(ci)
		wg.Go(func() { results[ci], errs[ci] = RunPortfolioExperiment(exp, clock) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &Result{Config: c}
	for ci, cov := range c.Covs {
		res, err := results[ci], errs[ci]
		if err != nil {
			return nil, fmt.Errorf("cov = %v: %w", cov, err)
		}
		for _, e := range res.Records {
			r.Records = append(r.Records, Record{Cov: cov, EpochRecord: e})
		}
		sum := res.Summary
		r.Summaries = append(r.Summaries, sum)
		r.Notes = append(r.Notes, fmt.Sprintf("cov = %v: P* = %.10g, gap at x0 = 0: %.4g, m = n = %d, SGD steps per epoch %d",
			cov, sum.PStar, sum.InitialGap, sum.M, sum.SGDSteps))
	}
	return r, nil
}

// Write writes admm.csv and, per instance, semilog plots (PNG and SVG) of
// the gap against oracle calls and against CPU time.
func (r *Result) Write(dir string) error {
	for _, cov := range r.Config.Covs {
		var recs []Record
		for _, rec := range r.Records {
			if rec.Cov == cov {
				recs = append(recs, rec)
			}
		}
		if err := plotADMM(dir, cov, recs); err != nil {
			return fmt.Errorf("cov = %v: %w", cov, err)
		}
	}
	return writeADMMCSV(filepath.Join(dir, "admm.csv"), r.Records)
}

// writeADMMCSV writes method,cov,outer,oracle_calls,cpu_seconds,gap.
func writeADMMCSV(path string, recs []Record) error {
	rows := make([][]string, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, []string{
			r.Method, strconv.FormatFloat(r.Cov, 'g', -1, 64), strconv.Itoa(r.Outer),
			strconv.FormatInt(r.Calls, 10), strconv.FormatFloat(r.CPUSeconds, 'g', 6, 64),
			strconv.FormatFloat(r.Gap, 'g', 6, 64),
		})
	}
	return experiments.WriteCSV(path, []string{"method", "cov", "outer", "oracle_calls", "cpu_seconds", "gap"}, rows)
}

// plotADMM writes admm_cov<cov>_{oracle,cpu}.{png,svg}: semilog-y gap
// against oracle calls and against CPU seconds, one line per method.
func plotADMM(dir string, cov float64, recs []Record) error {
	for _, axis := range []struct {
		name, label string
		x           func(Record) float64
	}{
		{"oracle", "oracle calls", func(r Record) float64 { return float64(r.Calls) }},
		{"cpu", "CPU time (s)", func(r Record) float64 { return r.CPUSeconds }},
	} {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("Portfolio mean-variance, cov = %v", cov)
		p.X.Label.Text = axis.label
		p.Y.Label.Text = "F(x) - F*"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = experiments.DecadeTicks{}
		// Algorithm 2 spends m queries per inner step, so its run reaches
		// far beyond the others; its curve is cut at their extent so that
		// they stay legible (admm.csv and the table have the full run).
		xmax := math.Inf(1)
		if hasMethod(recs, alg2Name) {
			xmax = 0
			for _, r := range recs {
				if r.Method != alg2Name {
					xmax = math.Max(xmax, axis.x(r))
				}
			}
		}
		var lines []any
		for _, name := range admmMethodOrder(recs) {
			var xys plotter.XYs
			for _, r := range recs {
				// The log axis takes positive finite gaps only. The plot
				// spans [1e-16, 1e6]: below 1e-16 an O(1) objective
				// difference is rounding, and a diverged run is cut where
				// it leaves the range.
				if r.Method == name && r.Gap >= 1e-16 && r.Gap < 1e6 && axis.x(r) <= xmax {
					xys = append(xys, plotter.XY{X: axis.x(r), Y: r.Gap})
				}
			}
			if len(xys) > 0 {
				lines = append(lines, name, xys)
			}
		}
		if err := plotutil.AddLinePoints(p, lines...); err != nil {
			return fmt.Errorf("plotting: %w", err)
		}
		p.Legend.Left = true // the curves start top left and end low right
		if err := experiments.SavePlot(p, filepath.Join(dir, fmt.Sprintf("admm_cov%v_%s", cov, axis.name))); err != nil {
			return err
		}
	}
	return nil
}

// alg2Name is the label of com-SVR-ADMM Algorithm 2 (admm.ComSVRADMM2).
const alg2Name = "com-SVR-ADMM-2"

// hasMethod reports whether recs has a record of method.
func hasMethod(recs []Record, method string) bool {
	for _, r := range recs {
		if r.Method == method {
			return true
		}
	}
	return false
}

// admmMethodOrder lists the methods in first-appearance order.
func admmMethodOrder(recs []Record) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range recs {
		if !seen[r.Method] {
			seen[r.Method] = true
			names = append(names, r.Method)
		}
	}
	return names
}

// firstBelow returns the first record of method at cov whose gap is at most
// tol.
func firstBelow(recs []Record, method string, cov, tol float64) (Record, bool) {
	for _, r := range recs {
		if r.Method == method && r.Cov == cov && r.Gap <= tol {
			return r, true
		}
	}
	return Record{}, false
}

// Table renders table.md: oracle calls (and CPU seconds) to reach each
// threshold, resolved to one outer iteration, and the final gap.
func (r *Result) Table() string {
	recs, notes := r.Records, r.Notes
	var b strings.Builder
	b.WriteString("# com-SVR-ADMM: portfolio mean-variance (Yu and Huang, Sec. 4.1)\n\n")
	e := r.Config.Experiment
	fmt.Fprintf(&b, "N = %d assets, n = %d periods, seed %d, R(w) = (mu/2)||w||^2 with mu = %v, A = I, B = -I.\n",
		e.Assets, e.Periods, e.Seed, e.Mu)
	fmt.Fprintf(&b, "eta = %v (all methods), rho = %v, K = %d, mini-batch N = %d, %d outer iterations.\n\n",
		e.Params.Eta, e.Params.Rho, e.Params.K, e.Params.Batch, e.Outer)
	if e.Alg2 {
		fmt.Fprintf(&b, "%s is Algorithm 2 (general convex): L_F = 1/eta, eta_s = 1/((s+1) L_F), G_k from I/s down to I/(s+1), warm start from x^K, exact g(x^k) per inner step, 2m + n + K(m + 4) oracle calls per outer iteration; its point is the output x-bar = mean of x~^1..x~^s. Plots cut its curve at the other methods' extent.\n\n",
			alg2Name)
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	b.WriteString("\nOracle calls (CPU seconds) until F(x) - F* first falls below each threshold, checked after every outer iteration.\n\n")
	b.WriteString("| cov | method |")
	for _, t := range Thresholds {
		fmt.Fprintf(&b, " gap <= %.0e |", t)
	}
	b.WriteString(" final gap | oracle calls |\n|---|---|")
	for range Thresholds {
		b.WriteString("---|")
	}
	b.WriteString("---|---|\n")
	for _, cov := range r.Config.Covs {
		for _, name := range admmMethodOrder(recs) {
			var last Record
			for _, r := range recs {
				if r.Method == name && r.Cov == cov {
					last = r
				}
			}
			fmt.Fprintf(&b, "| %v | %s |", cov, name)
			for _, t := range Thresholds {
				if r, ok := firstBelow(recs, name, cov, t); ok {
					fmt.Fprintf(&b, " %d (%.2f s) |", r.Calls, r.CPUSeconds)
				} else {
					b.WriteString(" not reached |")
				}
			}
			fmt.Fprintf(&b, " %.3g | %d |\n", last.Gap, last.Calls)
		}
	}
	return b.String()
}
