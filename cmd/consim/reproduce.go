package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/sim"
)

// reproduceCmd groups the paper reproductions, one subcommand each.
func (a *app) reproduceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reproduce EXPERIMENT",
		Short: "reproduce a paper's experiment (admm, zo-splm, penalty, tsp, slicing, rates, storm, compare, fairness)",
		Long: `Reproduce runs one of a paper's experiments, as a subcommand, in this
process and writes its data, plots and table to a new directory.`,
		Example: `  consim reproduce admm --quick
  consim reproduce admm --cov 2 --out results/admm
  consim reproduce zo-splm --n 50 --trials 5
  consim reproduce penalty --a9a ../shared/data/a9a/a9a.gz
  consim reproduce tsp --seeds 2
  consim reproduce slicing --instances 5
  consim reproduce rates`,
		RunE: groupRunE("experiment"),
	}
	cmd.AddCommand(a.reproduceADMMCmd(), a.reproduceZOSPLMCmd(), a.reproducePenaltyCmd(), a.reproduceTSPCmd(), a.reproduceSlicingCmd(), a.reproduceRatesCmd(), a.reproduceStormCmd(), a.reproduceCompareCmd(), a.reproduceFairnessCmd())
	return cmd
}

// experimentCmd is a reproduce subcommand: no arguments, and --out DIR,
// bound to out.
func (a *app) experimentCmd(name string, out *string, short, long, example string) *cobra.Command {
	cmd := &cobra.Command{
		Use:     name,
		Short:   short,
		Long:    long,
		Example: example,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce %s: unexpected arguments %q", name, args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	addOutFlag(cmd, out, "output `DIR`, which must not exist (default results/reproduce-"+name+"-<UTC time>-<4 hex>)")
	return cmd
}

// noFileCompletion completes the flags names with nothing.
func noFileCompletion(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
}

// publish runs an experiment of `consim reproduce name` into the new
// directory out (empty: results/reproduce-<name>-<UTC time>-<4 hex>),
// which must not exist, and returns its table; with wall, the table ends
// with the command's wall time from the directory's creation.
func publish(ctx context.Context, name, out string, wall bool, run func(context.Context) (experiments.Report, error)) (string, error) {
	if out == "" {
		out = filepath.Join("results", sim.NewRunID("reproduce-"+name))
	}
	if err := experiments.NewDir(out); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", usagef("reproduce %s: %s exists: a run never rewrites earlier output; choose another --out", name, out)
		}
		return "", fmt.Errorf("reproduce %s: %w", name, err)
	}
	start := time.Now()
	r, err := run(ctx)
	if err != nil {
		return "", fmt.Errorf("reproduce %s: %w", name, err)
	}
	if !wall {
		start = time.Time{}
	}
	md, err := experiments.Publish(out, r, start)
	if err != nil {
		return "", fmt.Errorf("reproduce %s: %w", name, err)
	}
	return md, nil
}

// parseInts parses a comma-separated list of positive integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q: want positive integers separated by commas", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseFloats parses a comma-separated list of finite numbers.
func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !experiments.Finite(v) {
			return nil, fmt.Errorf("%q: want numbers separated by commas", s)
		}
		out = append(out, v)
	}
	return out, nil
}
