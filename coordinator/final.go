package coordinator

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/consim/consim/consensus"
)

// FinalFile is the bundle file with every agent's last iterate.
const FinalFile = "final.json"

// FinalIterates is final.json: the last report the coordinator received
// from each agent, so that two runs can be compared iterate by iterate.
// Every x_i is written with encoding/json, which prints the shortest
// decimal that parses back to the same float64: decoding final.json
// restores each value bit for bit.
type FinalIterates struct {
	RunID string `json:"run_id"`
	// Agents holds one entry per agent that reported at least once,
	// ascending by id.
	Agents []FinalIterate `json:"agents"`
}

// FinalIterate is one agent's last report.
type FinalIterate struct {
	ID int `json:"id"`
	// Round is the number of rounds the agent had completed.
	Round int `json:"round"`
	// Final is true when the report came with the agent's final status;
	// false when the agent failed or went silent after it.
	Final bool `json:"final"`
	// X is the agent's primal block x_i.
	X []float64 `json:"x"`
}

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

// writeFinal writes f as final.json.
func (b *bundle) writeFinal(f FinalIterates) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode final iterates: %w", err)
	}
	return writeNew(filepath.Join(b.dir, FinalFile), append(data, '\n'))
}
