package main

import (
	"context"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/storm"
)

// stormFlags are the flags of `consim reproduce storm`.
type stormFlags struct {
	out, horizons string
	c             storm.Config
}

// reproduceStormCmd is `consim reproduce storm`: ALM-STORM against the ALM
// at equal sample budget, stationarity against samples on log-log axes.
func (a *app) reproduceStormCmd() *cobra.Command {
	f := stormFlags{c: storm.DefaultConfig()}
	cmd := a.experimentCmd("storm", &f.out,
		"ALM-STORM against the ALM: Moreau stationarity against samples, fitted slopes (Huang, Zhang, Alacaoglu §5)",
		`Storm runs the ALM (Algorithm 2, practical preset) and ALM-STORM
(Algorithm 3, practical preset) on the nonconvex regression over a ring,
for every horizon T of --horizons and every seed, each with the steps its
preset gives for T (tau ~ T^(-1/2) for the ALM, T^(-1/3) for ALM-STORM).
Every T/--points rounds it evaluates the Moreau-envelope stationarity
||grad Psi(z_t)|| of the consensus problem (mu = 2 L_f, a warm-started
inner solve), and takes its mean over the run, the E||grad Psi(z_t*)||
with t* uniform of the paper's theorems. It fits log(stationarity)
against log(samples) over the horizons T >= --fit-from per seed and
reports the mean slope with a 95% t-interval over the seeds, beside the
paper's -1/4 (O(eps^-4)) and -1/3 (O(eps^-3)). It writes storm.csv,
storm_runs.csv, storm.{png,svg} and table.md into a new directory.`,
		`  consim reproduce storm
  consim reproduce storm --seeds 3 --horizons 500,2000,8000`)
	fl, c := cmd.Flags(), &f.c
	fl.IntVar(&c.Seeds, "seeds", c.Seeds, "seeds 1..seeds (instance, edges and samples)")
	fl.StringVar(&f.horizons, "horizons", "1000,2000,4000,8000,16000,32000,64000", "horizons T, comma-separated")
	fl.IntVar(&c.FitFrom, "fit-from", c.FitFrom, "fit the slopes over the horizons T >= this (where both presets' steps depend on T: ALM from T > 400, ALM-STORM from T > 3450 on the default ring)")
	fl.IntVar(&c.Agents, "agents", c.Agents, "agents N on the ring")
	fl.IntVar(&c.Dim, "dim", c.Dim, "dimension n")
	fl.IntVar(&c.Batch, "batch", c.Batch, "minibatch b of a stochastic gradient")
	fl.Float64Var(&c.P, "p", c.P, "edge presence probability")
	fl.IntVar(&c.Points, "points", c.Points, "stationarity evaluations per run")
	fl.Float64Var(&c.StormCTau, "storm-c-tau", c.StormCTau, "ALM-STORM's c_tau")
	fl.IntVar(&c.CertBatch, "cert-batch", c.CertBatch, "batch B of the certificate (3.2), per agent")
	noFileCompletion(cmd, "seeds", "horizons", "fit-from", "agents", "dim", "batch", "p", "points", "storm-c-tau", "cert-batch")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Context(), a.stdout, a.stderr)
	})
	return cmd
}

// run resolves the flags, runs every method, seed and horizon, and writes
// the results.
func (f *stormFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	c := f.c
	var err error
	if c.Horizons, err = parseInts(f.horizons); err != nil {
		return usagef("reproduce storm: --horizons %w", err)
	}
	sort.Ints(c.Horizons)
	c.Log = stderr
	if err := c.Validate(); err != nil {
		return usagef("reproduce storm: %w", err)
	}
	md, err := publish(ctx, "storm", f.out, true, func(ctx context.Context) (experiments.Report, error) { return c.Run(ctx) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}
