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
		Long: `Compression runs the scenario --scenario (default
scenarios/compress_a9a.yaml: logistic regression on a9a, 123 features,
16 agents on a torus) three times on --transport (default nats-tcp, so the
bytes include every frame header and MAC): exact DGD, and CHOCO-SGD with
top_k 10% and with 4-bit qsgd, all with the scenario's step eta. Before
that it chooses CHOCO's consensus step gamma for each operator from the
--gammas grid by CHOCO-gossip alone (no gradient, another seed, the
stepped engine): the gamma with the smallest consensus error after 50
rounds.

It prints the table (gap f(xbar) - f*, consensus error, bytes sent as the
transport counted them, rounds, parameters) and exits 1 if a CHOCO-SGD run
is not within 10% of DGD's gap or does not send at least 5 times fewer
bytes. With --doc it writes the table into the generated block of that
markdown file (docs/compression.md). The runs' bundles go under --out.`,
		Example: `  consim reproduce compression --data ../shared/data/a9a/a9a.gz --doc docs/compression.md
  consim reproduce compression --rounds 1000 --transport chan`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("reproduce compression: unexpected arguments %q", args)
			}
			return nil
		},
		ValidArgsFunction: cobra.NoFileCompletions,
	}
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
