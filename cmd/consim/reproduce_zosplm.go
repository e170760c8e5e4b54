package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/zosplm"
)

// zosplmFlags are the flags of `consim reproduce zo-splm`.
type zosplmFlags struct {
	out, n string
	c      zosplm.Config
}

// reproduceZOSPLMCmd is `consim reproduce zo-splm`: ZO-SPLM, ZO-ConEx and
// ZO-ALM on the nonconvex QCQP of Dong et al. (Table 2 and Figure 1).
func (a *app) reproduceZOSPLMCmd() *cobra.Command {
	f := zosplmFlags{c: zosplm.DefaultConfig()}
	cmd := a.experimentCmd("zo-splm", &f.out,
		"ZO-SPLM and its baselines on the nonconvex QCQP (Dong et al., Table 2 and Figure 1)",
		`Zo-splm runs ZO-SPLM, ZO-ConEx and ZO-ALM on the nonconvex QCQP of Dong,
Zhao, Pu, Zhou and Yin for each n of --n: --trials instances solved from
x0 = 0 with mini-batch --k until the stochastic eps-stationarity test
holds (Table 2: iterations and CPU seconds per iteration, the process's
user + system time), and one instance per n run for --plot-iters
iterations at mini-batch --plot-k (Figure 1: the objective, and the three
measures). It writes trials.csv, traces.csv, convergence.csv, plots (PNG
and SVG) and table.md, which it also prints with the wall time, into a
new directory: --out must not exist.`,
		`  consim reproduce zo-splm
  consim reproduce zo-splm --n 50 --trials 5 --out results/zosplm-n50`)
	fs := cmd.Flags()
	fs.StringVar(&f.n, "n", "50,100,200", "comma-separated problem dimensions n")
	fs.Uint64Var(&f.c.Seed, "seed", f.c.Seed, "seed of every instance and direction")
	fs.IntVar(&f.c.Trials, "trials", f.c.Trials, "instances per n for the table")
	fs.IntVar(&f.c.K, "k", f.c.K, "mini-batch size k of the table runs")
	fs.IntVar(&f.c.MaxIter, "max-iter", f.c.MaxIter, "iteration limit of a table run")
	fs.Float64Var(&f.c.Eps, "eps", f.c.Eps, "tolerance eps of the stationarity test")
	fs.IntVar(&f.c.PlotK, "plot-k", f.c.PlotK, "mini-batch size k of the convergence runs (0: no convergence runs)")
	fs.IntVar(&f.c.PlotIters, "plot-iters", f.c.PlotIters, "iterations of the convergence runs")
	noFileCompletion(cmd, "n", "seed", "trials", "k", "max-iter", "eps", "plot-k", "plot-iters")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Context(), a.stdout, a.stderr)
	})
	return cmd
}

// run resolves the flags, runs the table and the convergence runs, and
// writes the results.
func (f *zosplmFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	ns, err := parseInts(f.n)
	if err != nil {
		return usagef("reproduce zo-splm: --n: %w", err)
	}
	c := f.c
	c.Ns, c.Log = ns, stderr
	if err := c.Validate(); err != nil {
		return usagef("reproduce zo-splm: %w", err)
	}
	md, err := publish(ctx, "zo-splm", f.out, true, func(ctx context.Context) (experiments.Report, error) { return c.Run(ctx) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}
