package coordinator

import (
	"time"

	"github.com/consim/consim/node"
)

// Liveness (Config.Heartbeat, Config.Lost). With a heartbeat period the
// coordinator publishes an alive control every period for as long as Run
// runs, so agents that stop hearing it give up (node.ErrCoordinatorLost);
// the agents' alive statuses keep them live whatever their round rate and
// report period, and an agent silent for AgentTimeout is lost. A lost
// agent is named with its process id and the round it was in. Per
// ContinueOnDeparture the run then ends (status failed, stop cause
// agent_lost, ErrAgentLost) or goes on without it: the agent counts as
// departed, and a lost control tells the others to stop waiting for it.

// Lost is an agent known to be gone, e.g. a supervisor saw its process
// exit (see Config.Lost).
type Lost struct {
	// ID is the agent.
	ID int
	// PID is its process id, 0 if unknown.
	PID int
	// Reason says how it was lost ("process exited: signal: killed").
	Reason string
}

// heartbeat starts publishing alive controls every Config.Heartbeat and
// returns the function that stops it; without a period it does nothing.
func (r *run) heartbeat() (stop func()) {
	if r.cfg.Heartbeat <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	ended := make(chan struct{})
	frame := node.EncodeControl(node.Control{Kind: node.ControlAlive})
	go func() {
		defer close(ended)
		t := time.NewTicker(r.cfg.Heartbeat)
		defer t.Stop()
		for {
			if err := r.obs.Control(frame); err != nil {
				r.log.Debug("publish heartbeat", "err", err)
			}
			select {
			case <-t.C:
			case <-done:
				return
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}

// alive handles a heartbeat of agent a.
func (r *run) alive(a *agent, s node.Status, now time.Time) {
	if a.state != agentLive {
		return
	}
	a.lastSeen = now
	if s.Report.Round > max(a.at, a.lastRound) {
		a.movedAt = now
	}
	a.at = max(a.at, s.Report.Round)
	if s.PID > 0 {
		a.pid = s.PID
	}
}

// lose handles agent l.ID as lost: the run fails with ErrAgentLost, or,
// with ContinueOnDeparture once the run has started, goes on without it.
// Agents that already ended are left as they are.
func (r *run) lose(l Lost) {
	if l.ID < 0 || l.ID >= r.cfg.N {
		r.log.Warn("lost notice for an agent outside the run", "agent", l.ID, "agents", r.cfg.N)
		return
	}
	a := &r.agents[l.ID]
	if a.state != agentLive {
		return
	}
	if l.PID == 0 {
		l.PID = a.pid
	}
	round := max(a.at, a.lastRound)
	err := &AgentError{ID: l.ID, Round: round, PID: l.PID, Msg: l.Reason, Kind: ErrAgentLost}
	r.faults = append(r.faults, Fault{Agent: l.ID, Kind: "lost", Round: round, Message: err.Error()})
	if !r.cfg.ContinueOnDeparture || !r.startSent {
		r.end(a, agentSilent)
		r.fail(StopLost, err)
		return
	}
	r.end(a, agentDeparted)
	r.log.Warn("agent lost; the run continues without it", "agent", l.ID, "pid", l.PID, "round", round, "reason", l.Reason)
	if cerr := r.obs.Control(node.EncodeControl(node.Control{Kind: node.ControlLost, Agent: l.ID})); cerr != nil {
		r.log.Warn("publish lost control", "agent", l.ID, "err", cerr)
	}
	r.measureCompleted()
}
