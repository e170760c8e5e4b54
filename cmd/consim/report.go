package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/report"
	"github.com/consim/consim/scenarios"
)

// reportCmd draws the plots of a run bundle or a sweep directory into
// RESULTS_DIR/plots/ and writes RESULTS_DIR/report.md and report.html. It
// writes nothing else; running it again replaces its own earlier files.
//
// For a run bundle, "rounds to tolerance" counts up to --tolerance, else
// the metrics.tolerance of the bundle's scenario.yaml, else
// scenarios.DefaultSweepRelTolerance times the first measured consensus
// error. A sweep's rows already carry their tolerance. The bundle of a run
// that did not finish is reported too, with a warning (see writeReport).
func (a *app) reportCmd() *cobra.Command {
	var abs float64
	cmd := &cobra.Command{
		Use:   "report RESULTS_DIR",
		Short: "draw plots and write report.md and report.html for a run bundle or sweep directory",
		Long: `Report draws the plots (PNG and SVG) of a run bundle (a directory with
summary.json) or a sweep directory (with sweep.csv) into RESULTS_DIR/plots/
and writes RESULTS_DIR/report.md and RESULTS_DIR/report.html, a
self-contained page of interactive plots (zoom, log/linear, values under
the cursor; a sweep's runs with their mean and min-max band). It writes
nothing else; running it again replaces its own earlier files. For a run bundle,
"rounds to tolerance" counts up to --tolerance, else the bundle's
metrics.tolerance, else 1e-3 of the first measured consensus error.

The bundle of a run that did not finish (killed or crashed: scenario.yaml
and metrics.jsonl or metrics.csv but no summary.json) is reported from its
complete metrics lines; report.md says at the top that the run did not
finish, gives "unknown (run did not finish)" for the status, stop cause,
wall time and traffic totals, and a warning goes to stderr.`,
		Example: `  consim report results/quickstart-20250101T120000-ab12
  consim report results/dropout-sweep-20250101T120000-cd34 --tolerance 1e-6`,
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
// directory dir, with the absolute tolerance abs (0: the default), and
// prints each path written to stdout. The bundle of a run that did not
// finish (no summary.json) is reported from its complete metrics lines,
// with a warning on stderr saying so.
func writeReport(dir string, abs float64, stdout, stderr io.Writer) error {
	kind, err := report.Detect(dir)
	if err != nil {
		return usageError{err}
	}
	tol := report.Tolerance{Abs: abs, Rel: scenarios.DefaultSweepRelTolerance}
	var paths []string
	switch kind {
	case report.KindUnknown:
		return usageError{report.NotResultsDir(dir)}
	case report.KindSweep:
		paths, err = report.Report(dir, tol)
	default:
		if tol.Abs == 0 {
			// The tolerance the run was given, when its scenario can be read.
			if s, err := scenarios.Load(filepath.Join(dir, coordinator.ScenarioFile)); err == nil {
				tol.Abs = s.Metrics.Tolerance
			}
		}
		r, rerr := report.ReadRun(dir)
		if rerr != nil {
			return usageError{rerr}
		}
		if r.Incomplete {
			fmt.Fprintf(stderr, "consim report: warning: %s is an incomplete run bundle: %s\n", dir, r.IncompleteNote())
		}
		paths, err = report.WriteRunReport(r, tol)
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	if errors.Is(err, report.ErrBadInput) {
		return usageError{err}
	}
	return err
}
