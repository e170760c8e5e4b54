package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/admm"
)

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
	cmd := a.experimentCmd("admm", &f.out,
		"com-SVR-ADMM and baselines on the portfolio mean-variance problem (Yu & Huang)",
		`Admm runs com-SVR-ADMM, com-SVRG-1, com-SVRG-2 and SGD on the portfolio
mean-variance problem of Yu and Huang (Section 4.1, Figures 1 and 2) for
covariance condition numbers 2 and 10, and writes admm.csv, semilog plots
(PNG and SVG) of the optimality gap against oracle calls and against CPU
time, and table.md, which it also prints, into a new directory: --out
must not exist. --alg2 adds com-SVR-ADMM Algorithm 2 (general convex);
--quick runs a small instance.`,
		`  consim reproduce admm --quick
  consim reproduce admm --cov 2 --alg2 --out results/admm-cov2`)
	def := admm.DefaultConfig().Experiment
	fs := cmd.Flags()
	fs.StringVar(&f.cov, "cov", "both", "covariance condition number: 2, 10 or both")
	mustComplete(cmd, "cov", cobra.FixedCompletions([]cobra.Completion{"2", "10", "both"}, cobra.ShellCompDirectiveNoFileComp))
	fs.Uint64Var(&f.seed, "seed", def.Seed, "seed of the rewards and of every sample")
	fs.IntVar(&f.outer, "outer", def.Outer, "outer iterations of the SVRG-type methods")
	fs.BoolVar(&f.quick, "quick", false, "small instance (20 assets, 200 periods; defaults eta 0.005, K 400, N 2, 20 outer)")
	fs.Float64Var(&f.eta, "eta", def.Params.Eta, "step size eta, shared by all methods")
	fs.Float64Var(&f.rho, "rho", def.Params.Rho, "ADMM penalty rho")
	fs.IntVar(&f.k, "k", def.Params.K, "inner iterations K per outer iteration")
	fs.IntVar(&f.batch, "batch", def.Params.Batch, "mini-batch N of the inner-function estimate")
	fs.Float64Var(&f.mu, "mu", def.Mu, "regularizer R(w) = (mu/2)||w||^2")
	fs.BoolVar(&f.alg2, "alg2", false, "also run com-SVR-ADMM Algorithm 2 (general convex; exact g(x^k), m queries per inner step)")
	noFileCompletion(cmd, "seed", "outer", "eta", "rho", "k", "batch", "mu")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Context(), cmd.Flags().Changed, a.stdout)
	})
	return cmd
}

// run resolves the flags into the experiment's Config (--quick starts from
// admm.QuickConfig, whose sizes the flags given explicitly override) and
// runs it.
func (f *admmFlags) run(ctx context.Context, set func(name string) bool, stdout io.Writer) error {
	c := admm.DefaultConfig()
	if f.quick {
		c = admm.QuickConfig()
	}
	e := &c.Experiment
	e.Params.Rho, e.Mu, e.Seed, e.Alg2 = f.rho, f.mu, f.seed, f.alg2
	given := func(name string) bool { return !f.quick || set(name) }
	if given("outer") {
		e.Outer = f.outer
	}
	if given("k") {
		e.Params.K = f.k
	}
	if given("batch") {
		e.Params.Batch = f.batch
	}
	if given("eta") {
		e.Params.Eta = f.eta
	}
	switch f.cov {
	case "2":
		c.Covs = []float64{2}
	case "10":
		c.Covs = []float64{10}
	case "both":
		c.Covs = []float64{2, 10}
	default:
		return usagef("reproduce admm: --cov %q: want 2, 10 or both", f.cov)
	}
	if err := c.Validate(); err != nil {
		return usagef("reproduce admm: %w", err)
	}
	md, err := publish(ctx, "admm", f.out, false, func(ctx context.Context) (experiments.Report, error) { return c.Run(ctx) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}
