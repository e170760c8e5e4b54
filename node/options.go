package node

import (
	"fmt"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/hashicorp/go-hclog"
)

// Defaults of Options.
const (
	DefaultPhaseDeadline = 5 * time.Second
	DefaultStartTimeout  = 60 * time.Second
	// DefaultFutureWindow is W, the rounds ahead of its own that an agent
	// buffers frames for. A peer that needs this agent's frame in a round
	// cannot pass that round without it, but on a random graph a peer
	// whose edge to this agent is absent for s rounds in a row waits for
	// nothing from it and may run s rounds ahead: at presence p the chance
	// of s consecutive absences is (1-p)^s, below 1e-24 for s = 256 at
	// p = 0.2. Frames further ahead are dropped and counted (a dropout).
	DefaultFutureWindow = 256
	// DefaultFutureCap bounds the future frames one agent buffers, whatever
	// their rounds, so that a flood of well-formed frames costs bounded
	// memory: a frame beyond it is dropped and counted (Traffic.Overflow).
	// Above 16,384 agents the bound is 2N instead: an all-reduce's root
	// may get the terms of all N agents before it reaches their phase.
	DefaultFutureCap = 1 << 15
	// DefaultFutureFrames is F, the future frames one agent buffers per
	// sender, so that one flooding peer cannot fill DefaultFutureCap for
	// the others. A peer that exchanges with this agent in both directions
	// waits for it in the round in which it sends, so it has at most a
	// round's phases buffered here; F = W also covers a peer that only
	// sends, one frame per round.
	DefaultFutureFrames = DefaultFutureWindow
)

// Options configure the round loop of one agent (Run) or of a group of
// agents (RunAll). The zero value of a field selects its documented
// default; N and Rounds have none.
type Options struct {
	// N is the number of agents of the run, ids 0..N-1; it sizes the
	// all-reduce (N terms, fewer departed agents). RunAll defaults it to
	// the number of agents it runs.
	N int
	// Rounds is the number of rounds to run; it must be positive.
	Rounds int
	// ReportEvery is k: a progress status follows every k-th completed
	// round. Zero (the default) publishes only the ready and final
	// statuses.
	ReportEvery int
	// PhaseDeadline bounds the wait for a phase's expected messages and
	// all-reduce terms, measured from the end of the phase's sends. A
	// message missing at the deadline is a dropout. In a phase with an
	// all-reduce, the agents other than the root wait twice the deadline
	// for the root's sum, so the root has its own deadline to gather the
	// terms first. Default 5 s. Under injected loss every lost message
	// costs its receiver this whole wait, so such runs want a deadline of
	// a few milliseconds.
	PhaseDeadline time.Duration
	// StartTimeout bounds the wait for the coordinator's start after the
	// ready status. Default 60 s.
	StartTimeout time.Duration
	// ReadyRepeat, if positive, is the period at which the ready status
	// is published again until the coordinator's start (or stop) arrives,
	// for agents that may start before the coordinator listens (agent
	// processes on several hosts); the coordinator counts a repeated
	// ready once. Zero (the default) publishes ready once.
	ReadyRepeat time.Duration
	// FutureWindow is W: frames that reach an agent in round t for a round
	// after t+W are dropped on arrival (on NATS before any queue) and
	// counted (Traffic.Ahead); a needed one is a dropout. Default
	// DefaultFutureWindow. On a time-varying graph a peer whose edges to
	// this agent stay absent for s rounds may come back s rounds ahead, so
	// W must exceed the longest such gap, or the run loses messages at
	// times that depend on scheduling.
	FutureWindow int
	// FutureFrames is F: an agent keeps at most F frames of later phases
	// per sender; more are dropped and counted (Traffic.Ahead). Default
	// DefaultFutureFrames.
	FutureFrames int
	// Heartbeat, if positive, is the period of the agent's alive
	// statuses, published from a goroutine of their own whatever the round
	// rate and ReportEvery (see liveness.go). Zero (the default) publishes
	// none. HeartbeatPeriod gives a period for a liveness deadline.
	Heartbeat time.Duration
	// CoordinatorTimeout, if positive, is how long the agent runs without
	// any control from the coordinator (whose alive controls come every
	// coordinator.Config.Heartbeat) once it heard the first: after that
	// long the run fails with an error wrapping ErrCoordinatorLost. Zero
	// (the default) never gives up on the coordinator.
	CoordinatorTimeout time.Duration
	// Scenario, if set, is the canonical form of the resolved scenario
	// the agent runs (scenarios.Scenario.Canonical), for runs whose
	// processes each load their own copy: the agent's ready statuses
	// carry it, so that the coordinator can refuse a run whose processes
	// do not share one scenario (a refuse control: Run fails with
	// ErrRunRefused), and a start control that names another fingerprint
	// (ScenarioFingerprint) fails Run with ErrScenarioMismatch. Nil: no
	// check (the agents of one process share one scenario).
	Scenario []byte
	// Logger receives the runtime's structured logs. Default: discard.
	Logger hclog.Logger
	// Faults are the injected fault models; the zero value injects none.
	Faults Faults

	// Workers is W, the number of oracle workers that evaluate the
	// agents' Outbox.Evals (see the package doc, "Roles"). Zero (the
	// default) evaluates in each agent's own goroutine with an oracle of
	// its own. With W > 0, on an endpoint that reaches remote workers
	// (NATS) the requests go to the run's NATS queue group in chunks, and
	// RunAll starts the W workers when Oracle is set (otherwise they are
	// expected to run elsewhere, see OracleWorker); on the channel
	// transport each batch is split into at most W contiguous chunks
	// evaluated by W goroutines (shared by the agents of a RunAll).
	Workers int
	// Oracle makes the oracle of one evaluating goroutine: Oracle(w) for
	// worker w in 0..W-1, or Oracle(0) in each agent that evaluates
	// itself (W = 0). Each oracle is used by one goroutine at a time. It
	// is needed wherever evaluations run in this process; nil when no
	// agent asks for evaluations, or when they all go to remote workers.
	Oracle func(worker int) consensus.Oracle
	// EvalDeadline bounds the wait for the results of a phase's
	// evaluations from remote workers, measured from their publication.
	// Chunks still unanswered then are published once more, with the
	// same bound; chunks unanswered after that are counted
	// (Traffic.EvalMissing) and fail the agent. Default PhaseDeadline.
	EvalDeadline time.Duration

	// pool is the oracle worker pool RunAll shares between its agents on
	// transports without remote workers; nil makes each Run start its own.
	pool *evalPool
	// clock is the liveness clock RunAll shares between its agents; nil
	// makes each Run start its own.
	clock *liveClock
	// gate bounds the agents of a RunAll that run at once; nil: no bound.
	gate *gate
}

// resolve validates o and fills in the defaults.
func (o Options) resolve() (Options, error) {
	if o.N < 1 {
		return o, fmt.Errorf("node: options: N = %d agents: need at least 1", o.N)
	}
	if o.Rounds < 1 {
		return o, fmt.Errorf("node: options: Rounds = %d: need at least 1", o.Rounds)
	}
	if uint64(o.Rounds) > MaxFrameRound {
		return o, fmt.Errorf("node: options: Rounds = %d exceeds the frame limit %d", o.Rounds, uint64(MaxFrameRound))
	}
	if o.ReportEvery < 0 {
		return o, fmt.Errorf("node: options: ReportEvery = %d: must not be negative", o.ReportEvery)
	}
	if o.PhaseDeadline < 0 || o.StartTimeout < 0 || o.ReadyRepeat < 0 || o.EvalDeadline < 0 || o.Heartbeat < 0 || o.CoordinatorTimeout < 0 {
		return o, fmt.Errorf("node: options: PhaseDeadline %v, StartTimeout %v, ReadyRepeat %v, EvalDeadline %v, Heartbeat %v and CoordinatorTimeout %v must not be negative",
			o.PhaseDeadline, o.StartTimeout, o.ReadyRepeat, o.EvalDeadline, o.Heartbeat, o.CoordinatorTimeout)
	}
	if o.FutureWindow < 0 || o.FutureFrames < 0 {
		return o, fmt.Errorf("node: options: FutureWindow = %d, FutureFrames = %d: must not be negative", o.FutureWindow, o.FutureFrames)
	}
	if o.Workers < 0 {
		return o, fmt.Errorf("node: options: Workers = %d: must not be negative", o.Workers)
	}
	if err := o.Faults.validate(o.N, o.Rounds); err != nil {
		return o, err
	}
	if o.PhaseDeadline == 0 {
		o.PhaseDeadline = DefaultPhaseDeadline
	}
	if o.FutureWindow == 0 {
		o.FutureWindow = DefaultFutureWindow
	}
	if o.FutureFrames == 0 {
		o.FutureFrames = DefaultFutureFrames
	}
	if o.EvalDeadline == 0 {
		o.EvalDeadline = o.PhaseDeadline
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	return o, nil
}
