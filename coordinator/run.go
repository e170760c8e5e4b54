package coordinator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/observe/bundle"
)

// Evaluator turns the reports of one round, indexed by agent id, into the
// run's metrics. The coordinator sets Metrics.Round itself.
type Evaluator interface {
	Evaluate(reps []consensus.Report) (observe.Metrics, error)
}

// EvaluatorFunc adapts a function to Evaluator, for instance
//
//	EvaluatorFunc(func(r []consensus.Report) (observe.Metrics, error) {
//		return observe.Measure(p, g, r)
//	})
type EvaluatorFunc func(reps []consensus.Report) (observe.Metrics, error)

// Evaluate returns f(reps).
func (f EvaluatorFunc) Evaluate(reps []consensus.Report) (observe.Metrics, error) { return f(reps) }

// Run coordinates one run over obs: it creates the results bundle
// OutDir/RunID (an existing one is an error), waits for every agent's
// ready status, publishes Start, measures each round all agents have
// reported with ev, and ends when every agent has sent its final status,
// publishing Stop first if a tolerance is met, the run times out, an agent
// fails or stops answering, or ctx is cancelled. Once the bundle exists,
// Run always writes final.json and summary.json and returns the Summary;
// the error is non-nil when the run failed (see the Err* values and
// AgentError).
func Run(ctx context.Context, cfg Config, obs node.Observer, ev Evaluator) (*Summary, error) {
	if obs == nil || ev == nil {
		return nil, errors.New("coordinator: nil observer or evaluator")
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		stopEarly(obs, cfg.Logger, err)
		return nil, fmt.Errorf("coordinator: %w", err)
	}
	b, err := bundle.Create(cfg.OutDir, cfg.RunID, cfg.Scenario, cfg.Measures, cfg.Resume)
	if err != nil {
		stopEarly(obs, cfg.Logger, err)
		return nil, fmt.Errorf("coordinator: run %s: %w", cfg.RunID, err)
	}
	r := newRun(cfg, obs, ev, b)
	r.execute(ctx)
	end := time.Now()
	if err := b.WriteFinal(r.finalIterates()); err != nil {
		r.fail(StopError, err)
	}
	if err := writeArtefacts(b, cfg, r.lastReports()); err != nil {
		r.fail(StopError, err)
	}
	if err := b.Close(); err != nil {
		r.fail(StopError, err)
	}
	sum := r.summary(end)
	if err := b.WriteSummary(sum); err != nil {
		return sum, fmt.Errorf("coordinator: run %s: %w", cfg.RunID, errors.Join(r.failure, err))
	}
	if r.failure != nil {
		return sum, fmt.Errorf("coordinator: run %s: %w", cfg.RunID, r.failure)
	}
	return sum, nil
}

// stopEarly tells agents that may be waiting for Start that no run comes.
func stopEarly(obs node.Observer, log hclog.Logger, err error) {
	if cerr := obs.Control(node.EncodeControl(node.Control{Kind: node.ControlStop, Reason: err.Error()})); cerr != nil {
		log.Warn("publish stop", "err", cerr)
	}
}

// agentState is where an agent is in the run, as the coordinator sees it.
type agentState int

const (
	agentLive agentState = iota
	agentFinished
	agentFailed
	agentSilent
	agentDeparted // crashed for good; the run goes on without it
)

// agent is what the coordinator knows of one agent.
type agent struct {
	ready     bool
	state     agentState
	lastSeen  time.Time
	lastRound int       // last round reported, -1 if none
	at        int       // round of the last heartbeat, -1 if none
	movedAt   time.Time // when max(at, lastRound) last grew (start: the run's start)
	pid       int       // process id from the heartbeats, 0 if unknown
	traffic   node.Traffic
	last      *consensus.Report // latest report, for final.json
}

// pendingRound gathers the reports of one round until all agents sent one.
type pendingRound struct {
	reps []consensus.Report
	// traffic holds each agent's counters from its status of the round.
	traffic []node.Traffic
	have    []bool
	count   int
}

// run is the state of one Run; it lives in a single goroutine.
type run struct {
	cfg Config
	obs node.Observer
	ev  Evaluator
	log hclog.Logger
	b   *bundle.Writer
	rec *Recorder

	agents    []agent
	nLive     int // agents in state agentLive
	nDeparted int // agents in state agentDeparted
	nReady    int // agents whose ready status came
	// further counts the failures after the first; lastFurther is the
	// latest (see fail).
	further     int
	lastFurther error
	pending     map[int]*pendingRound
	lastRow     int // round of the last row, -1 if none

	statusMalformed int64
	// mismatch is the first ready status whose scenario is not the
	// run's (Config.ScenarioCheck), as an error.
	mismatch error
	faults   []Fault
	failure  error
	cause    string

	begin, started time.Time
	startSent      bool
	stopSent       bool
}

func newRun(cfg Config, obs node.Observer, ev Evaluator, b *bundle.Writer) *run {
	r := &run{
		cfg: cfg, obs: obs, ev: ev, b: b, rec: NewRecorder(b, cfg),
		log:     cfg.Logger.With("run", cfg.RunID),
		agents:  make([]agent, cfg.N),
		nLive:   cfg.N,
		pending: make(map[int]*pendingRound),
		lastRow: -1,
		begin:   time.Now(),
	}
	for i := range r.agents {
		r.agents[i].lastRound = -1
		r.agents[i].at = -1
	}
	r.rec.describe = r.progress
	return r
}

// execute runs the ready, start and observation phases.
func (r *run) execute(ctx context.Context) {
	var timeout <-chan time.Time
	if r.cfg.Timeout > 0 {
		t := time.NewTimer(r.cfg.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	defer r.heartbeat()()
	defer r.logFurther()
	if !r.awaitReady(ctx, timeout) {
		return
	}
	r.started = time.Now()
	for i := range r.agents {
		r.agents[i].lastSeen = r.started
		r.agents[i].movedAt = r.started
	}
	start := node.Control{Kind: node.ControlStart}
	if c := r.cfg.ScenarioCheck; c != nil {
		fp := c.Fingerprint()
		start.Scenario = hex.EncodeToString(fp[:])
	}
	if err := r.obs.Control(node.EncodeControl(start)); err != nil {
		r.fail(StopError, fmt.Errorf("publish start: %w", err))
		return
	}
	r.startSent = true
	if r.cfg.Resume {
		r.log.Info("run resumed: replaying its statuses", "agents", r.cfg.N, "rounds", r.cfg.Rounds)
	} else {
		r.log.Info("run started", "agents", r.cfg.N, "rounds", r.cfg.Rounds)
	}
	r.observe(ctx, timeout)
}

// awaitReady waits for a ready status from every agent. A run whose
// agents do not all hold the coordinator's scenario is refused then (or
// at the ready timeout): an agent subscribes to the controls before its
// ready status, so every agent hears the refusal.
func (r *run) awaitReady(ctx context.Context, timeout <-chan time.Time) bool {
	t := time.NewTimer(r.cfg.ReadyTimeout)
	defer t.Stop()
	for r.nReady < len(r.agents) {
		select {
		case <-ctx.Done():
			r.fail(StopInterrupted, fmt.Errorf("interrupted while waiting for agents %s: %w", ids(r.notReady()), ctx.Err()))
			return false
		case <-timeout:
			r.fail(StopTimeout, fmt.Errorf("%w after %v while waiting for agents %s", ErrTimeout, r.cfg.Timeout, ids(r.notReady())))
			return false
		case <-t.C:
			if r.mismatch != nil {
				r.refuse(r.mismatch)
				return false
			}
			r.fail(StopNotReady, fmt.Errorf("%w: none for %v with %d of %d ready, missing %s", ErrNotReady, r.cfg.ReadyTimeout, r.nReady, len(r.agents), ids(r.notReady())))
			return false
		case l := <-r.cfg.Lost:
			r.lose(l)
			if r.failure != nil {
				return false
			}
		case f, ok := <-r.obs.Statuses():
			if !ok {
				r.fail(StopError, ErrObserverClosed)
				return false
			}
			before := r.nReady
			r.ingest(f, time.Now())
			if r.failure != nil {
				return false
			}
			if r.nReady > before {
				t.Reset(r.cfg.ReadyTimeout)
			}
		}
	}
	if r.mismatch != nil {
		r.refuse(r.mismatch)
		return false
	}
	return true
}

// observe handles statuses until no agent is live.
func (r *run) observe(ctx context.Context, timeout <-chan time.Time) {
	tick := time.NewTicker(checkPeriod(r.cfg.AgentTimeout))
	defer tick.Stop()
	var drain *time.Timer
	defer func() {
		if drain != nil {
			drain.Stop()
		}
	}()
	var drainC <-chan time.Time
	for r.live() > 0 {
		if r.stopSent && drain == nil {
			drain = time.NewTimer(r.cfg.AgentTimeout)
			drainC = drain.C
		}
		select {
		case <-ctx.Done():
			r.fail(StopInterrupted, fmt.Errorf("interrupted: %w", ctx.Err()))
			return
		case <-timeout:
			timeout = nil
			r.fail(StopTimeout, fmt.Errorf("%w after %v", ErrTimeout, r.cfg.Timeout))
		case <-drainC:
			r.abandon()
			return
		case now := <-tick.C:
			r.checkSilence(now)
		case l := <-r.cfg.Lost:
			r.lose(l)
		case f, ok := <-r.obs.Statuses():
			if !ok {
				r.fail(StopError, ErrObserverClosed)
				return
			}
			r.ingest(f, time.Now())
		}
	}
}

// checkPeriod is how often silence is checked: a quarter of the agent
// timeout, within [1ms, 1s].
func checkPeriod(agentTimeout time.Duration) time.Duration {
	return min(max(agentTimeout/4, time.Millisecond), time.Second)
}

// ingest handles one status frame.
func (r *run) ingest(frame []byte, now time.Time) {
	s, err := node.DecodeStatus(frame)
	if err != nil {
		r.malformed(err)
		return
	}
	if s.ID < 0 || s.ID >= r.cfg.N {
		r.malformed(fmt.Errorf("status of agent %d in a run of agents 0..%d", s.ID, r.cfg.N-1))
		return
	}
	report := s.Kind == node.StatusProgress || s.Kind == node.StatusFinal
	if report && (s.Report.ID != s.ID || s.Report.Round < 0) {
		r.malformed(fmt.Errorf("agent %d sent a report of agent %d, round %d", s.ID, s.Report.ID, s.Report.Round))
		return
	}
	a := &r.agents[s.ID]
	if s.Kind == node.StatusAlive {
		r.alive(a, s, now)
		return
	}
	if a.state != agentLive {
		r.log.Debug("status after the agent ended", "agent", s.ID, "kind", s.Kind)
		return
	}
	a.lastSeen = now
	a.traffic = s.Traffic
	switch s.Kind {
	case node.StatusReady:
		if err := r.checkScenario(s); err != nil && r.mismatch == nil {
			// Refused once every agent is ready, so that all of them
			// hear why (see awaitReady).
			r.mismatch = err
		}
		if !a.ready {
			r.nReady++
		}
		a.ready = true
	case node.StatusProgress, node.StatusFinal:
		if !r.startSent {
			r.log.Warn("report before start dropped", "agent", s.ID, "kind", s.Kind, "round", s.Report.Round)
			return
		}
		a.advance(s.Report.Round, now)
		a.remember(s.Report)
		if s.Kind == node.StatusFinal && s.Stop != "" && !r.stopSent && r.failure == nil {
			r.fail(StopElsewhere, fmt.Errorf("%w: agent %d stopped after round %d (stop reason %q)", ErrStoppedElsewhere, s.ID, s.Report.Round, s.Stop))
		}
		if s.Kind == node.StatusFinal {
			r.end(a, agentFinished)
			r.log.Debug("agent finished", "agent", s.ID, "round", s.Report.Round)
		}
		r.collect(s.Report, s.Traffic)
	case node.StatusDeparted:
		r.depart(s)
	case node.StatusFailed:
		r.end(a, agentFailed)
		err := &AgentError{ID: s.ID, Round: a.lastRound, Msg: s.Err, Kind: ErrAgentFailed}
		r.faults = append(r.faults, Fault{Agent: s.ID, Kind: "failed", Round: a.lastRound, Message: s.Err})
		r.fail(StopAgentFailed, err)
	}
}

// malformed counts and drops a bad status frame.
func (r *run) malformed(err error) {
	r.statusMalformed++
	r.log.Warn("dropped malformed status frame", "err", err, "count", r.statusMalformed)
}

// collect adds a report, and the traffic counters of the status carrying
// it, to its round and measures the round once every agent has reported
// it. Rounds older than the last measured one are dropped: agents that
// stopped at different rounds never complete them.
func (r *run) collect(rep consensus.Report, tr node.Traffic) {
	if rep.Round <= r.lastRow {
		return
	}
	pr := r.pending[rep.Round]
	if pr == nil {
		pr = &pendingRound{reps: make([]consensus.Report, r.cfg.N), traffic: make([]node.Traffic, r.cfg.N), have: make([]bool, r.cfg.N)}
		r.pending[rep.Round] = pr
	}
	if !pr.have[rep.ID] {
		pr.have[rep.ID] = true
		pr.count++
	}
	pr.reps[rep.ID] = rep
	pr.traffic[rep.ID] = tr
	if !r.complete(pr) {
		return
	}
	r.measurePending(rep.Round)
}

// complete reports whether every agent has reported pr's round, or has
// departed without reporting it.
func (r *run) complete(pr *pendingRound) bool {
	if pr.count == r.cfg.N {
		return true
	}
	if pr.count+r.nDeparted < r.cfg.N {
		return false // each missing report is of a distinct agent
	}
	for id, have := range pr.have {
		if !have && r.agents[id].state != agentDeparted {
			return false
		}
	}
	return true
}

// measurePending measures round t, whose reports are complete, and drops
// the pending rounds up to it. The entries of departed agents that did
// not report t are left zero, with a nil X (see Config.ContinueOnDeparture),
// and their traffic is their last known counters.
func (r *run) measurePending(t int) {
	pr := r.pending[t]
	for id, have := range pr.have {
		if !have {
			pr.reps[id] = consensus.Report{ID: id, Round: t}
			pr.traffic[id] = r.agents[id].traffic
		}
	}
	for k := range r.pending {
		if k <= t {
			delete(r.pending, k)
		}
	}
	r.measure(t, pr)
}

// depart handles the departed status of an agent that crashed for good:
// per ContinueOnDeparture the run goes on over the remaining agents, and
// the pending rounds the departure completes are measured, or it ends
// with ErrAgentDeparted.
func (r *run) depart(s node.Status) {
	a := &r.agents[s.ID]
	r.end(a, agentDeparted)
	err := &AgentError{ID: s.ID, Round: a.lastRound, Msg: s.Err, Kind: ErrAgentDeparted}
	r.faults = append(r.faults, Fault{Agent: s.ID, Kind: "departed", Round: a.lastRound, Message: s.Err})
	if !r.cfg.ContinueOnDeparture {
		r.fail(StopDeparted, err)
		return
	}
	r.log.Warn("agent departed; the run continues without it", "agent", s.ID, "round", a.lastRound, "reason", s.Err)
	if r.startSent && s.Report.ID == s.ID && s.Report.Round >= 0 {
		a.lastRound = max(a.lastRound, s.Report.Round)
		r.collect(s.Report, s.Traffic)
	}
	r.measureCompleted()
}

// measureCompleted measures, in ascending order, the pending rounds a
// departure has completed.
func (r *run) measureCompleted() {
	rounds := make([]int, 0, len(r.pending))
	for t := range r.pending {
		rounds = append(rounds, t)
	}
	slices.Sort(rounds)
	for _, t := range rounds {
		if pr := r.pending[t]; pr != nil && r.complete(pr) {
			r.measurePending(t)
		}
	}
}

// measure evaluates round t from its complete reports pr and records its
// row (Recorder): the bundle, the progress hook, the divergence and
// tolerance tests.
func (r *run) measure(t int, pr *pendingRound) {
	m, err := r.ev.Evaluate(pr.reps)
	if err != nil {
		r.fail(StopError, fmt.Errorf("measure round %d: %w", t, err))
		return
	}
	m.Round = t
	r.lastRow = t
	row := Row{Metrics: m, Elapsed: time.Since(r.started)}
	for _, tr := range pr.traffic {
		row.Msgs += tr.MsgsSent
		row.Bytes += tr.BytesSent
	}
	done, err := r.rec.Record(row)
	switch {
	case errors.Is(err, ErrDiverged):
		r.fail(StopDiverged, err)
	case err != nil:
		r.fail(StopError, err)
	case done && !r.stopSent:
		r.cause = StopTolerance
		r.log.Info("tolerance reached", "round", t, "consensus_err", m.ConsensusErr, "opt_gap", m.OptGap)
		r.stop(fmt.Sprintf("tolerance reached at round %d", t))
	}
}

// progress describes the run after row was written: the row and the
// agents' latest counters.
func (r *run) progress(row Row) Progress {
	p := r.cfg.progressOf(row)
	if len(r.agents) <= ProgressAgentsMax {
		p.Agents = make([]AgentProgress, len(r.agents))
	}
	for id := range r.agents {
		a := &r.agents[id]
		p.Traffic.addCounters(a.traffic)
		if p.Agents != nil {
			p.Agents[id] = AgentProgress{Round: a.lastRound, Traffic: a.traffic}
		}
	}
	r.addOwnDrops(&p.Traffic)
	p.Traffic.RefusedBySubject = nil
	return p
}

// addOwnDrops adds the status frames the coordinator dropped and those
// its observer refused to t.
func (r *run) addOwnDrops(t *TrafficTotals) {
	t.StatusMalformed = r.statusMalformed
	if sr, ok := r.obs.(node.StatsReporter); ok {
		st := sr.Stats()
		t.addDrops(st.Refused, st.Malformed, st.Overflow, st.SlowConsumer)
	}
}

// checkSilence names every live agent silent for longer than AgentTimeout.
func (r *run) checkSilence(now time.Time) {
	for id := range r.agents {
		a := &r.agents[id]
		silent := now.Sub(a.lastSeen)
		if a.state != agentLive || silent <= r.cfg.AgentTimeout {
			continue
		}
		if r.cfg.Heartbeat > 0 {
			r.lose(Lost{ID: id, Reason: fmt.Sprintf("no heartbeat for %v (deadline %v)", silent.Round(time.Millisecond), r.cfg.AgentTimeout)})
			continue
		}
		r.end(a, agentSilent)
		err := &AgentError{ID: id, Round: a.lastRound, Silent: silent, Kind: ErrUnresponsive}
		r.faults = append(r.faults, Fault{Agent: id, Kind: "unresponsive", Round: a.lastRound, Message: err.Error()})
		r.fail(StopUnresponsive, err)
	}
	if r.cfg.Heartbeat > 0 && r.startSent {
		r.checkStalled(now)
	}
}

// checkStalled names an agent that still sends heartbeats but has not
// advanced a round for longer than AgentTimeout while another live agent
// is past its round: a hung agent, alive to the liveness check.
func (r *run) checkStalled(now time.Time) {
	front := -1
	for id := range r.agents {
		if a := &r.agents[id]; a.state == agentLive {
			front = max(front, a.at, a.lastRound)
		}
	}
	for id := range r.agents {
		a := &r.agents[id]
		round := max(a.at, a.lastRound)
		stalled := now.Sub(a.movedAt)
		if a.state != agentLive || round >= front || stalled <= r.cfg.AgentTimeout {
			continue
		}
		r.end(a, agentSilent)
		err := &AgentError{ID: id, Round: round, Silent: stalled, Kind: ErrUnresponsive}
		r.faults = append(r.faults, Fault{Agent: id, Kind: "unresponsive", Round: round, Message: err.Error()})
		r.fail(StopUnresponsive, err)
		return
	}
}

// advance records that the agent reported round t at now.
func (a *agent) advance(t int, now time.Time) {
	if t > max(a.at, a.lastRound) {
		a.movedAt = now
	}
	a.lastRound = max(a.lastRound, t)
}

// abandon gives up on the agents still live AgentTimeout after Stop.
func (r *run) abandon() {
	var left []int
	for id := range r.agents {
		a := &r.agents[id]
		if a.state != agentLive {
			continue
		}
		r.end(a, agentSilent)
		left = append(left, id)
		r.faults = append(r.faults, Fault{Agent: id, Kind: "unresponsive", Round: a.lastRound,
			Message: fmt.Sprintf("no final status within %v of the stop control", r.cfg.AgentTimeout)})
	}
	who := "agents"
	if len(left) == 1 {
		who = "agent"
	}
	r.fail(StopUnresponsive, fmt.Errorf("%w: %s %s sent no final status within %v of the stop control", ErrUnresponsive, who, ids(left), r.cfg.AgentTimeout))
}

// loggedFailures is how many failures after the first are logged one by
// one; the others are counted and logged as one line when the run ends
// (a run of 10^5 agents that loses them all would log 10^5 lines).
const loggedFailures = 10

// fail records the first failure of the run and stops the agents.
func (r *run) fail(cause string, err error) {
	switch {
	case r.failure == nil:
		r.failure, r.cause = err, cause
		r.log.Error("run failed", "err", err)
	case r.further < loggedFailures:
		r.further++
		r.log.Warn("further failure", "err", err)
	default:
		r.further++
		r.lastFurther = err
	}
	r.stop(err.Error())
}

// logFurther logs the count of the further failures fail did not log.
func (r *run) logFurther() {
	if n := r.further - loggedFailures; n > 0 {
		r.log.Warn("further failures not logged one by one", "count", n, "last", r.lastFurther)
	}
}

// checkScenario compares the scenario of the ready status s with the
// run's (Config.ScenarioCheck).
func (r *run) checkScenario(s node.Status) error {
	c := r.cfg.ScenarioCheck
	if c == nil {
		return nil
	}
	if s.Scenario == "" {
		return fmt.Errorf("%w: agent %d announced no scenario (an agent process of another consim version?)", ErrScenarioMismatch, s.ID)
	}
	if sha256.Sum256([]byte(s.Scenario)) == c.Fingerprint() {
		return nil
	}
	return fmt.Errorf("%w: agent %d runs another scenario than the coordinator: %s (give every process the same scenario file and --set overrides)",
		ErrScenarioMismatch, s.ID, c.Differences([]byte(s.Scenario), "the coordinator", "agent "+strconv.Itoa(s.ID)))
}

// refuse ends the run before its start on err, with a refuse control
// (instead of a stop) that tells the agents why.
func (r *run) refuse(err error) {
	if !r.stopSent {
		r.stopSent = true
		if cerr := r.obs.Control(node.EncodeControl(node.Control{Kind: node.ControlRefuse, Reason: err.Error()})); cerr != nil {
			r.log.Warn("publish refuse", "err", cerr)
		}
	}
	r.fail(StopScenario, err)
}

// stop publishes the Stop control once.
func (r *run) stop(reason string) {
	if r.stopSent {
		return
	}
	r.stopSent = true
	if err := r.obs.Control(node.EncodeControl(node.Control{Kind: node.ControlStop, Reason: reason})); err != nil {
		r.log.Warn("publish stop", "err", err)
	}
}

// notReady lists the agents without a ready status, ascending.
func (r *run) notReady() []int {
	var out []int
	for id, a := range r.agents {
		if !a.ready {
			out = append(out, id)
		}
	}
	return out
}

// live counts the agents that have not finished, failed or gone silent.
func (r *run) live() int { return r.nLive }

// end moves a live agent to the final state st, keeping the count of live
// agents (a state other than agentLive is final).
func (r *run) end(a *agent, st agentState) {
	if a.state == agentLive && st != agentLive {
		r.nLive--
	}
	if st == agentDeparted && a.state != agentDeparted {
		r.nDeparted++
	}
	a.state = st
}

// summary assembles the Summary of the run ending at end.
func (r *run) summary(end time.Time) *Summary {
	s := &Summary{
		RunID:         r.cfg.RunID,
		Status:        StatusOK,
		StopCause:     StopRounds,
		Agents:        r.cfg.N,
		RoundsPlanned: r.cfg.Rounds,
		ReportEvery:   r.cfg.ReportEvery,
		Faults:        r.faults,
		StartedAt:     r.begin,
		Params:        ParamsOf(r.cfg.Params),
		Meta:          r.cfg.Meta,
		Bundle:        r.b.Dir(),
		Resumed:       r.cfg.Resume,
	}
	r.rec.Summarize(s)
	if r.cause != "" {
		s.StopCause = r.cause
	}
	if r.failure != nil {
		s.Status, s.Reason = StatusFailed, r.failure.Error()
		switch {
		case errors.Is(r.failure, ErrStoppedElsewhere):
			s.Status = StatusStopped
		case errors.Is(r.failure, ErrDiverged):
			s.Status = StatusDiverged
		}
	}
	rounds, counted := -1, false
	for id, a := range r.agents {
		s.Traffic.addTraffic(id, a.traffic)
		if a.state == agentDeparted {
			continue // the rounds of the others count
		}
		if !counted || a.lastRound < rounds {
			rounds, counted = a.lastRound, true
		}
	}
	s.Rounds = max(rounds, 0)
	r.addOwnDrops(&s.Traffic)
	if r.startSent {
		s.ReadySeconds = r.started.Sub(r.begin).Seconds()
		wall := end.Sub(r.started)
		s.WallSeconds = wall.Seconds()
		s.RoundsPerSec = perSecond(s.Rounds, wall)
	} else {
		s.ReadySeconds = end.Sub(r.begin).Seconds()
	}
	return s
}

// perSecond returns rounds per second of wall time d, 0 for d <= 0.
func perSecond(rounds int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(rounds) / d.Seconds()
}

// ids formats agent ids as "1, 3": the first 20, then how many more.
func ids(list []int) string {
	const shown = 20
	parts := make([]string, 0, min(len(list), shown))
	for _, id := range list[:min(len(list), shown)] {
		parts = append(parts, strconv.Itoa(id))
	}
	s := strings.Join(parts, ", ")
	if len(list) > shown {
		s = fmt.Sprintf("%s and %d more (%d in all)", s, len(list)-shown, len(list))
	}
	return s
}
