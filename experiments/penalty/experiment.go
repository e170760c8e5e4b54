// Package penalty is Lu and Xiao's Section 5 behind `consim reproduce
// penalty`: Algorithm 1 with the constant (Theorem 1) and dynamic
// (Theorem 2) penalties on the synthetic constrained stochastic logistic
// regression (42) (Section 5.1), and Algorithm 2 under the rules of
// Theorems 3 and 4 against the EAG baseline on the constrained finite-sum
// logistic regression (43) built from LIBSVM a9a (Section 5.2), with the
// paper's claims read on the traces (Claims51, Claims52).
//
// The methods run centrally from consensus/penalty (Synthetic.Run,
// FiniteSumProblem.RunAlg2 and RunEAG): the claims are about the
// iterations and gradient evaluations of the single-machine methods, and
// EAG is a baseline, not a registered algorithm.
//
// penalty imports consensus/penalty, dataset, experiments and gonum; it
// must not import node, coordinator, sim or cmd.
package penalty

import (
	"context"
	"fmt"
	"github.com/consim/consim/problems/constrlogistic"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	penaltyalg "github.com/consim/consim/consensus/penalty"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/experiments"
)

// A9A is the data of Section 5.2: the first Rows rows of LIBSVM a9a (123
// features) and their labels +-1.
type A9A struct {
	X    mat.Matrix
	Y    []float64
	Rows int
}

// LoadA9A reads the LIBSVM file at path (gzip or plain) and keeps its
// first rows rows (0: all). A missing file is an error wrapping
// fs.ErrNotExist.
func LoadA9A(path string, rows int) (*A9A, error) {
	d, err := dataset.LoadLIBSVM(path, dataset.LIBSVMOptions{Dim: 123})
	if err != nil {
		return nil, err
	}
	n := d.Rows()
	if rows > 0 {
		n = min(n, rows)
	}
	y, err := dataset.SignLabels(d.Y[:n])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &A9A{X: mat.NewDense(n, d.Dim, d.X[:n*d.Dim]), Y: y, Rows: n}, nil
}

// Config is the experiment of `consim reproduce penalty`.
type Config struct {
	// Do51 and Do52 select the sections that run (both).
	Do51, Do52 bool
	// Seed keys the data, the start and the samples of both sections (1).
	Seed uint64
	// K51 is Algorithm 1's iterations K (5000), Every51 the recording
	// period (1); N, Samples and Core the synthetic problem's features
	// (100), samples (10,000) and core constraints m (50; also 5.2's).
	K51, Every51, N, Samples, Core int
	// K52 is Algorithm 2's outer iterations K and EAG's iterations (500),
	// Every52 the recording period (1); Rules the Algorithm 2 rules run:
	// 3i, 3ii, 4i and 4ii for Theorem 3(i), 3(ii), 4(i) and 4(ii) (all
	// four; the claims use 3ii and 4ii).
	K52, Every52 int
	Rules        []string
	// A9A is the data of Section 5.2 (LoadA9A; none by default, which
	// Section 5.2 needs).
	A9A *A9A
	// Log, if set, receives a progress line per section.
	Log io.Writer
}

// DefaultConfig is the paper's setting for both sections, without the
// data of 5.2.
func DefaultConfig() Config {
	return Config{Do51: true, Do52: true, Seed: 1, K51: 5000, Every51: 1, N: 100, Samples: 10000, Core: 50,
		K52: 500, Every52: 1, Rules: []string{"3i", "3ii", "4i", "4ii"}}
}

// spec51 is the synthetic problem of 5.1.
func (c Config) spec51() constrlogistic.SyntheticSpec {
	s := constrlogistic.PaperSynthetic(c.Seed)
	s.N, s.Samples, s.Core = c.N, c.Samples, c.Core
	return s
}

// Validate checks the sections, the iteration counts and the problem of
// 5.1, and that the data of 5.2, when loaded, has as many rows as core
// constraints.
func (c Config) Validate() error {
	switch {
	case !c.Do51 && !c.Do52:
		return fmt.Errorf("penalty: no section to run")
	case c.K51 < 1 || c.K52 < 1:
		return fmt.Errorf("penalty: k51 %d, k52 %d: want >= 1", c.K51, c.K52)
	case c.Every51 < 1 || c.Every52 < 1:
		return fmt.Errorf("penalty: every51 %d, every52 %d: want >= 1", c.Every51, c.Every52)
	case c.Do52 && c.A9A != nil && c.Core > c.A9A.Rows:
		return fmt.Errorf("penalty: core %d exceeds the %d rows of a9a", c.Core, c.A9A.Rows)
	}
	for _, r := range c.Rules {
		if _, ok := penaltyalg.ParseRule2(r); !ok {
			return fmt.Errorf("penalty: rule %q: want some of 3i, 3ii, 4i, 4ii", r)
		}
	}
	return c.spec51().Validate()
}

// Result is what Run measured, for the CSV, the plots and the table.
type Result struct {
	Config Config
	R51    *Result51
	R52    *Result52
}

// Run runs the sections of c.
func (c Config) Run(ctx context.Context) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Do52 && c.A9A == nil {
		return nil, fmt.Errorf("penalty: section 5.2 needs the a9a data (LoadA9A)")
	}
	res := &Result{Config: c}
	logf := func(format string, a ...any) {
		if c.Log != nil {
			fmt.Fprintf(c.Log, format, a...)
		}
	}
	start := time.Now()
	var err error
	if c.Do51 {
		logf("5.1: reference solve and Algorithm 1, K = %d\n", c.K51)
		if res.R51, err = Experiment51(c.spec51(), c.K51, c.Every51); err != nil {
			return nil, fmt.Errorf("5.1: %w", err)
		}
		logf("5.1 done after %.0f s\n", time.Since(start).Seconds())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.Do52 {
		var rs []penaltyalg.Rule2
		for _, name := range c.Rules {
			r, _ := penaltyalg.ParseRule2(name)
			rs = append(rs, r)
		}
		logf("5.2: reference solves on %d rows, Algorithm 2 (%s) and EAG, K = %d\n", c.A9A.Rows, strings.Join(c.Rules, ","), c.K52)
		spec52 := constrlogistic.PaperFiniteSum(c.Seed)
		spec52.Core = c.Core
		if res.R52, err = Experiment52(c.A9A.X, c.A9A.Y, spec52, c.K52, c.Every52, rs); err != nil {
			return nil, fmt.Errorf("5.2: %w", err)
		}
		logf("5.2 done after %.0f s\n", time.Since(start).Seconds())
	}
	return res, nil
}

// Write writes penalty.csv and the plots.
func (r *Result) Write(dir string) error {
	if err := writePenaltyCSV(filepath.Join(dir, "penalty.csv"), r); err != nil {
		return err
	}
	return plotPenalty(dir, r)
}

// penaltySection is one section's traces.
type penaltySection struct {
	name   string
	traces []penaltyalg.Trace
}

// sections lists the traces of each section that ran, in table order.
func (r *Result) sections() []penaltySection {
	var out []penaltySection
	if r.R51 != nil {
		out = append(out, penaltySection{"5.1", []penaltyalg.Trace{r.R51.Constant, r.R51.Dynamic}})
	}
	if r.R52 != nil {
		out = append(out, penaltySection{"5.2", append(slices.Clone(r.R52.Alg2), r.R52.EAG)})
	}
	return out
}

// writePenaltyCSV writes section,method,iter,grad_evals,objective,gap,
// violation,rho: every recorded iteration of every run.
func writePenaltyCSV(path string, r *Result) error {
	var rows [][]string
	for _, s := range r.sections() {
		for _, t := range s.traces {
			for i, rec := range t.Records {
				rows = append(rows, []string{s.name, t.Method, strconv.Itoa(rec.Iter), strconv.FormatInt(rec.GradEvals, 10),
					strconv.FormatFloat(rec.Objective, 'g', 10, 64), experiments.G(t.Gap(i)), experiments.G(rec.Violation), experiments.G(rec.Rho)})
			}
		}
	}
	return experiments.WriteCSV(path, []string{"section", "method", "iter", "grad_evals", "objective", "gap", "violation", "rho"}, rows)
}

// plotPenalty writes penalty_<section>_{gap,violation}.{png,svg}: log-log
// plots of |F - F*| and ||[c]_+|| against iterations (5.1) or gradient
// evaluations (5.2), one line per run.
func plotPenalty(dir string, r *Result) error {
	for _, s := range r.sections() {
		xlabel, x := "iteration k", func(rec penaltyalg.Record) float64 { return float64(rec.Iter) }
		title := "5.1: synthetic constrained stochastic logistic regression"
		if s.name == "5.2" {
			xlabel, x = "gradient evaluations", func(rec penaltyalg.Record) float64 { return float64(rec.GradEvals) }
			title = "5.2: constrained finite-sum logistic regression (a9a)"
		}
		for _, m := range []struct {
			name, label string
			v           func(t *penaltyalg.Trace, i int) float64
		}{
			{"gap", "objective gap |F(x) - F*|", func(t *penaltyalg.Trace, i int) float64 { return t.Gap(i) }},
			{"violation", "constraint violation ||[c(x)]+||", func(t *penaltyalg.Trace, i int) float64 { return t.Records[i].Violation }},
		} {
			p := plot.New()
			p.Title.Text = title
			p.X.Label.Text = xlabel
			p.Y.Label.Text = m.label
			p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
			p.X.Tick.Marker, p.Y.Tick.Marker = experiments.LogTicks{}, experiments.LogTicks{}
			var lines []any
			for _, t := range s.traces {
				var xys plotter.XYs
				for i, rec := range t.Records {
					// Log axes: zero values (a feasible point, the start's
					// zero evaluations) are left out.
					if xv, yv := x(rec), m.v(&t, i); xv > 0 && yv > 0 && experiments.Finite(yv) {
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
			experiments.PadTopLog(p)
			p.Legend.Top = true
			if err := experiments.SavePlot(p, filepath.Join(dir, fmt.Sprintf("penalty_%s_%s", s.name, m.name))); err != nil {
				return err
			}
		}
	}
	return nil
}

// Table renders table.md: the setup, the final state of every run and the
// paper's claims marked holds / does not hold with the numbers.
func (r *Result) Table() string {
	f := r.Config
	var b strings.Builder
	b.WriteString("# Quadratic-penalty ASG / VR-ASG (Lu and Xiao, §5)\n\n")
	if r.R51 != nil {
		s := r.R51.Problem.Spec
		fmt.Fprintf(&b, "5.1: synthetic (42), n = %d features, %d samples, m = %d core constraints, lambda = %g, seed %d; Algorithm 1 for K = %d iterations. F* = %.10g (sample-average problem, KKT residual %.2g).\n",
			s.N, s.Samples, s.Core, s.Lambda, s.Seed, f.K51, r.R51.Opt.F, r.R51.Opt.KKT.Max())
	}
	if r.R52 != nil {
		s := r.R52.Problem.Spec
		fmt.Fprintf(&b, "5.2: (43) on a9a (%d rows, 123 features), lambda = %g, m = %d core constraints, seed %d; Algorithm 2 for K = %d outer iterations, EAG for %d iterations. F* = %.10g (KKT residual %.2g).\n",
			f.A9A.Rows, s.Lambda, s.Core, s.Seed, f.K52, f.K52, r.R52.Problem.Opt.F, r.R52.Problem.Opt.KKT.Max())
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
	var claims []Claim
	if r.R51 != nil {
		claims = append(claims, r.R51.Claims...)
	}
	if r.R52 != nil {
		claims = append(claims, r.R52.Claims...)
	}
	for _, c := range claims {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.Section, experiments.MDCell(c.Text), experiments.Verdict(c.Holds), experiments.MDCell(c.Detail))
	}
	return b.String()
}
