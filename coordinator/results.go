package coordinator

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/observe/bundle"
)

// The results bundle's format is package observe/bundle's, the one every
// engine writes; these names are the coordinator's view of it.

// Row is one measured round: one line of metrics.jsonl and of metrics.csv,
// and the initial and final entries of summary.json (bundle.Row).
type Row = bundle.Row

// FinalIterates is final.json (bundle.FinalIterates).
type FinalIterates = bundle.FinalIterates

// FinalIterate is one agent's last report in final.json.
type FinalIterate = bundle.FinalIterate

// Names of the files of a results bundle.
const (
	ScenarioFile    = bundle.ScenarioFile
	MetricsJSONFile = bundle.MetricsJSONFile
	MetricsCSVFile  = bundle.MetricsCSVFile
	SummaryFile     = bundle.SummaryFile
	FinalFile       = bundle.FinalFile
)

// Columns returns the header of metrics.csv (bundle.Columns).
func Columns() []string { return bundle.Columns() }

// CheckBundle reports whether the bundle of run id under root may be
// created (bundle.Check): ErrBundleExists if its directory is already
// there.
func CheckBundle(root, id string) error { return bundle.Check(root, id) }

// finalIterates collects the last report of every agent.
func (r *run) finalIterates() FinalIterates {
	f := FinalIterates{RunID: r.cfg.RunID, Agents: []FinalIterate{}}
	for id, a := range r.agents {
		if a.last == nil {
			continue
		}
		f.Agents = append(f.Agents, FinalIterate{ID: id, Round: a.last.Round, Final: a.state == agentFinished, X: a.last.X})
	}
	return f
}

// remember keeps rep as agent a's last report unless it is older than
// the one kept.
func (a *agent) remember(rep consensus.Report) {
	if a.last == nil || rep.Round >= a.last.Round {
		a.last = &rep
	}
}
