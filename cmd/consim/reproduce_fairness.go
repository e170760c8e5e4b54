package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/consim/consim/consensus/fair"
	"github.com/consim/consim/problems/fairness"
	"github.com/consim/consim/sim"
)

// defaultAdult is where `consim reproduce fairness` looks for the UCI Adult
// files: the shared data directory beside the repository.
const defaultAdult = "../shared/data/adult"

// fairnessFlags are the flags of `consim reproduce fairness`.
type fairnessFlags struct {
	out, adult, losses, cs string
	rounds, batch          int
	rho                    float64
	seed                   uint64
	sampled                bool
}

// reproduceFairnessCmd is `consim reproduce fairness`: section 6.3 of the
// ALM paper, fairness-constrained classification on Adult.
func (a *app) reproduceFairnessCmd() *cobra.Command {
	var f fairnessFlags
	cmd := &cobra.Command{
		Use:   "fairness",
		Short: "fairness-constrained classification on Adult with Algorithm 1 (ALM paper §6.3)",
		Long: `Fairness solves problem (6.6) of the ALM paper on UCI Adult: a linear
classifier whose covariance with the sensitive attribute (sex) is at most
c in absolute value, for the logistic loss and the two nonconvex losses
(logistic difference (6.7) with mu = 1, smoothed 0-1 (6.8)), by Algorithm 1
(stochastic smoothed linearized ALM) from theta = 0. Features: numeric
fields standardized, categorical fields one-hot, sex, race and fnlwgt
dropped, records with a missing field dropped; train on adult.data, test
on adult.test (--adult DIR). For the convex logistic loss an independent
solve (Lagrangian bisection over FISTA) gives the optimum beside it. It
writes fairness.csv and table.md (test accuracy, training covariance,
test p%-rule per loss and c) into a new directory: --out must not exist.`,
		Example: `  consim reproduce fairness
  consim reproduce fairness --losses logistic --cs inf,0.01 --rounds 5000
  consim reproduce fairness --sampled`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce fairness: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	fl := cmd.Flags()
	addOutFlag(cmd, &f.out, "output `DIR`, which must not exist (default results/reproduce-fairness-<UTC time>-<4 hex>)")
	fl.StringVar(&f.adult, "adult", defaultAdult, "`DIR` holding adult.data[.gz] and adult.test[.gz]")
	fl.StringVar(&f.losses, "losses", "logistic,logdiff,smooth01", "losses, comma-separated: logistic, logdiff, smooth01")
	fl.StringVar(&f.cs, "cs", "inf,0.1,0.05,0.01,0.005,0.001", "covariance thresholds c, comma-separated (inf: unconstrained)")
	fl.IntVar(&f.rounds, "rounds", 20000, "iterations T of Algorithm 1")
	fl.IntVar(&f.batch, "batch", 32, "mini-batch size")
	fl.Float64Var(&f.rho, "rho", 0, "penalty rho (0: 1, or 0.1 with --sampled)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the samples")
	fl.BoolVar(&f.sampled, "sampled", false, "stochastic-constraint form: the covariance row estimated on each mini-batch")
	for _, n := range []string{"losses", "cs", "rounds", "batch", "rho", "seed"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(a.stdout, a.stderr)
	})
	return cmd
}

// run resolves the flags, solves every cell and writes the results.
func (f *fairnessFlags) run(stdout, stderr io.Writer) error {
	var losses []fairness.Loss
	for _, s := range strings.Split(f.losses, ",") {
		l, err := fairness.ParseLoss(strings.TrimSpace(s))
		if err != nil {
			return usagef("reproduce fairness: --losses: %w", err)
		}
		losses = append(losses, l)
	}
	var cs []float64
	for _, s := range strings.Split(f.cs, ",") {
		s = strings.TrimSpace(s)
		if s == "inf" {
			cs = append(cs, math.Inf(1))
			continue
		}
		c, err := strconv.ParseFloat(s, 64)
		if err != nil || !(c > 0) || math.IsInf(c, 0) {
			return usagef("reproduce fairness: --cs %q: want positive numbers or inf", s)
		}
		cs = append(cs, c)
	}
	switch {
	case f.rounds < 1:
		return usagef("reproduce fairness: --rounds %d: want >= 1", f.rounds)
	case f.batch < 1:
		return usagef("reproduce fairness: --batch %d: want >= 1", f.batch)
	case f.rho < 0 || math.IsNaN(f.rho) || math.IsInf(f.rho, 0):
		return usagef("reproduce fairness: --rho %g: want finite >= 0", f.rho)
	}
	train, test, err := loadAdult(f.adult)
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-fairness"))
	}
	if err := createNewDir(out); err != nil {
		return fmt.Errorf("reproduce fairness: %w", err)
	}
	fmt.Fprintf(stderr, "Adult: %d training and %d test records, %d features; %d losses x %d thresholds, T = %d\n",
		train.Rows(), test.Rows(), train.Dim, len(losses), len(cs), f.rounds)
	start := time.Now()
	p := fair.Config{Rounds: f.rounds, Batch: f.batch, Rho: f.rho, Seed: f.seed, SampledConstraint: f.sampled}
	rows, err := fair.Table(train, test, losses, cs, p, 1e-4, func(r fair.Row) {
		fmt.Fprintf(stderr, "%s c = %g: test accuracy %.4f, covariance %.3g, p%%-rule %.1f (%.0f s)\n", r.Loss, r.C, r.TestAcc, r.TrainCov, r.TestPRule, time.Since(start).Seconds())
	})
	if err != nil {
		return fmt.Errorf("reproduce fairness: %w", err)
	}
	var csv strings.Builder
	csv.WriteString("loss,c,sampled,train_cov,train_obj,test_acc,test_p_rule,certificate,ref_obj,ref_cov,ref_test_acc,samples\n")
	for _, r := range rows {
		fmt.Fprintf(&csv, "%s,%s,%t,%s,%s,%s,%s,%s,%s,%s,%s,%d\n", r.Loss, csvNum(r.C), r.Sampled,
			csvNum(r.TrainCov), csvNum(r.TrainObj), csvNum(r.TestAcc), csvNum(r.TestPRule), csvNum(r.Certificate),
			csvNum(r.RefObj), csvNum(r.RefCov), csvNum(r.RefTestAcc), r.Samples)
	}
	if err := writeNewFile(filepath.Join(out, "fairness.csv"), strings.NewReader(csv.String())); err != nil {
		return fmt.Errorf("reproduce fairness: %w", err)
	}
	md := fairnessTable(rows, f) + wallLine(time.Since(start))
	if err := writeNewFile(filepath.Join(out, "table.md"), strings.NewReader(md)); err != nil {
		return fmt.Errorf("reproduce fairness: %w", err)
	}
	_, err = io.WriteString(stdout, md)
	return err
}

// loadAdult reads and encodes the Adult training and test files of dir,
// every record (fairness.LoadAdult); missing files are a usage error.
func loadAdult(dir string) (train, test *fairness.Data, err error) {
	train, test, err = fairness.LoadAdult(dir, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, usagef("reproduce fairness: --adult: %w (the UCI Adult files adult.data and adult.test, gzip or plain)", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reproduce fairness: %w", err)
	}
	return train, test, nil
}

// csvNum formats v for the CSV: %g, empty for NaN.
func csvNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// fairnessTable renders the rows as markdown.
func fairnessTable(rows []fair.Row, f *fairnessFlags) string {
	var b strings.Builder
	form := "exact covariance row"
	if f.sampled {
		form = "covariance row estimated on each mini-batch"
	}
	fmt.Fprintf(&b, "Algorithm 1, T = %d, batch %d, seed %d, %s; accuracy and p%%-rule on adult.test, covariance on adult.data.\n\n", f.rounds, f.batch, f.seed, form)
	b.WriteString("| loss | c | test accuracy | covariance | p%-rule | certificate | optimum's accuracy / covariance (logistic) |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		ref := "—"
		if !math.IsNaN(r.RefObj) {
			ref = fmt.Sprintf("%.2f%% / %.2g (L − L* = %.1e)", 100*r.RefTestAcc, r.RefCov, r.TrainObj-r.RefObj)
		}
		c := strconv.FormatFloat(r.C, 'g', -1, 64)
		if math.IsInf(r.C, 1) {
			c = "∞"
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f%% | %.2g | %.1f | %.1e | %s |\n", r.Loss, c, 100*r.TestAcc, r.TrainCov, r.TestPRule, r.Certificate, ref)
	}
	return b.String()
}
