package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/consim/consim/consensus/penalty"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/problems/constrlogistic"
	"github.com/consim/consim/sim"
)

// defaultA9A is where `consim reproduce penalty` looks for LIBSVM a9a: the
// shared data directory beside the repository.
const defaultA9A = "../shared/data/a9a/a9a.gz"

// penaltyFlags are the flags of `consim reproduce penalty`.
type penaltyFlags struct {
	out, section, a9a, rules       string
	seed                           uint64
	k51, every51, n, samples, core int
	k52, every52, a9aRows          int
}

// penaltyRules maps the --rules spellings to Algorithm 2's rules.
var penaltyRules = map[string]penalty.Rule2{
	"3i": penalty.Thm3i, "3ii": penalty.Thm3ii, "4i": penalty.Thm4i, "4ii": penalty.Thm4ii,
}

// reproducePenaltyCmd is `consim reproduce penalty`: the experiments of
// Lu and Xiao's Section 5 (Algorithm 1 on synthetic constrained logistic
// regression; Algorithm 2 and EAG on a9a).
func (a *app) reproducePenaltyCmd() *cobra.Command {
	var f penaltyFlags
	cmd := &cobra.Command{
		Use:   "penalty",
		Short: "quadratic-penalty ASG and VR-ASG against EAG on constrained logistic regression (Lu & Xiao §5)",
		Long: `Penalty runs the experiments of Lu and Xiao's Section 5. 5.1: Algorithm 1
with the constant (Theorem 1) and dynamic (Theorem 2) penalties on the
synthetic constrained stochastic logistic regression (42). 5.2: Algorithm
2 under the rules of --rules and the EAG baseline on the constrained
finite-sum logistic regression (43) built from LIBSVM a9a (--a9a). F* of
both comes from an independent augmented Lagrangian solve with a KKT
certificate. It writes penalty.csv (objective, gap and violation per
recorded iteration), log-log plots (PNG and SVG) and table.md (the
paper's claims, marked holds or does not hold, with the numbers), which
it also prints with the wall time, into a new directory: --out must not
exist.`,
		Example: `  consim reproduce penalty
  consim reproduce penalty --section 5.1 --k51 500
  consim reproduce penalty --section 5.2 --a9a /data/a9a.gz --rules 3ii,4ii`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce penalty: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fl := cmd.Flags()
	addOutFlag(cmd, &f.out, "output `DIR`, which must not exist (default results/reproduce-penalty-<UTC time>-<4 hex>)")
	fl.StringVar(&f.section, "section", "both", "experiment: 5.1, 5.2 or both")
	mustComplete(cmd, "section", cobra.FixedCompletions([]cobra.Completion{"5.1", "5.2", "both"}, cobra.ShellCompDirectiveNoFileComp))
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the data, the start and the samples")
	fl.IntVar(&f.k51, "k51", 5000, "5.1: iterations K of Algorithm 1")
	fl.IntVar(&f.every51, "every51", 1, "5.1: record every this many iterations")
	fl.IntVar(&f.n, "n", 100, "5.1: features n")
	fl.IntVar(&f.samples, "samples", 10000, "5.1: generated samples")
	fl.IntVar(&f.core, "core", 50, "core constraints m (5.1 and 5.2)")
	fl.StringVar(&f.a9a, "a9a", defaultA9A, "5.2: LIBSVM a9a `FILE` (gzip or plain)")
	fl.IntVar(&f.a9aRows, "a9a-rows", 0, "5.2: use the first this many rows of a9a (0: all)")
	fl.IntVar(&f.k52, "k52", 500, "5.2: outer iterations K of Algorithm 2 and iterations of EAG")
	fl.IntVar(&f.every52, "every52", 1, "5.2: record every this many iterations")
	fl.StringVar(&f.rules, "rules", "3i,3ii,4i,4ii", "5.2: Algorithm 2 rules (Theorem 3(i), 3(ii), 4(i), 4(ii)); the claims use 3ii and 4ii")
	for _, n := range []string{"seed", "k51", "every51", "n", "samples", "core", "a9a-rows", "k52", "every52", "rules"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(a.stdout, a.stderr)
	})
	return cmd
}

// penaltyResult is what the command measured, for the CSV, the plots and
// the table.
type penaltyResult struct {
	r51 *penalty.Result51
	r52 *penalty.Result52
	// a9aRows is the number of data rows of 5.2.
	a9aRows int
}

// run resolves the flags, runs the sections and writes the results.
func (f *penaltyFlags) run(stdout, stderr io.Writer) error {
	do51, do52 := f.section == "5.1" || f.section == "both", f.section == "5.2" || f.section == "both"
	if !do51 && !do52 {
		return usagef("reproduce penalty: --section %q: want 5.1, 5.2 or both", f.section)
	}
	spec51 := constrlogistic.PaperSynthetic(f.seed)
	spec51.N, spec51.Samples, spec51.Core = f.n, f.samples, f.core
	var rules []penalty.Rule2
	switch {
	case f.k51 < 1 || f.k52 < 1:
		return usagef("reproduce penalty: --k51 %d, --k52 %d: want >= 1", f.k51, f.k52)
	case f.every51 < 1 || f.every52 < 1:
		return usagef("reproduce penalty: --every51 %d, --every52 %d: want >= 1", f.every51, f.every52)
	case f.a9aRows < 0:
		return usagef("reproduce penalty: --a9a-rows %d: want >= 0", f.a9aRows)
	}
	if err := spec51.Validate(); err != nil {
		return usagef("reproduce penalty: %w", err)
	}
	for _, s := range strings.Split(f.rules, ",") {
		r, ok := penaltyRules[strings.TrimSpace(s)]
		if !ok {
			return usagef("reproduce penalty: --rules %q: want some of 3i, 3ii, 4i, 4ii", f.rules)
		}
		rules = append(rules, r)
	}
	var x mat.Matrix
	var y []float64
	var res penaltyResult
	if do52 {
		d, err := dataset.LoadLIBSVM(f.a9a, dataset.LIBSVMOptions{Dim: 123})
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return usagef("reproduce penalty: --a9a: %w (download LIBSVM a9a, or run --section 5.1)", err)
			}
			return fmt.Errorf("reproduce penalty: %w", err)
		}
		rows := d.Rows()
		if f.a9aRows > 0 {
			rows = min(rows, f.a9aRows)
		}
		if f.core > rows {
			return usagef("reproduce penalty: --core %d exceeds the %d rows of a9a", f.core, rows)
		}
		if y, err = dataset.SignLabels(d.Y[:rows]); err != nil {
			return fmt.Errorf("reproduce penalty: %s: %w", f.a9a, err)
		}
		x = mat.NewDense(rows, d.Dim, d.X[:rows*d.Dim])
		res.a9aRows = rows
	}
	out := f.out
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-penalty"))
	}
	if err := createNewDir(out); err != nil {
		return fmt.Errorf("reproduce penalty: %w", err)
	}
	start := time.Now()
	var err error
	if do51 {
		fmt.Fprintf(stderr, "5.1: reference solve and Algorithm 1, K = %d\n", f.k51)
		if res.r51, err = penalty.Experiment51(spec51, f.k51, f.every51); err != nil {
			return fmt.Errorf("reproduce penalty: 5.1: %w", err)
		}
		fmt.Fprintf(stderr, "5.1 done after %.0f s\n", time.Since(start).Seconds())
	}
	if do52 {
		fmt.Fprintf(stderr, "5.2: reference solves on %d rows, Algorithm 2 (%s) and EAG, K = %d\n", res.a9aRows, f.rules, f.k52)
		spec52 := constrlogistic.PaperFiniteSum(f.seed)
		spec52.Core = f.core
		if res.r52, err = penalty.Experiment52(x, y, spec52, f.k52, f.every52, rules); err != nil {
			return fmt.Errorf("reproduce penalty: 5.2: %w", err)
		}
		fmt.Fprintf(stderr, "5.2 done after %.0f s\n", time.Since(start).Seconds())
	}
	if err := writePenaltyCSV(filepath.Join(out, "penalty.csv"), res); err != nil {
		return fmt.Errorf("reproduce penalty: %w", err)
	}
	if err := plotPenalty(out, res); err != nil {
		return fmt.Errorf("reproduce penalty: %w", err)
	}
	md := penaltyTable(f, res) + wallLine(time.Since(start))
	if err := writeNewFile(filepath.Join(out, "table.md"), strings.NewReader(md)); err != nil {
		return fmt.Errorf("reproduce penalty: %w", err)
	}
	_, err = io.WriteString(stdout, md)
	return err
}

// penaltySection is one section's traces.
type penaltySection struct {
	name   string
	traces []penalty.Trace
}

// sections lists the traces of each section that ran, in table order.
func (r penaltyResult) sections() []penaltySection {
	var out []penaltySection
	if r.r51 != nil {
		out = append(out, penaltySection{"5.1", []penalty.Trace{r.r51.Constant, r.r51.Dynamic}})
	}
	if r.r52 != nil {
		out = append(out, penaltySection{"5.2", append(slices.Clone(r.r52.Alg2), r.r52.EAG)})
	}
	return out
}

// writePenaltyCSV writes section,method,iter,grad_evals,objective,gap,
// violation,rho: every recorded iteration of every run.
func writePenaltyCSV(path string, r penaltyResult) error {
	var rows [][]string
	for _, s := range r.sections() {
		for _, t := range s.traces {
			for i, rec := range t.Records {
				rows = append(rows, []string{s.name, t.Method, strconv.Itoa(rec.Iter), strconv.FormatInt(rec.GradEvals, 10),
					strconv.FormatFloat(rec.Objective, 'g', 10, 64), fmtG(t.Gap(i)), fmtG(rec.Violation), fmtG(rec.Rho)})
			}
		}
	}
	return writeCSVFile(path, []string{"section", "method", "iter", "grad_evals", "objective", "gap", "violation", "rho"}, rows)
}

// plotPenalty writes penalty_<section>_{gap,violation}.{png,svg}: log-log
// plots of |F - F*| and ||[c]_+|| against iterations (5.1) or gradient
// evaluations (5.2), one line per run.
func plotPenalty(dir string, r penaltyResult) error {
	for _, s := range r.sections() {
		xlabel, x := "iteration k", func(rec penalty.Record) float64 { return float64(rec.Iter) }
		title := "5.1: synthetic constrained stochastic logistic regression"
		if s.name == "5.2" {
			xlabel, x = "gradient evaluations", func(rec penalty.Record) float64 { return float64(rec.GradEvals) }
			title = "5.2: constrained finite-sum logistic regression (a9a)"
		}
		for _, m := range []struct {
			name, label string
			v           func(t *penalty.Trace, i int) float64
		}{
			{"gap", "objective gap |F(x) - F*|", func(t *penalty.Trace, i int) float64 { return t.Gap(i) }},
			{"violation", "constraint violation ||[c(x)]+||", func(t *penalty.Trace, i int) float64 { return t.Records[i].Violation }},
		} {
			p := plot.New()
			p.Title.Text = title
			p.X.Label.Text = xlabel
			p.Y.Label.Text = m.label
			p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
			p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
			var lines []any
			for _, t := range s.traces {
				var xys plotter.XYs
				for i, rec := range t.Records {
					// Log axes: zero values (a feasible point, the start's
					// zero evaluations) are left out.
					if xv, yv := x(rec), m.v(&t, i); xv > 0 && yv > 0 && finite(yv) {
						xys = append(xys, plotter.XY{X: xv, Y: yv})
					}
				}
				if len(xys) > 0 {
					lines = append(lines, t.Method, xys)
				}
			}
			if len(lines) == 0 {
				continue
			}
			if err := plotutil.AddLines(p, lines...); err != nil {
				return fmt.Errorf("plotting: %w", err)
			}
			padTopLog(p)
			p.Legend.Top = true
			if err := savePlot(p, filepath.Join(dir, fmt.Sprintf("penalty_%s_%s", s.name, m.name))); err != nil {
				return err
			}
		}
	}
	return nil
}

// penaltyTable renders table.md: the setup, the final state of every run
// and the paper's claims marked holds / does not hold with the numbers.
func penaltyTable(f *penaltyFlags, r penaltyResult) string {
	var b strings.Builder
	b.WriteString("# Quadratic-penalty ASG / VR-ASG (Lu and Xiao, §5)\n\n")
	if r.r51 != nil {
		s := r.r51.Problem.Spec
		fmt.Fprintf(&b, "5.1: synthetic (42), n = %d features, %d samples, m = %d core constraints, lambda = %g, seed %d; Algorithm 1 for K = %d iterations. F* = %.10g (sample-average problem, KKT residual %.2g).\n",
			s.N, s.Samples, s.Core, s.Lambda, s.Seed, f.k51, r.r51.Opt.F, r.r51.Opt.KKT.Max())
	}
	if r.r52 != nil {
		s := r.r52.Problem.Spec
		fmt.Fprintf(&b, "5.2: (43) on a9a (%d rows, 123 features), lambda = %g, m = %d core constraints, seed %d; Algorithm 2 for K = %d outer iterations, EAG for %d iterations. F* = %.10g (KKT residual %.2g).\n",
			r.a9aRows, s.Lambda, s.Core, s.Seed, f.k52, f.k52, r.r52.Problem.Opt.F, r.r52.Problem.Opt.KKT.Max())
	}
	b.WriteString("\nFinal state of every run:\n\n| section | method | iterations | gradient evaluations | F(x) | F - F* | violation |\n|---|---|---|---|---|---|---|\n")
	for _, s := range r.sections() {
		for _, t := range s.traces {
			last := t.Last()
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %.8f | %+.3g | %.3g |\n",
				s.name, t.Method, last.Iter, last.GradEvals, last.Objective, last.Objective-t.FStar, last.Violation)
		}
	}
	b.WriteString("\nThe paper's claims, read on our traces (a run is faster if it reaches the worse of the two final values first and stays there; \"well ahead\" needs a 10-fold lower final value):\n\n")
	b.WriteString("| section | claim (paper) | verdict | numbers |\n|---|---|---|---|\n")
	var claims []penalty.Claim
	if r.r51 != nil {
		claims = append(claims, r.r51.Claims...)
	}
	if r.r52 != nil {
		claims = append(claims, r.r52.Claims...)
	}
	for _, c := range claims {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.Section, mdCell(c.Text), holdsWord(c.Holds), mdCell(c.Detail))
	}
	return b.String()
}

// mdCell escapes the pipes of s for a markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
