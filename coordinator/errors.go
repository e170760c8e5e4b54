package coordinator

import (
	"errors"
	"fmt"
	"time"

	"github.com/consim/consim/observe/bundle"
)

// Errors a run can end with; test with errors.Is.
var (
	// ErrBundleExists: the results bundle directory already exists.
	ErrBundleExists = bundle.ErrExists
	// ErrNotReady: some agents sent no ready status within ReadyTimeout.
	ErrNotReady = errors.New("agents never became ready")
	// ErrAgentFailed: an agent published a failed status.
	ErrAgentFailed = errors.New("agent failed")
	// ErrUnresponsive: an agent sent nothing for AgentTimeout, or did not
	// finish within AgentTimeout of a Stop control.
	ErrUnresponsive = errors.New("agent stopped answering")
	// ErrAgentDeparted: an agent crashed for good (node.StatusDeparted)
	// and Config.ContinueOnDeparture is off.
	ErrAgentDeparted = errors.New("agent departed")
	// ErrAgentLost: an agent's heartbeats stopped for AgentTimeout (with
	// Config.Heartbeat set), or its process was reported gone
	// (Config.Lost), and Config.ContinueOnDeparture is off.
	ErrAgentLost = errors.New("agent lost")
	// ErrTimeout: the run exceeded Config.Timeout.
	ErrTimeout = errors.New("run timed out")
	// ErrObserverClosed: the status channel closed before the run ended.
	ErrObserverClosed = errors.New("status channel closed")
	// ErrStoppedElsewhere: agents stopped early on a stop control this
	// coordinator did not send (Summary.Status StatusStopped).
	ErrStoppedElsewhere = errors.New("run stopped by a control the coordinator did not send")
	// ErrDiverged: the iterates of a measured round became NaN or Inf, or
	// a measure passed Config.DivergeBound (Summary.Status StatusDiverged).
	ErrDiverged = errors.New("run diverged")
	// ErrScenarioMismatch: an agent's ready status carried another
	// scenario than the coordinator's (Config.ScenarioCheck); the run was
	// refused before its start.
	ErrScenarioMismatch = errors.New("scenario mismatch")
)

// AgentError names the agent that ended a run. It unwraps to
// ErrAgentFailed, ErrAgentDeparted, ErrAgentLost or ErrUnresponsive.
type AgentError struct {
	// ID is the agent's id.
	ID int
	// Round is the last round the agent reported, or -1 if none; for a
	// lost agent, the round its last heartbeat or report named.
	Round int
	// Silent is how long the agent had been silent (unresponsive only).
	Silent time.Duration
	// Msg is the agent's own error message (failed, departed), or how it
	// was lost.
	Msg string
	// PID is the agent's process id, when known (lost only).
	PID int
	// Kind is ErrAgentFailed, ErrAgentDeparted, ErrAgentLost or ErrUnresponsive.
	Kind error
}

func (e *AgentError) Error() string {
	at := "no status since start"
	if e.Round >= 0 {
		at = fmt.Sprintf("last status at round %d", e.Round)
	}
	if errors.Is(e.Kind, ErrAgentLost) {
		who := fmt.Sprintf("agent %d", e.ID)
		if e.PID > 0 {
			who += fmt.Sprintf(" (pid %d)", e.PID)
		}
		if e.Round < 0 {
			return fmt.Sprintf("%s lost before its first round: %s", who, e.Msg)
		}
		return fmt.Sprintf("%s lost at round %d: %s", who, e.Round, e.Msg)
	}
	if errors.Is(e.Kind, ErrAgentDeparted) {
		return fmt.Sprintf("agent %d departed (%s): %s", e.ID, at, e.Msg)
	}
	if errors.Is(e.Kind, ErrUnresponsive) {
		return fmt.Sprintf("agent %d stopped answering (%s, %v ago)", e.ID, at, e.Silent.Round(time.Millisecond))
	}
	return fmt.Sprintf("agent %d failed (%s): %s", e.ID, at, e.Msg)
}

// Unwrap returns Kind.
func (e *AgentError) Unwrap() error { return e.Kind }
