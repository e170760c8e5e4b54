package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/rates"
)

// ratesFlags are the flags of `consim reproduce rates`.
type ratesFlags struct {
	out, ps, methods string
	c                rates.Config
}

// reproduceRatesCmd is `consim reproduce rates`: parameter-free rate
// predictions against observed contraction, for gossip and the ALM.
func (a *app) reproduceRatesCmd() *cobra.Command {
	f := ratesFlags{c: rates.DefaultConfig()}
	cmd := a.experimentCmd("rates", &f.out,
		"predicted against observed per-round contraction of gossip and the ALM, no fitted constant",
		`Rates compares parameter-free rate predictions with observed contraction on
a ring, a torus and an Erdos-Renyi graph of --n agents (ER: edge
probability --er-q, seed --seed, conditioned on being connected), each
edge present with probability p in every round and draw, for p in --p.

Gossip: dgd with no objective (x_{t+1} = W_t x_t, Metropolis-Hastings
weights on the present edges). Predicted: rho2, the exact long-run
mean-square factor of the disagreement (graph.GossipRates), beside
lambda_max(E[W^T P W]) (the worst single round) and rho(E[W] - 11^T/N)^2.
Observed: the per-round factor of the mean over seeds of
sum_i ||x_i - xbar||^2, fitted on the window before its noise floor
(detected: metrics.FitBeforeFloor), with a 95% confidence interval from
--batches batches of the seeds; about --budget rounds per row.

ALM: Algorithm 2 per agent (the practical preset at its largest step,
sigma = 1/L_f, no safeguard, three independent draws per round) on an
interpolating full-batch least-squares problem in R^1 (5 rows per agent,
b_i = A_i x*), where a round is exactly an affine map w -> M(zeta) w + c
with fixed point (1 x*, 0, 1 x*). Predicted (alm.RateModel, built from the
agent's update): rho(E[M])^2 for the mean and rho(T), T(S) = E[M S M^T],
for the mean square. Observed over --alm-seeds runs of the agents: the
factor of ||mean_s (x_t - x*)||^2 before its sampling floor, and of
mean_s ||x_t - x*||^2.

It writes rates.csv and table.md, which it also prints with the wall
time, into a new directory: --out must not exist.`,
		`  consim reproduce rates
  consim reproduce rates --p 1,0.3 --methods gossip --budget 100000`)
	fs, c := cmd.Flags(), &f.c
	fs.StringVar(&f.ps, "p", "1,0.7,0.3,0.1", "comma-separated edge presence probabilities in (0, 1]")
	fs.StringVar(&f.methods, "methods", "gossip,alm", "comma-separated: gossip, alm")
	fs.IntVar(&c.N, "n", c.N, "agents of the ring and the Erdos-Renyi graph (the torus is 4x4 at 16)")
	fs.Float64Var(&c.ERQ, "er-q", c.ERQ, "edge probability of the Erdos-Renyi topology")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the Erdos-Renyi topology and of the ALM problem")
	fs.IntVar(&c.Budget, "budget", c.Budget, "gossip: rounds per row, over all seeds (at least 20 seeds)")
	fs.IntVar(&c.ALMSeeds, "alm-seeds", c.ALMSeeds, "ALM: runs per row")
	fs.IntVar(&c.ALMRounds, "alm-rounds", c.ALMRounds, "ALM: most rounds per run")
	fs.IntVar(&c.Batches, "batches", c.Batches, "batches of the seeds for the confidence intervals")
	noFileCompletion(cmd, "p", "methods", "n", "er-q", "seed", "budget", "alm-seeds", "alm-rounds", "batches")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Context(), a.stdout)
	})
	return cmd
}

// run resolves the flags, runs the table and writes it; the rows'
// progress lines and then the table go to stdout.
func (f *ratesFlags) run(ctx context.Context, stdout io.Writer) error {
	c := f.c
	var err error
	if c.Ps, err = parseFloats(f.ps); err != nil {
		return usagef("reproduce rates: --p: %w", err)
	}
	c.Gossip, c.ALM, c.Log = false, false, stdout
	for _, m := range strings.Split(f.methods, ",") {
		switch strings.TrimSpace(m) {
		case "gossip":
			c.Gossip = true
		case "alm":
			c.ALM = true
		default:
			return usagef("reproduce rates: --methods: %q: want gossip or alm", m)
		}
	}
	if err := c.Validate(); err != nil {
		return usagef("reproduce rates: %w", err)
	}
	md, err := publish(ctx, "rates", f.out, true, func(ctx context.Context) (experiments.Report, error) { return c.Run(ctx) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, "\n"+md)
	return err
}
