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
	"github.com/consim/consim/experiments/tsp"
)

// defaultMNIST is where `consim reproduce tsp` looks for the MNIST files:
// the shared data directory beside the repository.
const defaultMNIST = "../shared/data/mnist"

// tspFlags are the flags of `consim reproduce tsp`.
type tspFlags struct {
	out, mnist, methods string
	c                   tsp.Config
}

// reproduceTSPCmd is `consim reproduce tsp`: TSP and the penalty
// baselines on MNIST data hyper-cleaning (Lu, ICML 2025, Section 4).
func (a *app) reproduceTSPCmd() *cobra.Command {
	f := tspFlags{c: tsp.DefaultConfig()}
	cmd := a.experimentCmd("tsp", &f.out,
		"TSP, BOME, V-PBGD and MEHA on MNIST data hyper-cleaning (Lu, ICML 2025, §4)",
		`Tsp runs TSP (Algorithm 1) and the baselines BOME, V-PBGD and MEHA on the
data hyper-cleaning problem of Lu's Section 4: 5,000 MNIST training
samples, half of them with a wrong label, 5,000 validation samples and
the 10,000 test images (--mnist DIR holds the four MNIST .gz files). Each
of --seeds seeds (--seed, --seed+1, ...) draws its own split and
corruption; every method runs --rounds rounds from x = 0, y = 0 and is
measured every --every rounds: the test accuracy of y and the F1 of the
clean-sample detection x_i >= 0. It writes tsp.csv, plots (PNG and SVG) of
both measures against rounds (means over the seeds) and table.md (peak and
final accuracy and F1, mean ± std over the seeds, next to the paper's),
which it also prints with the wall time, into a new directory: --out must
not exist. The seconds in tsp.csv are the process CPU time of the
method's steps; --parallel runs that many seeds at once, and the seconds
are then wall time.`,
		`  consim reproduce tsp
  consim reproduce tsp --seeds 2 --parallel 2
  consim reproduce tsp --mnist /data/mnist --rounds 300 --seeds 1`)
	fl, c := cmd.Flags(), &f.c
	fl.StringVar(&f.mnist, "mnist", defaultMNIST, "`DIR` holding {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz")
	mustComplete(cmd, "mnist", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	fl.Uint64Var(&c.Seed, "seed", c.Seed, "first seed; seed i is --seed + i")
	fl.IntVar(&c.Seeds, "seeds", c.Seeds, "number of seeds (split and corruption draws)")
	fl.IntVar(&c.Rounds, "rounds", c.Rounds, "rounds (outer iterations) of every method")
	fl.IntVar(&c.Every, "every", c.Every, "measure every this many rounds")
	fl.StringVar(&f.methods, "methods", strings.Join(c.Methods, ","), "comma-separated methods among TSP, BOME, PBGD, MEHA")
	fl.IntVar(&c.Train, "train", c.Train, "training samples (half corrupted)")
	fl.IntVar(&c.Val, "val", c.Val, "validation samples")
	fl.IntVar(&c.Parallel, "parallel", c.Parallel, "seeds run at once")
	noFileCompletion(cmd, "seed", "seeds", "rounds", "every", "methods", "train", "val", "parallel")
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		return f.run(cmd.Context(), a.stdout, a.stderr)
	})
	return cmd
}

// run resolves the flags, loads MNIST, runs the seeds and writes the
// results.
func (f *tspFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	c := f.c
	c.Methods, c.Log = nil, stderr
	for _, m := range strings.Split(f.methods, ",") {
		c.Methods = append(c.Methods, strings.TrimSpace(m))
	}
	if err := c.Validate(); err != nil {
		return usagef("reproduce tsp: %w", err)
	}
	var err error
	if c.Data, err = tsp.LoadMNIST(f.mnist); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usagef("reproduce tsp: --mnist: %w", err)
		}
		return fmt.Errorf("reproduce tsp: %w", err)
	}
	if err := c.Validate(); err != nil {
		return usagef("reproduce tsp: %w", err)
	}
	md, err := publish(ctx, "tsp", f.out, true, func(ctx context.Context) (experiments.Report, error) { return c.Run(ctx) })
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, md)
	return err
}
