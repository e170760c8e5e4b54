package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/fairness"
)

// defaultAdult is where `consim reproduce fairness` looks for the UCI Adult
// files: the shared data directory beside the repository.
const defaultAdult = "../shared/data/adult"

// fairnessFlags are the flags of `consim reproduce fairness`.
type fairnessFlags struct {
	out, adult, losses, cs string
	c                      fairness.Config
}

// reproduceFairnessCmd is `consim reproduce fairness`: section 6.3 of the
// ALM paper, fairness-constrained classification on Adult.
func (a *app) reproduceFairnessCmd() *cobra.Command {
	f := fairnessFlags{c: fairness.DefaultConfig()}
	cmd := a.experimentCmd("fairness", &f.out,
		"fairness-constrained classification on Adult with Algorithm 1 (ALM paper §6.3)",
		`Fairness solves problem (6.6) of the ALM paper on UCI Adult: a linear
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
		`  consim reproduce fairness
  consim reproduce fairness --losses logistic --cs inf,0.01 --rounds 5000
  consim reproduce fairness --sampled`)
	fl, p := cmd.Flags(), &f.c.Params
	fl.StringVar(&f.adult, "adult", defaultAdult, "`DIR` holding adult.data[.gz] and adult.test[.gz]")
	fl.StringVar(&f.losses, "losses", "logistic,logdiff,smooth01", "losses, comma-separated: logistic, logdiff, smooth01")
	fl.StringVar(&f.cs, "cs", "inf,0.1,0.05,0.01,0.005,0.001", "covariance thresholds c, comma-separated (inf: unconstrained)")
	fl.IntVar(&p.Rounds, "rounds", p.Rounds, "iterations T of Algorithm 1")
	fl.IntVar(&p.Batch, "batch", p.Batch, "mini-batch size")
	fl.Float64Var(&p.Rho, "rho", p.Rho, "penalty rho (0: 1, or 0.1 with --sampled)")
	fl.Uint64Var(&p.Seed, "seed", p.Seed, "seed of the samples")
	fl.BoolVar(&p.SampledConstraint, "sampled", false, "stochastic-constraint form: the covariance row estimated on each mini-batch")
	noFileCompletion(cmd, "losses", "cs", "rounds", "batch", "rho", "seed")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Context(), a.stdout, a.stderr)
	})
	return cmd
}

// run resolves the flags, loads Adult, solves every cell and writes the
// results.
func (f *fairnessFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	c := f.c
	c.Losses, c.Cs, c.Log = nil, nil, stderr
	for _, s := range strings.Split(f.losses, ",") {
		c.Losses = append(c.Losses, strings.TrimSpace(s))
	}
	for _, s := range strings.Split(f.cs, ",") {
		s = strings.TrimSpace(s)
		if s == "inf" {
			c.Cs = append(c.Cs, math.Inf(1))
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return usagef("reproduce fairness: --cs %q: want positive numbers or inf", s)
		}
		c.Cs = append(c.Cs, v)
	}
	if err := c.Validate(); err != nil {
		return usagef("reproduce fairness: %w", err)
	}
	var err error
	if c.Data, err = fairness.LoadAdult(f.adult); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usagef("reproduce fairness: --adult: %w (the UCI Adult files adult.data and adult.test, gzip or plain)", err)
		}
		return fmt.Errorf("reproduce fairness: %w", err)
	}
	md, err := publish(ctx, "fairness", f.out, true, func(ctx context.Context) (experiments.Report, error) { return c.Run(ctx) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}
