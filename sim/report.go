package sim

import (
	"errors"
	"path/filepath"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/coordinator/report"
	"github.com/consim/consim/scenarios"
)

// WriteReport draws the plots of the run bundle or sweep directory dir
// into dir/plots/ and writes dir/report.md, and returns the paths written.
// For a run bundle, "rounds to tolerance" counts up to abs when it is
// positive, else the metrics.tolerance of the bundle's scenario.yaml,
// else scenarios.DefaultSweepRelTolerance times the first measured
// consensus error; a sweep's rows carry their own. The bundle of a run
// that did not finish is reported from its complete metrics lines, and
// incomplete says so (empty otherwise). A directory that is neither, or
// bad files in it, are errors wrapping ErrInput.
func WriteReport(dir string, abs float64) (paths []string, incomplete string, err error) {
	kind, err := report.Detect(dir)
	if err != nil {
		return nil, "", inputError{err}
	}
	tol := report.Tolerance{Abs: abs, Rel: scenarios.DefaultSweepRelTolerance}
	switch kind {
	case report.KindUnknown:
		return nil, "", inputError{report.NotResultsDir(dir)}
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
			return nil, "", inputError{rerr}
		}
		if r.Incomplete {
			incomplete = r.IncompleteNote()
		}
		paths, err = report.WriteRunReport(r, tol)
	}
	if errors.Is(err, report.ErrBadInput) {
		err = inputError{err}
	}
	return paths, incomplete, err
}
