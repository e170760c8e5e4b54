package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/consim/consim/experiments/compression"
)

// reproduceCompressionCmd is `consim reproduce compression`: CHOCO-SGD
// with top_k 10% and 4-bit qsgd against exact DGD, bytes on the wire.
func (a *app) reproduceCompressionCmd() *cobra.Command {
	var (
		scenario, data, transport, out, doc, gammas string
		rounds                                      int
	)
	cmd := &cobra.Command{
		Use:   "compression",
		Short: "CHOCO-SGD with compressed messages against exact DGD: optimality gap and bytes on the wire",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce compression: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	withHelp(cmd, "reproduce_compression")
	fs := cmd.Flags()
	fs.StringVar(&scenario, "scenario", filepath.Join("scenarios", "compress_a9a.yaml"), "scenario `FILE` with a choco_sgd algorithm block")
	fs.StringVar(&data, "data", "", "a9a `FILE`: problem.data becomes {path: FILE, format: libsvm, shard: random}")
	fs.StringVar(&transport, "transport", "nats-tcp", "transport of the comparison runs: chan|nats|nats-tcp|stepped")
	fs.IntVar(&rounds, "rounds", 0, "rounds of each run (0: the scenario's)")
	fs.StringVar(&gammas, "gammas", "0.05,0.1,0.2,0.4,0.8", "comma-separated grid of gamma")
	fs.StringVar(&doc, "doc", "", "markdown `FILE` whose generated compression table to rewrite")
	addOutFlag(cmd, &out, "parent `DIR` of the runs' bundles (default results)")
	for _, n := range []string{"transport", "rounds", "gammas"} {
		mustComplete(cmd, n, cobra.NoFileCompletions)
	}
	cmd.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		c := compression.Config{Scenario: scenario, Transport: transport, Rounds: rounds, Out: out}
		if data != "" {
			abs, err := filepath.Abs(data)
			if err != nil {
				return usagef("reproduce compression: --data: %w", err)
			}
			c.Overrides = append(c.Overrides, fmt.Sprintf("problem.data={path: %q, format: libsvm, shard: random}", abs))
		}
		for _, g := range strings.Split(gammas, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(g), 64)
			if err != nil || !(v > 0 && v <= 1) {
				return usagef("reproduce compression: --gammas: %q is not a number in (0, 1]", g)
			}
			c.Gammas = append(c.Gammas, v)
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		res, err := c.Run(ctx)
		if err != nil {
			return err
		}
		table := res.Table()
		fmt.Fprint(a.stdout, table)
		if doc != "" {
			if err := compression.WriteDoc(doc, table); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "\nwrote the table into %s\n", doc)
		}
		return res.Check()
	})
	return cmd
}
