package node

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/consim/consim/consensus"
)

// StatusKind says what an agent's status frame announces.
type StatusKind string

const (
	// StatusReady: the agent is connected and built; it waits for Start.
	StatusReady StatusKind = "ready"
	// StatusProgress: a periodic report every k rounds.
	StatusProgress StatusKind = "progress"
	// StatusFinal: the agent finished (max rounds or Stop); last report.
	StatusFinal StatusKind = "final"
	// StatusFailed: the agent stopped on an error; Err says which.
	StatusFailed StatusKind = "failed"
	// StatusDeparted: the agent crashed for good (a Faults crash without
	// restart); Report is its last state and Err says where it stopped.
	// Its peers see dropouts from then on.
	StatusDeparted StatusKind = "departed"
	// StatusAlive: a heartbeat (Options.Heartbeat), published whatever
	// the round rate; Report holds only the agent's id and the round it
	// is in, and PID its process.
	StatusAlive StatusKind = "alive"
)

// Status is what an agent publishes to the coordinator.
type Status struct {
	Kind    StatusKind       `json:"kind"`
	ID      int              `json:"id"`
	Report  consensus.Report `json:"report"`
	Traffic Traffic          `json:"traffic"`
	Err     string           `json:"err,omitempty"`
	// Stop is set on a final status after a stop control: the control's
	// reason ("stop control" if it gave none).
	Stop string `json:"stop,omitempty"`
	// PID is the agent's process id, on heartbeats (see StatusAlive).
	PID int `json:"pid,omitempty"`
	// Scenario is the canonical form of the agent's resolved scenario
	// (Options.Scenario), on ready statuses; empty otherwise.
	Scenario string `json:"scenario,omitempty"`
}

// Traffic counts what an agent's runtime moved and lost so far.
type Traffic struct {
	MsgsSent  int64 `json:"msgs_sent"`
	BytesSent int64 `json:"bytes_sent"`
	MsgsRecv  int64 `json:"msgs_recv"`
	BytesRecv int64 `json:"bytes_recv"`
	// Dropouts counts expected messages missing at a deadline; ByPeer
	// splits them per sending neighbour (the edge {peer, id}).
	Dropouts       int64         `json:"dropouts"`
	DropoutsByPeer map[int]int64 `json:"dropouts_by_peer,omitempty"`
	// ReduceMissing counts all-reduce terms missing from a sum: at the
	// root, which gathers the terms, those absent at its deadline; at any
	// other agent that got no sum from the root, the N-1 terms of others.
	ReduceMissing int64 `json:"reduce_missing"`
	// Late counts frames that arrived after their phase closed;
	// Unexpected, frames from a sender the phase did not expect;
	// Malformed, frames that failed to decode. All are dropped.
	Late       int64 `json:"late"`
	Unexpected int64 `json:"unexpected"`
	Malformed  int64 `json:"malformed"`
	// InjectedLoss counts the data frames this agent sent that the loss
	// model dropped; ByPeer splits them per destination (see Faults).
	InjectedLoss       int64         `json:"injected_loss,omitempty"`
	InjectedLossByPeer map[int]int64 `json:"injected_loss_by_peer,omitempty"`
	// Delayed counts the data frames the delay model postponed.
	Delayed int64 `json:"delayed,omitempty"`
	// StaleUsed counts missing messages replaced by an earlier round's
	// message of the same sender and phase (Faults.Staleness).
	StaleUsed int64 `json:"stale_used,omitempty"`
	// DroppedWhileDown counts the frames that reached this agent while it
	// was crashed and were discarded.
	DroppedWhileDown int64 `json:"dropped_while_down,omitempty"`
	// Evals counts the evaluation requests of the agent's outboxes
	// (Outbox.Evals). EvalFrames and EvalBytes count the eval frames it
	// published to remote oracle workers and received from them; they are
	// not in MsgsSent, MsgsRecv, BytesSent or BytesRecv, which count the
	// frames between agents.
	Evals      int64 `json:"evals,omitempty"`
	EvalFrames int64 `json:"eval_frames,omitempty"`
	EvalBytes  int64 `json:"eval_bytes,omitempty"`
	// EvalRetries counts the request chunks published again because no
	// result came within Options.EvalDeadline; EvalMissing, those still
	// unanswered after the repeat, which failed the agent.
	EvalRetries int64 `json:"eval_retries,omitempty"`
	EvalMissing int64 `json:"eval_missing,omitempty"`
	// Ahead counts frames for rounds more than Options.FutureWindow ahead
	// of the agent's round, or beyond Options.FutureFrames buffered for
	// their sender; Overflow, frames of later phases beyond the round
	// loop's whole buffer. Both are dropped.
	Ahead    int64 `json:"ahead,omitempty"`
	Overflow int64 `json:"overflow,omitempty"`
	// Refused counts the NATS messages of the agent's process that failed
	// the run's MAC, RefusedBySubject splits them by subject; BusMalformed,
	// those with a valid MAC whose routing header did not decode or did
	// not match the subject; InboxOverflow, frames dropped because the
	// agent's queue was full; SlowConsumer, messages the NATS client
	// dropped from a full subscription. Each drop of a process is counted by one of
	// its agents (one named by the frame if it can be read, else the
	// lowest), so sums over agents count every drop once.
	Refused          int64            `json:"refused,omitempty"`
	RefusedBySubject map[string]int64 `json:"refused_by_subject,omitempty"`
	BusMalformed     int64            `json:"bus_malformed,omitempty"`
	InboxOverflow    int64            `json:"inbox_overflow,omitempty"`
	SlowConsumer     int64            `json:"slow_consumer,omitempty"`
}

// ControlKind says what the coordinator tells the agents.
type ControlKind string

const (
	// ControlStart: every agent is ready; begin round 0.
	ControlStart ControlKind = "start"
	// ControlStop: finish the current round, send a final status, exit.
	ControlStop ControlKind = "stop"
	// ControlAlive: the coordinator's heartbeat; the round loop never
	// sees it (see Options.CoordinatorTimeout).
	ControlAlive ControlKind = "alive"
	// ControlLost: the coordinator declared agent Agent lost and the run
	// goes on without it; peers treat it as a leave of that agent from
	// their next phase on.
	ControlLost ControlKind = "lost"
	// ControlRefuse: the coordinator refuses to start the run (an agent's
	// scenario is not its own, see Options.Scenario); Reason says why.
	// An agent waiting for the start fails with ErrRunRefused.
	ControlRefuse ControlKind = "refuse"
)

// Control is what the coordinator publishes to all agents.
type Control struct {
	Kind   ControlKind `json:"kind"`
	Reason string      `json:"reason,omitempty"`
	// Agent is the agent a lost control names.
	Agent int `json:"agent,omitempty"`
	// Scenario, on a start control, is the fingerprint of the
	// coordinator's scenario in hex (ScenarioFingerprint); empty when the
	// coordinator checks none.
	Scenario string `json:"scenario,omitempty"`
}

// Errors of an agent whose run did not start because the processes of the
// run do not share one scenario (see Options.Scenario).
var (
	// ErrRunRefused: the coordinator refused the run (a refuse control).
	ErrRunRefused = errors.New("run refused by the coordinator")
	// ErrScenarioMismatch: the coordinator's start names another scenario
	// fingerprint than the agent's.
	ErrScenarioMismatch = errors.New("scenario mismatch")
)

// ScenarioFingerprint returns the fingerprint of a canonical scenario
// form, as start controls carry it: the SHA-256 of canonical in hex.
func ScenarioFingerprint(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// EncodeControl returns the frame of c.
func EncodeControl(c Control) []byte {
	b, _ := json.Marshal(c) // a struct of strings always marshals
	return b
}

// DecodeControl parses a control frame, rejecting unknown kinds.
func DecodeControl(frame []byte) (Control, error) {
	var c Control
	if err := json.Unmarshal(frame, &c); err != nil {
		return Control{}, fmt.Errorf("node: malformed control frame: %w", err)
	}
	switch c.Kind {
	case ControlStart, ControlStop, ControlAlive, ControlLost, ControlRefuse:
	default:
		return Control{}, fmt.Errorf("node: control frame has kind %q: want start, stop, alive, lost or refuse", c.Kind)
	}
	return c, nil
}
