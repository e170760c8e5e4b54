package coordinator

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
)

// Defaults for the zero values of Config.
const (
	DefaultReadyTimeout = 30 * time.Second
	DefaultAgentTimeout = 30 * time.Second
	// DefaultDivergeBound is observe.DefaultDivergeBound.
	DefaultDivergeBound = observe.DefaultDivergeBound
)

// Config describes one run for the coordinator.
type Config struct {
	// RunID names the run and its bundle directory; it must be a plain
	// file name (no path separators, not "." or "..").
	RunID string
	// N is the number of agents, with ids 0..N-1.
	N int
	// Rounds is the number of rounds each agent runs unless stopped, and
	// ReportEvery the report period k; both are recorded in the summary
	// and Progress only (the agents enforce them).
	Rounds      int
	ReportEvery int
	// ConsensusTol and OptGapTol stop the run early: once a measured round
	// has ConsensusErr <= ConsensusTol and OptGap <= OptGapTol, for every
	// tolerance that is positive, the coordinator publishes Stop and waits
	// for the final statuses. Zero turns a tolerance off; with both off
	// the agents run all Rounds. A NaN OptGap never meets OptGapTol.
	ConsensusTol float64
	OptGapTol    float64
	// Timeout bounds the whole run, ready wait included; zero means none.
	// On expiry the coordinator publishes Stop and the run fails.
	Timeout time.Duration
	// ReadyTimeout bounds the wait for the agents' ready statuses: the
	// run fails when no new agent has become ready for this long
	// (default DefaultReadyTimeout). The wait is counted from the latest
	// ready status, not from the start, so 10^5 goroutine agents that
	// take longer than ReadyTimeout to start, but keep starting, are
	// waited for.
	ReadyTimeout time.Duration
	// Resume continues the run of a coordinator that died. The observer
	// replays the run's statuses from the first (node.NATSOptions.Resume),
	// so this coordinator measures every round again and writes the whole
	// bundle: a bundle of the run without summary.json (the dead
	// coordinator's) is replaced, while one with a summary is a finished
	// run and is refused as always. The start control is sent again once
	// the replay has every agent's ready status; agents already in their
	// rounds ignore it. The rows' elapsed times and the summary's times
	// and rate are this coordinator's (Summary.Resumed).
	Resume bool
	// AgentTimeout is how long an agent may stay silent after Start, and
	// how long agents have to send their final status after a Stop
	// (default DefaultAgentTimeout). It must exceed the wall time of
	// ReportEvery rounds.
	AgentTimeout time.Duration
	// ContinueOnDeparture keeps the run going when an agent departs for
	// good (a crash without restart, node.StatusDeparted): the fault is
	// recorded and later rounds are measured over the remaining agents
	// (their reports, the departed agents' entries with a nil X). When
	// off, a departure ends the run with ErrAgentDeparted naming the agent.
	ContinueOnDeparture bool
	// Heartbeat, if positive, turns liveness on (see liveness.go): the
	// coordinator publishes an alive control every Heartbeat, and an
	// agent silent for AgentTimeout (agents publish alive statuses, see
	// node.Options.Heartbeat) is lost rather than unresponsive: it is
	// named with its process id and round, and ContinueOnDeparture
	// decides whether the run ends. Zero: no heartbeats either way.
	Heartbeat time.Duration
	// Lost, if set, delivers agents known to be gone by other means than
	// silence (a supervisor saw the agent's process exit); each is handled
	// at once as a lost agent, Heartbeat or not.
	Lost <-chan Lost
	// OutDir is the results root; the bundle is OutDir/RunID.
	OutDir string
	// Scenario, if not empty, is written as scenario.yaml.
	Scenario []byte
	// ScenarioCheck, if set, is the resolved scenario every agent must
	// share, for runs whose processes each load their own copy: each
	// ready status must carry a canonical form with the same fingerprint
	// (node.Options.Scenario), and the start control names it. An agent
	// with another one, or none, refuses the run before its start: the
	// coordinator publishes a refuse control whose reason names the first
	// keys that differ and both values, and Run returns an error wrapping
	// ErrScenarioMismatch. Nil checks nothing.
	ScenarioCheck ScenarioCheck
	// Measures names the algorithm's declared measures, the columns that
	// follow the fixed ones in metrics.csv and metrics.jsonl; the
	// Evaluator returns their values in Metrics.Extra in this order.
	Measures []string
	// DivergeBound ends the run as diverged once the consensus error, the
	// feasibility or |f(xbar)| of a measured round exceeds it (default
	// DefaultDivergeBound; the run also ends as diverged when one of them is
	// NaN or Inf while the iterates are finite-valued measures): see
	// observe.Diverged.
	DivergeBound float64
	// Artefacts, if set, makes the run's own files of the bundle (a
	// picture of the final state, say) from the last report of every agent
	// (a zero Report with a nil X for one that never reported); they are
	// written after final.json, under plain names that are not the
	// bundle's own. An error fails the run.
	Artefacts artefactsFunc
	// Params are the algorithm's resolved parameters and constants,
	// copied to summary.json.
	Params []registry.Value
	// Meta is copied to summary.json (transport, seed, mode, ...). Its
	// values must be encodable as JSON.
	Meta map[string]any
	// Logger receives structured logs; nil discards them.
	Logger hclog.Logger
	// Progress, if set, is called after each measured round that has not
	// diverged, from the goroutine running Run (see Recorder): the hook
	// through which a live view follows the run.
	Progress func(Progress)
}

// ScenarioCheck is the resolved scenario of a run, as the coordinator
// compares the agents' with it (scenarios.Canonical implements it).
type ScenarioCheck interface {
	// Fingerprint is the SHA-256 of the coordinator's canonical form.
	Fingerprint() [sha256.Size]byte
	// Differences names the first keys where the canonical form other
	// differs from the coordinator's, with both values, the
	// coordinator's labelled here and other's there.
	Differences(other []byte, here, there string) string
}

// Progress describes the run after a measured round. Metrics, Elapsed,
// Msgs and Bytes are the Row just written to the bundle.
type Progress struct {
	Metrics observe.Metrics
	// Rounds is Config.Rounds, the planned number of rounds.
	Rounds int
	// Elapsed is the wall time since Start.
	Elapsed time.Duration
	// RoundsPerSec is Metrics.Round / Elapsed.
	RoundsPerSec float64
	// Msgs and Bytes are the row's msgs and bytes columns (Row.Msgs,
	// Row.Bytes).
	Msgs, Bytes int64
	// Traffic sums every agent's latest traffic counters and the drops
	// the coordinator counted so far, as summary.json's traffic does but
	// without its per-edge and per-subject maps (DropoutsByEdge and
	// RefusedBySubject are nil). Agents may have reported rounds past
	// this one, so its counters can run ahead of Msgs and Bytes.
	Traffic TrafficTotals
	// Agents holds each agent's latest round and counters, by id, for
	// runs of at most ProgressAgentsMax agents; nil for larger runs. The
	// slice is the callee's; the maps in its Traffic are shared and must
	// not be modified.
	Agents []AgentProgress
}

// ProgressAgentsMax bounds the runs whose Progress carries per-agent
// entries: beyond it, copying N entries per measured round would cost
// more than the per-agent view is worth.
const ProgressAgentsMax = 64

// AgentProgress is one agent's state in Progress.
type AgentProgress struct {
	// Round is the last round the agent reported, -1 if none.
	Round int
	// Traffic is the agent's latest cumulative counters.
	Traffic node.Traffic
}

// Row returns the bundle row p describes.
func (p Progress) Row() Row {
	return Row{Metrics: p.Metrics, Elapsed: p.Elapsed, Msgs: p.Msgs, Bytes: p.Bytes}
}

// withDefaults fills the zero values that have defaults.
func (c Config) withDefaults() Config {
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = DefaultReadyTimeout
	}
	if c.AgentTimeout == 0 {
		c.AgentTimeout = DefaultAgentTimeout
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	return c
}

// validate checks a defaulted config.
func (c Config) validate() error {
	switch {
	case c.RunID == "" || c.RunID == "." || c.RunID == ".." ||
		strings.ContainsAny(c.RunID, `/\`) || filepath.Base(c.RunID) != c.RunID:
		return fmt.Errorf("run id %q: must be a plain directory name", c.RunID)
	case c.N < 1:
		return fmt.Errorf("run %s: number of agents %d: must be at least 1", c.RunID, c.N)
	case c.OutDir == "":
		return fmt.Errorf("run %s: empty results directory", c.RunID)
	case c.Timeout < 0 || c.ReadyTimeout < 0 || c.AgentTimeout < 0 || c.Heartbeat < 0:
		return fmt.Errorf("run %s: negative timeout (timeout %v, ready %v, agent %v, heartbeat %v)", c.RunID, c.Timeout, c.ReadyTimeout, c.AgentTimeout, c.Heartbeat)
	case !(c.ConsensusTol >= 0) || !(c.OptGapTol >= 0):
		return fmt.Errorf("run %s: tolerances must be >= 0 (consensus %v, optimality gap %v)", c.RunID, c.ConsensusTol, c.OptGapTol)
	case c.Rounds < 0 || c.ReportEvery < 0:
		return errors.New("run " + c.RunID + ": negative rounds or report period")
	}
	return nil
}

// tolerancesMet reports whether some tolerance is set and m meets every
// one that is.
func (c Config) tolerancesMet(m observe.Metrics) bool {
	if c.ConsensusTol <= 0 && c.OptGapTol <= 0 {
		return false
	}
	if c.ConsensusTol > 0 && !(m.ConsensusErr <= c.ConsensusTol) {
		return false
	}
	if c.OptGapTol > 0 && !(m.OptGap <= c.OptGapTol) {
		return false
	}
	return true
}
