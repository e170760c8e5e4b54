package coordinator

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/observe/bundle"
)

// writeArtefacts writes the run's own files (Config.Artefacts) into the
// bundle, made from the last report of every agent (an agent that never
// reported has a zero Report with a nil X); see bundle.Writer.WriteFiles.
func writeArtefacts(w *bundle.Writer, cfg Config, last []consensus.Report) error {
	if cfg.Artefacts == nil {
		return nil
	}
	files, err := cfg.Artefacts(last)
	if err != nil {
		return fmt.Errorf("artefacts: %w", err)
	}
	return w.WriteFiles(files)
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
