package main

import (
	"github.com/spf13/cobra"
)

// reproduceCmd groups the paper reproductions, one subcommand each.
func (a *app) reproduceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reproduce EXPERIMENT",
		Short: "reproduce a paper's experiment (admm)",
		Long: `Reproduce runs one of a paper's experiments, as a subcommand, in this
process and writes its data, plots and table to a new directory.`,
		Example: `  consim reproduce admm --quick
  consim reproduce admm --cov 2 --out results/admm`,
		RunE: groupRunE("experiment"),
	}
	cmd.AddCommand(a.reproduceADMMCmd())
	return cmd
}
