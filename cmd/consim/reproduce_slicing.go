package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/slicing"
)

// slicingFlags are the flags of `consim reproduce slicing`.
type slicingFlags struct {
	out, losses string
	seed        uint64
	instances   int
	c           slicing.Config
}

// reproduceSlicingCmd is `consim reproduce slicing`: the regularized ALM
// (Algorithm 1 of Huang, Zhang and Alacaoglu, Section 6.2) on random
// network-slicing instances, without and with message loss.
func (a *app) reproduceSlicingCmd() *cobra.Command {
	f := slicingFlags{c: slicing.DefaultConfig()}
	cmd := a.experimentCmd("slicing", &f.out,
		"the regularized ALM on random network-slicing instances, with and without loss (ALM paper §6.2)",
		`Slicing runs the per-node agents of the smoothed linearized ALM (Algorithm
1) on the regularized network-slicing problem (6.5) of Huang, Zhang and
Alacaoglu (Section 6.2) for --instances random instances (seeds --seed,
--seed+1, ...), once per loss rate of --losses, in lockstep with emulated
Bernoulli message loss, and compares each final point with the LP bound
and with its rounding to a slice. It writes runs.csv, plots (PNG and SVG)
of the gap to the LP bound and of the binary fraction per instance, and
table.md, which it also prints with the wall time, into a new directory:
--out must not exist.`,
		`  consim reproduce slicing
  consim reproduce slicing --instances 3 --rounds 2000 --losses 0`)
	fs, c := cmd.Flags(), &f.c
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the first instance; instance i has seed --seed + i")
	fs.IntVar(&f.instances, "instances", len(c.Seeds), "number of random instances")
	fs.IntVar(&c.Rounds, "rounds", c.Rounds, "round budget of a run")
	fs.IntVar(&c.Every, "every", c.Every, "period (rounds) of the stopping test: binary with violation <= 1e-4")
	fs.StringVar(&f.losses, "losses", "0,0.1", "comma-separated message loss rates in [0, 1)")
	fs.Uint64Var(&c.LossSeed, "loss-seed", c.LossSeed, "seed of the emulated loss")
	fs.IntVar(&c.Gen.Nodes, "nodes", c.Gen.Nodes, "nodes of an instance")
	fs.IntVar(&c.Gen.Flows, "flows", c.Gen.Flows, "flows of an instance")
	noFileCompletion(cmd, "seed", "instances", "rounds", "every", "losses", "loss-seed", "nodes", "flows")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Context(), a.stdout)
	})
	return cmd
}

// run resolves the flags, runs the table and writes the results.
func (f *slicingFlags) run(ctx context.Context, stdout io.Writer) error {
	if f.instances < 1 {
		return usagef("reproduce slicing: --instances %d: want >= 1", f.instances)
	}
	losses, err := parseFloats(f.losses)
	if err != nil {
		return usagef("reproduce slicing: --losses: %w", err)
	}
	c := f.c
	c.Losses, c.Seeds = losses, make([]uint64, f.instances)
	for i := range c.Seeds {
		c.Seeds[i] = f.seed + uint64(i)
	}
	if err := c.Validate(); err != nil {
		return usagef("reproduce slicing: %w", err)
	}
	md, err := publish(ctx, "slicing", f.out, true, func(ctx context.Context) (experiments.Report, error) { return c.Run(ctx) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}
