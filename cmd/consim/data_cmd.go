package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/consim/consim/catalog"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/dataset"
	"github.com/consim/consim/sim"
)

func (a *app) dataCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "export a scenario's data, one file per agent, with the optimum it reports",
		Long: `Data works on the data of a scenario's problem. Its one subcommand,
export, writes each agent's rows to a file with the optimum the run's
bundle reports, for solvers outside consim.`,
		Example: `  consim data export scenarios/logistic32.yaml shards/`,
		RunE:    groupRunE("subcommand"),
	}
	cmd.AddCommand(a.dataExportCmd())
	return cmd
}

func (a *app) dataExportCmd() *cobra.Command {
	var sets []string
	var format string
	cmd := &cobra.Command{
		Use:   "export SCENARIO DIR",
		Short: "write each agent's rows and problem.json (f*, x*) to a new directory",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("want a scenario file and a new directory, got %d arguments", len(args))
			}
			return nil
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			switch len(args) {
			case 0:
				return []cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
			case 1:
				return nil, cobra.ShellCompDirectiveFilterDirs
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
	}
	withHelp(cmd, "data_export")
	cmd.Flags().StringVar(&format, "format", dataset.FormatLIBSVM, "file `format` of the shards: libsvm or csv (label first)")
	mustComplete(cmd, "format", cobra.FixedCompletions([]cobra.Completion{dataset.FormatLIBSVM, dataset.FormatCSV}, cobra.ShellCompDirectiveNoFileComp))
	addSetFlag(cmd, &sets, ", e.g. --set agents=8")
	cmd.RunE = a.runE(func(_ *cobra.Command, args []string) error {
		_, st, err := loadAndBuild(args[0], sets)
		if err != nil {
			return err
		}
		m, err := sim.ExportData(st, args[1], format)
		if err != nil {
			return inputErr(err)
		}
		fmt.Fprintf(a.stdout, "wrote %d shards and problem.json (f* = %s) to %s\n", len(m.Files), registry.Num(m.FStar), args[1])
		return nil
	})
	return cmd
}

func (a *app) listCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "list the registered algorithms and problem kinds",
		Long: `List prints every registered algorithm (the scenario key algorithm.name)
and problem kind (problem.kind) with a one-line summary. Their keys and
defaults are in the scenario key table of docs/scenarios.md.`,
		Example:           "  consim list",
		Args:              func(_ *cobra.Command, args []string) error { return listArgs(args) },
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.runE(func(*cobra.Command, []string) error {
			stdout := a.stdout
			reg := catalog.Default()
			fmt.Fprintln(stdout, "Algorithms (algorithm.name):")
			for _, n := range reg.Algorithms() {
				al, _ := reg.Algorithm(n)
				fmt.Fprintf(stdout, "  %-21s %s\n", n, al.Summary)
			}
			fmt.Fprintln(stdout, "\nProblems (problem.kind):")
			for _, k := range reg.Problems() {
				p, _ := reg.Problem(k)
				fmt.Fprintf(stdout, "  %-21s %s\n", k, p.Summary)
			}
			fmt.Fprintln(stdout, "\nEach one's keys and defaults: the scenario key table of docs/scenarios.md.")
			return nil
		}),
	}
}

// listArgs accepts no arguments.
func listArgs(args []string) error {
	if len(args) != 0 {
		return usagef("list takes no arguments, got %d", len(args))
	}
	return nil
}
