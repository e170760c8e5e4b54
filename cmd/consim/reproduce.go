package main

import (
	"github.com/spf13/cobra"
)

// reproduceCmd groups the paper reproductions, one subcommand each.
func (a *app) reproduceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reproduce EXPERIMENT",
		Short: "reproduce a paper's experiment (admm, zo-splm, penalty, tsp, slicing, rates, storm, compare, fairness, compression)",
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
	cmd.AddCommand(a.reproduceADMMCmd(), a.reproduceZOSPLMCmd(), a.reproducePenaltyCmd(), a.reproduceTSPCmd(), a.reproduceSlicingCmd(), a.reproduceRatesCmd(), a.reproduceStormCmd(), a.reproduceCompareCmd(), a.reproduceFairnessCmd(), a.reproduceCompressionCmd())
	return cmd
}
