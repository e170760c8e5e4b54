package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/consim/consim/sim"
)

// reportCmd is `consim report` (help/report.txt): sim.WriteReport of a
// run bundle or a sweep directory.
func (a *app) reportCmd() *cobra.Command {
	var abs float64
	cmd := &cobra.Command{
		Use:   "report RESULTS_DIR",
		Short: "draw plots and write report.md and report.html for a run bundle or sweep directory",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("want exactly one results directory, got %d arguments", len(args))
			}
			return nil
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return nil, cobra.ShellCompDirectiveFilterDirs
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
	}
	withHelp(cmd, "report")
	cmd.Flags().Float64Var(&abs, "tolerance", 0, "consensus error that 'rounds to tolerance' counts up to, for a run bundle (0: the bundle's metrics.tolerance, else 1e-3 of the first value)")
	mustComplete(cmd, "tolerance", cobra.NoFileCompletions)
	cmd.RunE = a.runE(func(_ *cobra.Command, args []string) error {
		if abs < 0 {
			return usagef("--tolerance %g: want a number >= 0", abs)
		}
		return writeReport(args[0], abs, a.stdout, a.stderr)
	})
	return cmd
}

// writeReport writes the plots and report.md of the run bundle or sweep
// directory dir (sim.WriteReport) and prints each path written to stdout,
// and a warning on stderr for the bundle of a run that did not finish.
func writeReport(dir string, abs float64, stdout, stderr io.Writer) error {
	paths, incomplete, err := sim.WriteReport(dir, abs)
	if incomplete != "" {
		fmt.Fprintf(stderr, "consim report: warning: %s is an incomplete run bundle: %s\n", dir, incomplete)
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	return inputErr(err)
}
