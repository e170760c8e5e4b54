package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/consim/consim/consensus/admm"
	"github.com/consim/consim/sim"
)

// admmSetup is the resolved configuration of `consim reproduce admm`: the
// portfolio experiment of Yu and Huang (Section 4.1, Figures 1 and 2).
//
// Problem: mean-variance portfolio (eq. 24) with N = assets and n = periods
// rewards r_i ~ N(nu, Sigma), Sigma = Q diag(lambda) Q^T with condition
// number cov (portfolio.ReturnsConfig), nu_k ~ U[0, 0.1], plus R(w) = (mu/2)||w||^2
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
// With --alg2, com-SVR-ADMM-2 (Algorithm 2, the general convex case) runs
// as a fifth method for the same outer iterations with L_F = 1/eta, the
// same rho and K, and the exact g(x^k) in every inner step; its point is
// the paper's output x-bar, the mean of x~^1..x~^s. It does not change the
// SGD budget, so the other four runs are the same with or without it.
//
// admm.RunPortfolioExperiment runs the methods; this command resolves the
// flags and writes the results.
type admmSetup struct {
	out  string
	covs []float64
	// exp is the experiment of every cov; Cov and Instance are set per run.
	exp admm.PortfolioExperiment
}

// admmRecord is one row of admm.csv: the state of a method after an outer
// iteration on the cov instance.
type admmRecord struct {
	cov float64
	admm.EpochRecord
}

// admmThresholds are the gaps the table reports oracle calls for.
var admmThresholds = []float64{1e-6, 1e-10}

// admmFlags are the flags of `consim reproduce admm`.
type admmFlags struct {
	out, cov        string
	seed            uint64
	outer, k, batch int
	quick, alg2     bool
	eta, rho, mu    float64
}

// reproduceADMMCmd is `consim reproduce admm`: com-SVR-ADMM, com-SVRG-1,
// com-SVRG-2 and SGD on the portfolio problem for cov = 2 and cov = 10.
func (a *app) reproduceADMMCmd() *cobra.Command {
	var f admmFlags
	cmd := &cobra.Command{
		Use:   "admm",
		Short: "com-SVR-ADMM and baselines on the portfolio mean-variance problem (Yu & Huang)",
		Long: `Admm runs com-SVR-ADMM, com-SVRG-1, com-SVRG-2 and SGD on the portfolio
mean-variance problem of Yu and Huang (Section 4.1, Figures 1 and 2) for
covariance condition numbers 2 and 10, and writes admm.csv, semilog plots
(PNG and SVG) of the optimality gap against oracle calls and against CPU
time, and table.md, which it also prints, into a new directory: --out
must not exist. --alg2 adds com-SVR-ADMM Algorithm 2 (general convex);
--quick runs a small instance.`,
		Example: `  consim reproduce admm --quick
  consim reproduce admm --cov 2 --alg2 --out results/admm-cov2`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce admm: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fs := cmd.Flags()
	addOutFlag(cmd, &f.out, "output `DIR`, which must not exist (default results/reproduce-admm-<UTC time>-<4 hex>)")
	fs.StringVar(&f.cov, "cov", "both", "covariance condition number: 2, 10 or both")
	mustComplete(cmd, "cov", cobra.FixedCompletions([]cobra.Completion{"2", "10", "both"}, cobra.ShellCompDirectiveNoFileComp))
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the rewards and of every sample")
	fs.IntVar(&f.outer, "outer", 70, "outer iterations of the SVRG-type methods")
	fs.BoolVar(&f.quick, "quick", false, "small instance (20 assets, 200 periods; defaults eta 0.005, K 400, N 2, 20 outer)")
	fs.Float64Var(&f.eta, "eta", 0.001, "step size eta, shared by all methods")
	fs.Float64Var(&f.rho, "rho", 1, "ADMM penalty rho")
	fs.IntVar(&f.k, "k", 2000, "inner iterations K per outer iteration")
	fs.IntVar(&f.batch, "batch", 5, "mini-batch N of the inner-function estimate")
	fs.Float64Var(&f.mu, "mu", 0.01, "regularizer R(w) = (mu/2)||w||^2")
	fs.BoolVar(&f.alg2, "alg2", false, "also run com-SVR-ADMM Algorithm 2 (general convex; exact g(x^k), m queries per inner step)")
	for _, n := range []string{"seed", "outer", "eta", "rho", "k", "batch", "mu"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Flags().Changed, a.stdout)
	})
	return cmd
}

// run resolves the flags and runs the experiment: com-SVR-ADMM,
// com-SVRG-1, com-SVRG-2 and SGD on the portfolio problem for cov = 2 and
// cov = 10, writing admm.csv, semilog plots (PNG and SVG) of the gap
// against oracle calls and against CPU time, and table.md, which it also
// prints, to stdout and into a new directory: --out must not exist. set
// reports whether a flag was given on the command line.
func (f *admmFlags) run(set func(name string) bool, stdout io.Writer) error {
	s := admmSetup{out: f.out, exp: admm.PortfolioExperiment{
		Assets: 200, Periods: 2000, MeanHi: 0.1, Mu: f.mu,
		Params: admm.Params{Eta: f.eta, Rho: f.rho, K: f.k, Batch: f.batch},
		Outer:  f.outer, Seed: f.seed, Alg2: f.alg2,
	}}
	if s.out == "" {
		s.out = filepath.Join("results", sim.NewRunID("reproduce-admm"))
	}
	if f.quick {
		// Smaller problem: the component Lipschitz constants scale with the
		// number of assets, so the step grows and K shrinks with it.
		e := &s.exp
		e.Assets, e.Periods = 20, 200
		quickDefault(set, "outer", &e.Outer, 20)
		quickDefault(set, "k", &e.Params.K, 400)
		quickDefault(set, "batch", &e.Params.Batch, 2)
		if !set("eta") {
			e.Params.Eta = 0.005
		}
	}
	switch f.cov {
	case "2":
		s.covs = []float64{2}
	case "10":
		s.covs = []float64{10}
	case "both":
		s.covs = []float64{2, 10}
	default:
		return usagef("reproduce admm: --cov %q: want 2, 10 or both", f.cov)
	}
	if err := s.exp.Validate(); err != nil {
		return usagef("reproduce admm: %w", err)
	}
	if err := createNewDir(s.out); err != nil {
		return fmt.Errorf("reproduce admm: %w", err)
	}

	// Time is read here and passed in: admm reads no clock. The
	// instances (one per cov) are independent and run concurrently, one
	// goroutine each; each runs its methods one after the other, so on a
	// machine with a core per instance an epoch's time is its own.
	start := time.Now()
	clock := func() time.Duration { return time.Since(start) }
	results := make([]*admm.PortfolioResult, len(s.covs))
	errs := make([]error, len(s.covs))
	var wg sync.WaitGroup
	for ci, cov := range s.covs {
		exp := s.exp
		exp.Cov, exp.Instance = cov, uint64(ci)
		wg.Go(func() { results[ci], errs[ci] = admm.RunPortfolioExperiment(exp, clock) })
	}
	wg.Wait()
	var all []admmRecord
	var notes []string
	for ci, cov := range s.covs {
		res, err := results[ci], errs[ci]
		if err != nil {
			return fmt.Errorf("reproduce admm: cov = %v: %w", cov, err)
		}
		recs := make([]admmRecord, len(res.Records))
		for i, r := range res.Records {
			recs[i] = admmRecord{cov: cov, EpochRecord: r}
		}
		all = append(all, recs...)
		sum := res.Summary
		notes = append(notes, fmt.Sprintf("cov = %v: P* = %.10g, gap at x0 = 0: %.4g, m = n = %d, SGD steps per epoch %d",
			cov, sum.PStar, sum.InitialGap, sum.M, sum.SGDSteps))
		if err := plotADMM(s.out, cov, recs); err != nil {
			return fmt.Errorf("reproduce admm: cov = %v: %w", cov, err)
		}
	}
	if err := writeADMMCSV(filepath.Join(s.out, "admm.csv"), all); err != nil {
		return fmt.Errorf("reproduce admm: %w", err)
	}
	table := admmTable(s, all, notes)
	if err := writeNewFile(filepath.Join(s.out, "table.md"), strings.NewReader(table)); err != nil {
		return fmt.Errorf("reproduce admm: %w", err)
	}
	_, err := io.WriteString(stdout, table)
	return err
}

// createNewDir creates dir, and its parents as needed; dir itself must not
// exist, so that a run never rewrites earlier output. An existing dir is a
// usage error.
func createNewDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("create output parent: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return usagef("%s exists: a run never rewrites earlier output; choose another --out", dir)
		}
		return fmt.Errorf("create output directory: %w", err)
	}
	return nil
}

// createNewFile creates path for writing; it fails if path exists.
func createNewFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// writeNewFile creates path, which must not exist, with the bytes of src.
func writeNewFile(path string, src io.WriterTo) (err error) {
	f, err := createNewFile(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing %s: %w", path, cerr)
		}
	}()
	if _, err := src.WriteTo(f); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// quickDefault sets *v = q unless the flag was given explicitly.
func quickDefault(set func(string) bool, name string, v *int, q int) {
	if !set(name) {
		*v = q
	}
}

// writeADMMCSV writes method,cov,outer,oracle_calls,cpu_seconds,gap.
func writeADMMCSV(path string, recs []admmRecord) (err error) {
	f, err := createNewFile(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	w := csv.NewWriter(f)
	if err := w.Write([]string{"method", "cov", "outer", "oracle_calls", "cpu_seconds", "gap"}); err != nil {
		return err
	}
	for _, r := range recs {
		row := []string{
			r.Method, strconv.FormatFloat(r.cov, 'g', -1, 64), strconv.Itoa(r.Outer),
			strconv.FormatInt(r.Calls, 10), strconv.FormatFloat(r.CPUSeconds, 'g', 6, 64),
			strconv.FormatFloat(r.Gap, 'g', 6, 64),
		}
		if err := w.Write(row); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// plotADMM writes admm_cov<cov>_{oracle,cpu}.{png,svg}: semilog-y gap
// against oracle calls and against CPU seconds, one line per method.
func plotADMM(dir string, cov float64, recs []admmRecord) error {
	for _, axis := range []struct {
		name, label string
		x           func(admmRecord) float64
	}{
		{"oracle", "oracle calls", func(r admmRecord) float64 { return float64(r.Calls) }},
		{"cpu", "CPU time (s)", func(r admmRecord) float64 { return r.CPUSeconds }},
	} {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("Portfolio mean-variance, cov = %v", cov)
		p.X.Label.Text = axis.label
		p.Y.Label.Text = "F(x) - F*"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
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
		base := filepath.Join(dir, fmt.Sprintf("admm_cov%v_%s", cov, axis.name))
		for _, format := range []string{"png", "svg"} {
			w, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, format)
			if err != nil {
				return fmt.Errorf("rendering %s.%s: %w", base, format, err)
			}
			if err := writeNewFile(base+"."+format, w); err != nil {
				return fmt.Errorf("saving plot: %w", err)
			}
		}
	}
	return nil
}

// decadeTicks marks every power of ten on a log axis and labels about six
// of them, as 1e-k.
type decadeTicks struct{}

// Ticks implements plot.Ticker.
func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) {
		return nil
	}
	a, b := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	every := max(1, (b-a+5)/6)
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		t := plot.Tick{Value: math.Pow(10, float64(e))}
		if e%every == 0 {
			t.Label = fmt.Sprintf("1e%d", e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// alg2Name is the label of com-SVR-ADMM Algorithm 2 (admm.ComSVRADMM2).
const alg2Name = "com-SVR-ADMM-2"

// hasMethod reports whether recs has a record of method.
func hasMethod(recs []admmRecord, method string) bool {
	for _, r := range recs {
		if r.Method == method {
			return true
		}
	}
	return false
}

// admmMethodOrder lists the methods in first-appearance order.
func admmMethodOrder(recs []admmRecord) []string {
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
func firstBelow(recs []admmRecord, method string, cov, tol float64) (admmRecord, bool) {
	for _, r := range recs {
		if r.Method == method && r.cov == cov && r.Gap <= tol {
			return r, true
		}
	}
	return admmRecord{}, false
}

// admmTable renders table.md: oracle calls (and CPU seconds) to reach each
// threshold, resolved to one outer iteration, and the final gap.
func admmTable(s admmSetup, recs []admmRecord, notes []string) string {
	var b strings.Builder
	b.WriteString("# com-SVR-ADMM: portfolio mean-variance (Yu and Huang, Sec. 4.1)\n\n")
	e := s.exp
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
	for _, t := range admmThresholds {
		fmt.Fprintf(&b, " gap <= %.0e |", t)
	}
	b.WriteString(" final gap | oracle calls |\n|---|---|")
	for range admmThresholds {
		b.WriteString("---|")
	}
	b.WriteString("---|---|\n")
	for _, cov := range s.covs {
		for _, name := range admmMethodOrder(recs) {
			var last admmRecord
			for _, r := range recs {
				if r.Method == name && r.cov == cov {
					last = r
				}
			}
			fmt.Fprintf(&b, "| %v | %s |", cov, name)
			for _, t := range admmThresholds {
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
