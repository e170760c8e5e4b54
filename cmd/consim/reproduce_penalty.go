package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/penalty"
)

// defaultA9A is where `consim reproduce penalty` looks for LIBSVM a9a: the
// shared data directory beside the repository.
const defaultA9A = "../shared/data/a9a/a9a.gz"

// penaltyFlags are the flags of `consim reproduce penalty`.
type penaltyFlags struct {
	out, section, a9a, rules string
	a9aRows                  int
	c                        penalty.Config
}

// reproducePenaltyCmd is `consim reproduce penalty`: the experiments of
// Lu and Xiao's Section 5 (Algorithm 1 on synthetic constrained logistic
// regression; Algorithm 2 and EAG on a9a).
func (a *app) reproducePenaltyCmd() *cobra.Command {
	f := penaltyFlags{c: penalty.DefaultConfig()}
	cmd := a.experimentCmd("penalty", &f.out,
		"quadratic-penalty ASG and VR-ASG against EAG on constrained logistic regression (Lu & Xiao §5)",
		`Penalty runs the experiments of Lu and Xiao's Section 5. 5.1: Algorithm 1
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
		`  consim reproduce penalty
  consim reproduce penalty --section 5.1 --k51 500
  consim reproduce penalty --section 5.2 --a9a /data/a9a.gz --rules 3ii,4ii`)
	fl, c := cmd.Flags(), &f.c
	fl.StringVar(&f.section, "section", "both", "experiment: 5.1, 5.2 or both")
	mustComplete(cmd, "section", cobra.FixedCompletions([]cobra.Completion{"5.1", "5.2", "both"}, cobra.ShellCompDirectiveNoFileComp))
	fl.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the data, the start and the samples")
	fl.IntVar(&c.K51, "k51", c.K51, "5.1: iterations K of Algorithm 1")
	fl.IntVar(&c.Every51, "every51", c.Every51, "5.1: record every this many iterations")
	fl.IntVar(&c.N, "n", c.N, "5.1: features n")
	fl.IntVar(&c.Samples, "samples", c.Samples, "5.1: generated samples")
	fl.IntVar(&c.Core, "core", c.Core, "core constraints m (5.1 and 5.2)")
	fl.StringVar(&f.a9a, "a9a", defaultA9A, "5.2: LIBSVM a9a `FILE` (gzip or plain)")
	fl.IntVar(&f.a9aRows, "a9a-rows", 0, "5.2: use the first this many rows of a9a (0: all)")
	fl.IntVar(&c.K52, "k52", c.K52, "5.2: outer iterations K of Algorithm 2 and iterations of EAG")
	fl.IntVar(&c.Every52, "every52", c.Every52, "5.2: record every this many iterations")
	fl.StringVar(&f.rules, "rules", "3i,3ii,4i,4ii", "5.2: Algorithm 2 rules (Theorem 3(i), 3(ii), 4(i), 4(ii)); the claims use 3ii and 4ii")
	noFileCompletion(cmd, "seed", "k51", "every51", "n", "samples", "core", "a9a-rows", "k52", "every52", "rules")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Context(), a.stdout, a.stderr)
	})
	return cmd
}

// run resolves the flags, loads a9a for 5.2, runs the sections and writes
// the results.
func (f *penaltyFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	c := f.c
	c.Do51, c.Do52, c.Log = f.section == "5.1" || f.section == "both", f.section == "5.2" || f.section == "both", stderr
	if !c.Do51 && !c.Do52 {
		return usagef("reproduce penalty: --section %q: want 5.1, 5.2 or both", f.section)
	}
	if f.a9aRows < 0 {
		return usagef("reproduce penalty: --a9a-rows %d: want >= 0", f.a9aRows)
	}
	c.Rules = nil
	for _, s := range strings.Split(f.rules, ",") {
		r, ok := penalty.Rules[strings.TrimSpace(s)]
		if !ok {
			return usagef("reproduce penalty: --rules %q: want some of 3i, 3ii, 4i, 4ii", f.rules)
		}
		c.Rules = append(c.Rules, r)
	}
	if err := c.Validate(); err != nil {
		return usagef("reproduce penalty: %w", err)
	}
	if c.Do52 {
		var err error
		if c.A9A, err = penalty.LoadA9A(f.a9a, f.a9aRows); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return usagef("reproduce penalty: --a9a: %w (download LIBSVM a9a, or run --section 5.1)", err)
			}
			return fmt.Errorf("reproduce penalty: %w", err)
		}
	}
	if err := c.Validate(); err != nil {
		return usagef("reproduce penalty: %w", err)
	}
	md, err := publish(ctx, "penalty", f.out, true, func(ctx context.Context) (experiments.Report, error) { return c.Run(ctx) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}
