package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/compare"
)

// compareFlags are the flags of `consim reproduce compare`.
type compareFlags struct {
	out, ps, methods string
	c                compare.Config
}

// reproduceCompareCmd is `consim reproduce compare`: the comparison sweep
// of the ALM family against the baselines on the nonconvex problem.
func (a *app) reproduceCompareCmd() *cobra.Command {
	f := compareFlags{c: compare.DefaultConfig()}
	cmd := a.experimentCmd("compare", &f.out,
		"ALM, ALM-STORM, DGD, gradient tracking and the penalty methods: rounds, messages and samples to consensus and stationarity targets",
		`Compare runs the ALM (practical), ALM-STORM (practical), DGD (stochastic
gradients, constant step), gradient tracking (DIGing, stochastic
gradients), the decentralized quadratic-penalty ASG (growing rho) and the
ALM without dual steps on the nonconvex regression of
scenarios/nonconvex.yaml (16 agents, geometric graph) with every edge
present with probability p, for every p of --p and seeds 1..--seeds. Every
--every rounds it measures the consensus error (1/N) sum ||x_i - xbar||^2
and the Moreau stationarity ||grad Psi(x)|| of the consensus problem
(mu = 2 L_f, warm-started inner solve) and records the first round at
which each falls below its target, with the messages sent and the
gradient samples drawn by then. Runs stop at --rounds or when both
targets are met. It writes compare.csv and table.md (means with 95%
t-intervals over the seeds that reached a target, and how many did) into
a new directory.`,
		`  consim reproduce compare
  consim reproduce compare --p 1,0.2 --seeds 3 --rounds 5000`)
	fl, c := cmd.Flags(), &f.c
	fl.IntVar(&c.Seeds, "seeds", c.Seeds, "seeds 1..seeds")
	fl.StringVar(&f.ps, "p", "1,0.5,0.2", "edge presence probabilities, comma-separated")
	fl.IntVar(&c.Rounds, "rounds", c.Rounds, "horizon T of every run")
	fl.IntVar(&c.Every, "every", c.Every, "rounds between measurements")
	fl.Float64Var(&c.ConsTol, "consensus", c.ConsTol, "consensus error target")
	fl.Float64Var(&c.StatTol, "stationarity", c.StatTol, "stationarity target")
	fl.StringVar(&f.methods, "methods", strings.Join(c.Methods, ","), "methods, comma-separated, of "+compare.MethodKeys)
	fl.Float64Var(&c.DGDC, "dgd-c", c.DGDC, "DGD step alpha = c / max_i L_i")
	fl.Float64Var(&c.TrackingC, "tracking-c", c.TrackingC, "gradient tracking step alpha = c / max_i L_i")
	noFileCompletion(cmd, "seeds", "p", "rounds", "every", "consensus", "stationarity", "methods", "dgd-c", "tracking-c")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Context(), a.stdout, a.stderr)
	})
	return cmd
}

// run resolves the flags, runs the comparison and writes the results.
func (f *compareFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	c := f.c
	var err error
	if c.Ps, err = parseFloats(f.ps); err != nil {
		return usagef("reproduce compare: --p %w", err)
	}
	c.Methods, c.Log = nil, stderr
	for _, m := range strings.Split(f.methods, ",") {
		c.Methods = append(c.Methods, strings.TrimSpace(m))
	}
	if err := c.Validate(); err != nil {
		return usagef("reproduce compare: %w", err)
	}
	md, err := publish(ctx, "compare", f.out, true, func(ctx context.Context) (experiments.Report, error) { return c.Run(ctx) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}
