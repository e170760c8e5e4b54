package bundle

// FinalFile is the bundle file with every agent's last iterate.
const FinalFile = "final.json"

// FinalIterates is final.json: the last report of each agent (the last
// the coordinator received, or the stepped engine's agents' at the end),
// so that two runs can be compared iterate by iterate.
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
