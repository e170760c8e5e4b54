package sim

import (
	"fmt"
	"os"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/problems/datafile"
	"github.com/consim/consim/scenarios"
)

// exporter is what ExportData needs of a problem instance: Export writes
// the instance's data into e (rows for a problem made of rows, a
// solver-ready instance for the others) and states in e.Manifest the
// exact objective, the reference values and the point that attains them.
// Every registered problem kind implements it (problems/<family>/export.go).
type exporter interface {
	Export(e *datafile.Export) error
}

// ExportManifest is DIR/problem.json of ExportData: what an outside solver
// needs to rebuild the problem and check the reference values the run's
// bundle reports.
type ExportManifest = datafile.Manifest

// ExportData writes dir, which must not exist, with the data of st's
// problem instance and problem.json (the manifest, which it returns): for
// the kinds made of rows one file per agent (or per set) in format
// (dataset.FormatLIBSVM or dataset.FormatCSV), for the others a
// solver-ready instance (docs/data.md lists the files of every kind). The
// reference value f* is the one a run of st measures its optimality gap
// against, named as the run's summary names it. An unknown format and an
// existing dir are errors wrapping ErrInput; on any error dir is removed.
func ExportData(st *scenarios.Setup, dir, format string) (*ExportManifest, error) {
	s := st.Scenario
	if _, ok := datafile.RowExt(format); !ok {
		return nil, inputError{fmt.Errorf("--format %q: want libsvm or csv", format)}
	}
	ex, ok := st.Env.Problem.(exporter)
	if !ok {
		return nil, fmt.Errorf("problem kind %s has no export", s.Problem.Kind)
	}
	if _, err := os.Stat(dir); err == nil {
		return nil, inputError{fmt.Errorf("%s exists: data export writes a new directory", dir)}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	e, err := datafile.NewExport(dir, format, datafile.Manifest{Scenario: s.Name, Kind: s.Problem.Kind, Agents: s.Agents, Seed: s.Seed})
	if err == nil {
		err = ex.Export(e)
	}
	if err == nil {
		if e.Manifest.FStarIs == "" {
			e.Manifest.FStarIs = fstarName(st.Env.Problem, e.Manifest.Convex)
		}
		err = e.WriteManifest()
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("export problem %s: %w", s.Problem.Kind, err)
	}
	return &e.Manifest, nil
}

// referenceNamer is implemented by a problem instance whose reference
// value f* is not what its convexity alone says: FStarName names it ("LP
// bound of the relaxation", or "none: " and the reason).
type referenceNamer interface {
	FStarName() string
}

// fstarName says what f* of a run on inst is, as the run's summary and
// problem.json name it: the instance's own name, else "optimum" for a
// convex problem and "best of a multistart (nonconvex)" for the others
// (objective.Problem's nonconvex FStar).
func fstarName(inst registry.Instance, convex bool) string {
	if n, ok := inst.(referenceNamer); ok {
		return n.FStarName()
	}
	if convex {
		return "optimum"
	}
	return "best of a multistart (nonconvex)"
}
