package coordinator

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
)

// writeArtefacts writes the run's own files (Config.Artefacts) into the
// bundle, made from the last report of every agent (an agent that never
// reported has a zero Report with a nil X). A name must be a plain file
// name that is not one of the bundle's own files; no file is rewritten.
func (b *bundle) writeArtefacts(cfg Config, last []consensus.Report) error {
	if cfg.Artefacts == nil {
		return nil
	}
	files, err := cfg.Artefacts(last)
	if err != nil {
		return fmt.Errorf("artefacts: %w", err)
	}
	for _, f := range files {
		switch f.Name {
		case "", ".", "..", ScenarioFile, MetricsJSONFile, MetricsCSVFile, SummaryFile, FinalFile:
			return fmt.Errorf("artefacts: file name %q is empty or one of the bundle's own files", f.Name)
		}
		if strings.ContainsAny(f.Name, `/\`) {
			return fmt.Errorf("artefacts: file name %q must be a plain name, without a path", f.Name)
		}
		if err := writeNew(filepath.Join(b.dir, f.Name), f.Data); err != nil {
			return fmt.Errorf("artefacts: %w", err)
		}
	}
	return nil
}

// lastReports returns every agent's last report, a zero Report (nil X)
// for one that never reported.
func (r *run) lastReports() []consensus.Report {
	reps := make([]consensus.Report, len(r.agents))
	for id, a := range r.agents {
		reps[id].ID = id
		if a.last != nil {
			reps[id] = *a.last
		}
	}
	return reps
}

// artefactsFunc is the type of Config.Artefacts.
type artefactsFunc = func(last []consensus.Report) ([]registry.File, error)
