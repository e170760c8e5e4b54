package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/report"
	"github.com/consim/consim/scenarios"
)

// reportCommand draws the plots of a run bundle or a sweep directory into
// RESULTS_DIR/plots/ and writes RESULTS_DIR/report.md. It writes nothing
// else; running it again replaces its own earlier plots and report.md.
//
// For a run bundle, "rounds to tolerance" counts up to --tolerance, else
// the metrics.tolerance of the bundle's scenario.yaml, else
// scenarios.DefaultSweepRelTolerance times the first measured consensus
// error. A sweep's rows already carry their tolerance.
func reportCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", "report RESULTS_DIR [--tolerance X]", stderr)
	var abs float64
	fs.Float64Var(&abs, "tolerance", 0, "consensus error that 'rounds to tolerance' counts up to, for a run bundle (0: the bundle's metrics.tolerance, else 1e-3 of the first value)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usagef("want exactly one results directory, got %d arguments", len(pos))
	}
	if abs < 0 {
		return usagef("--tolerance %g: want a number >= 0", abs)
	}
	dir := pos[0]
	kind, err := report.Detect(dir)
	if err != nil {
		return usageError{err}
	}
	if kind == report.KindUnknown {
		return usagef("%s is neither a run bundle (summary.json) nor a sweep directory (sweep.csv)", dir)
	}
	tol := report.Tolerance{Abs: abs, Rel: scenarios.DefaultSweepRelTolerance}
	if kind == report.KindRun && tol.Abs == 0 {
		// The tolerance the run was given, when its scenario can be read.
		if s, err := scenarios.Load(filepath.Join(dir, coordinator.ScenarioFile)); err == nil {
			tol.Abs = s.Metrics.Tolerance
		}
	}
	paths, err := report.Report(dir, tol)
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	if errors.Is(err, report.ErrBadInput) {
		return usageError{err}
	}
	return err
}
