package node

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/engine"
	"github.com/hashicorp/go-hclog"
)

// Run drives agent a over endpoint ep until it has completed opts.Rounds
// rounds, the coordinator says stop, the agent fails or ctx ends: it
// publishes a ready status, waits for the start, then runs each phase of
// each round (send a.Send's outbox, collect the expected messages and
// reduce terms until they are in or PhaseDeadline passes, hand the inbox
// to a.Receive), publishing a progress status every ReportEvery rounds.
// docs/protocol.md ("The round loop") gives the whole protocol.
//
// The phase core (package engine) checks each outbox and builds each
// inbox: messages ascending by sender, missing senders ascending, reduce
// sums accumulated in ascending agent order, nil for an agent without a
// term. Hence agents with the same seed give bit-identical iterates under
// every transport, and under consensus/lockstep and stepped, when no
// message is missing. Inbox slices belong to the runtime and are reused
// in the next phase; Run never modifies a frame it reads, and endpoints
// must not keep a frame passed to Publish.
//
// Run returns nil after a final or departed status; the agent's error, a
// start timeout, a refusal of the run (ErrRunRefused, ErrScenarioMismatch),
// a closed endpoint or ctx.Err() otherwise, after a failed status. It
// does not close ep.
func Run(ctx context.Context, a consensus.Agent, ep Endpoint, opts Options) (err error) {
	o, err := opts.resolve()
	if err != nil {
		return err
	}
	if a == nil || ep == nil {
		return errors.New("node: run needs an agent and an endpoint")
	}
	id := a.ID()
	if id < 0 || id >= o.N {
		return fmt.Errorf("node: agent id %d outside 0..%d", id, o.N-1)
	}
	r := newRunner(a, ep, o)
	defer r.ev.close()
	defer r.warn.flush()
	if r.live = r.startLiveness(ctx); r.live != nil {
		ctx = r.live.ctx
		defer r.live.stop()
	}
	settleWait := time.Duration(0) // set once the last round is done
	if r.faults != nil {
		defer func() { r.faults.settle(settleWait) }()
	}
	if r.batch != nil {
		// A batch wait is a plain receive: cancellation wakes it.
		stopWake := context.AfterFunc(ctx, func() {
			r.cancelled.Store(true)
			r.batch.Wake()
		})
		defer stopWake()
	}
	if err := r.checkCrashes(); err != nil {
		return r.fail(err)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("node: agent %d panicked: %v", id, p)
			r.leave()
			r.publish(StatusFailed, consensus.Report{ID: id}, err)
		}
	}()

	r.publish(StatusReady, a.Report(), nil)
	stop, err := r.awaitStart(ctx)
	if err != nil {
		return r.fail(err)
	}
	if !stop {
		if !r.o.gate.enter(r.gateWake) {
			return r.fail(ctx.Err())
		}
		r.inGate = true
		defer func() {
			if r.inGate {
				r.o.gate.leave()
			}
		}()
	}
	if o.ReportEvery > 0 && !stop {
		// Round 0: the initial state, so the coordinator measures x_0.
		r.publish(StatusProgress, a.Report(), nil)
	}
	t := 0
	for ; t < o.Rounds && !stop; t++ {
		if c, ok := r.crashDue(t); ok {
			next, end, err := r.crash(ctx, t, c)
			switch {
			case err != nil:
				return r.fail(err)
			case end == crashDeparted:
				return nil
			case end == crashStopped:
				stop = true
			}
			if stop {
				break
			}
			if t = next; t >= o.Rounds {
				break
			}
		}
		if r.rounds != nil {
			r.rounds.setRound(t, o.FutureWindow)
		}
		r.live.setRound(t)
		if err := r.straggle(ctx, t); err != nil {
			return r.fail(err)
		}
		for ph := 0; ph < r.a.Phases(t) && !stop; ph++ {
			switch err := r.phase(ctx, t, ph); {
			case errors.Is(err, errStopInPhase):
				stop = true
			case err != nil:
				return r.fail(err)
			}
		}
		if stop {
			break
		}
		// A round that waited for nothing (no peer left to hear from)
		// never looked at ctx.
		if err := ctx.Err(); err != nil {
			return r.fail(err)
		}
		done := t + 1
		if o.ReportEvery > 0 && done%o.ReportEvery == 0 && done < o.Rounds {
			r.publish(StatusProgress, r.a.Report(), nil)
		}
		stop = r.stopRequested() || r.stopPending
	}
	if t < o.Rounds {
		// Stopped early: peers still in this round must not wait for us.
		// After the last round no peer has a phase left to wait in. A
		// stop control reaches every agent and wakes it in its phase
		// (see collect), so it needs no leave: N broadcast leaves would
		// cost N^2 frames (10^8 at 10^4 agents).
		if !r.stoppedByControl() {
			r.leave()
		}
	} else {
		// Frames of the last round still delayed may be awaited by peers.
		settleWait = o.PhaseDeadline
	}
	r.publish(StatusFinal, r.a.Report(), nil)
	if r.log.IsDebug() {
		r.log.Debug("agent finished", "stopped", stop, "dropouts", r.tr.Dropouts, "late", r.tr.Late)
	}
	return nil
}

// noLeave is the leave key of an agent that has not left.
const noLeave = math.MaxUint64

// leaveOf returns the leave key of agent j: the first phase it skips, or
// noLeave. Only agents that left have an entry, so an agent's memory
// grows with the departures it saw, not with N.
func (r *runner) leaveOf(j int) uint64 {
	if k, ok := r.leaveKey[j]; ok {
		return k
	}
	return noLeave
}

// phaseKey orders (round, phase) pairs: key(t, ph) < key(t', ph') iff
// (t, ph) precedes (t', ph') lexicographically.
func phaseKey(round, phase int) uint64 { return uint64(round)<<16 | uint64(phase) }

// runner is the state of one agent's round loop. All buffers are reused
// from phase to phase.
type runner struct {
	a   consensus.Agent
	ep  Endpoint
	o   Options
	id  int
	log hclog.Logger
	tr  Traffic

	inbox  <-chan []byte // frame by frame, when batch is nil
	batch  Batcher       // the endpoint's batch inbox, if it has one
	rounds roundTracker  // the endpoint's early drop of frames too far ahead, if any
	ahead  int64         // frames this loop dropped as too far ahead (Traffic.Ahead adds the endpoint's)
	// deadline is the current phase's deadline; timer fires at it (on
	// the batch path it wakes the agent, see wait).
	deadline time.Time
	sleep    *time.Timer   // a straggler's compute time
	taken    [][]byte      // frames of the last batch
	control  <-chan []byte // nil once closed
	timer    *time.Timer
	// need is the count of frames the current wait is for (see wait); 0
	// or 1: any frame.
	need int
	// fired is set when the timer fires (batch path), cancelled when ctx
	// ends: a wake-up costs no clock read unless the timer fired.
	fired, cancelled atomic.Bool
	// The batch path's timer state (see arm): the deadline of the current
	// wait in Unix ns, 0 when not waiting, whether the timer is set and
	// for when (Unix ns).
	tmu        sync.Mutex
	deadlineNs int64
	timerSet   bool
	timerAt    int64

	wbuf      []byte                     // encode buffer
	touched   byte                       // see touch
	owned     framePublisher             // ep, if it publishes without a copy
	envelope  envelope                   // ep, if its messages carry more than the frame
	one       [1]int                     // a destination list of one
	groups    []sendGroup                // the phase's distinct payloads
	sumTo     []int                      // destinations of a group reduce's sum
	leaveKey  map[int]uint64             // leaveKey[j]: first phase agent j skips (see leaveOf)
	future    [futureSlots][]futureFrame // frames of the next rounds' phases, a slot per round (see takeFuture)
	far       []futureFrame              // frames of later rounds
	farMin    int                        // least round in far
	futureBy  map[int]int32              // futureBy[j]: frames of agent j in future and far, while counting (see countFuture)
	countBy   bool                       // futureBy is kept (see countFuture)
	nFuture   int                        // frames in future
	futureCap int                        // bound of nFuture
	next      uint64                     // key of the first phase this agent has not sent
	left      bool
	sendErrs  int64
	// stopReason is the reason of the stop control that ended the run
	// early, for the final status; empty if none did.
	stopReason string
	// inGate: the agent holds a place of o.gate (see wait); gateWake
	// is its channel in the gate's queue.
	inGate   bool
	gateWake chan bool
	// stopControl is set once a stop control from the coordinator has
	// been applied; stopPending once one was found during a phase: the
	// agent waits for no more frames and stops at the end of the round.
	stopControl, stopPending bool
	// live is the heartbeat and coordinator watchdog; nil without.
	live *liveness
	// warn summarizes repeated warnings (see warnLimiter).
	warn *warnLimiter

	// State of the current phase.
	cur       uint64
	in        engine.Inbound    // the expected senders and their arrived messages
	waitMsgs  int               // expected senders still awaited (not departed)
	reduce    bool              // the phase has an all-reduce
	reduceLen int               // length of every term
	termGot   map[int]bool      // termGot[j]: term of agent j arrived (its own: true)
	terms     map[int][]float64 // terms[j]: term of agent j (buffers reused)
	waitTerms int               // terms still awaited
	sum       []float64         // the reduce sum
	acc       engine.Sum        // the root's accumulation of sum
	root      int               // the agent that sums the phase's terms
	sumGot    bool              // a non-root agent has the root's sum
	sumSent   bool              // the root has broadcast the sum of the phase
	early     []float64         // a sum from an agent that is not (yet) the root
	earlyFrom int               // its sender, -1 if none
	closed    bool              // the phase's inbox is delivered: its frames are late
	group     groupState        // members of the phase's reduce
	ev        evalState         // the phase's evaluations

	// Fault models (see Faults).
	faults  *faultSender // loss and delay of data frames; nil without
	crashes []Crash      // this agent's crashes still ahead, ascending
	stale   [][]staleMsg // stale[ph][j]: latest message of j in phase ph
}

func newRunner(a consensus.Agent, ep Endpoint, o Options) *runner {
	id := a.ID()
	r := &runner{
		a:         a,
		ep:        ep,
		o:         o,
		id:        id,
		log:       o.Logger.With("agent", id),
		control:   ep.Control(),
		earlyFrom: -1,
		warn:      newWarnLimiter(o.Logger.With("agent", id), DefaultWarnPeriod),
		futureCap: max(min(16*o.N*(o.FutureWindow+1), DefaultFutureCap), 2*o.N),
	}
	if o.Faults.injects() {
		r.faults = newFaultSender(ep, id, &r.o.Faults, &r.tr)
	}
	if o.gate != nil {
		r.gateWake = make(chan bool, 1)
	}
	if fp, ok := ep.(framePublisher); ok {
		r.owned = fp
	}
	if en, ok := ep.(envelope); ok {
		r.envelope = en
	}
	r.crashes = r.o.Faults.crashesOf(id)
	if rt, ok := ep.(roundTracker); ok && len(r.crashes) == 0 {
		r.rounds = rt // a crashing agent learns its peers' round from their frames
	}
	// A crashing agent reads its inbox frame by frame while it is down
	// (see down); every other agent takes batches where it can.
	if b, ok := ep.(Batcher); ok && len(r.crashes) == 0 {
		r.batch = b
		r.timer = time.AfterFunc(time.Hour, r.onTimer)
	} else {
		r.inbox = ep.Inbox()
		r.timer = time.NewTimer(time.Hour)
	}
	r.timer.Stop()
	return r
}

// awaitStart waits for the coordinator's start; stop reports a stop
// received first. With ReadyRepeat > 0 the ready status is published
// again every ReadyRepeat until then; none follows the start, since the
// repeats happen in this wait only.
func (r *runner) awaitStart(ctx context.Context) (stop bool, err error) {
	timer := time.NewTimer(r.o.StartTimeout)
	defer timer.Stop()
	var repeat <-chan time.Time
	if r.o.ReadyRepeat > 0 {
		t := time.NewTicker(r.o.ReadyRepeat)
		defer t.Stop()
		repeat = t.C
	}
	for {
		select {
		case <-repeat:
			r.publish(StatusReady, r.a.Report(), nil)
		case f, ok := <-r.control:
			if !ok {
				return false, errors.New("control channel closed before start")
			}
			c, err := DecodeControl(f)
			if err != nil {
				r.tr.Malformed++
				r.log.Warn("dropped control frame", "error", err)
				continue
			}
			switch c.Kind {
			case ControlStop:
				r.stopReason, r.stopControl = stopReason(c), true
			case ControlStart:
				if err := r.checkScenario(c); err != nil {
					return false, err
				}
			case ControlRefuse:
				return false, fmt.Errorf("%w: %s", ErrRunRefused, c.Reason)
			case ControlLost:
				// A peer lost before the start (its control can overtake
				// the start on a transport that does not order the
				// controls of concurrent senders) is gone from round 0.
				if r.peerLost(c.Agent, 0) {
					return true, nil
				}
				continue
			default:
				continue // alive controls do not start a run
			}
			return c.Kind == ControlStop, nil
		case <-timer.C:
			return false, fmt.Errorf("no start from the coordinator within %v", r.o.StartTimeout)
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// checkScenario compares the scenario fingerprint of the start control c
// with the agent's own (Options.Scenario); either may be absent, which
// checks nothing.
func (r *runner) checkScenario(c Control) error {
	if r.o.Scenario == nil || c.Scenario == "" {
		return nil
	}
	if mine := ScenarioFingerprint(r.o.Scenario); c.Scenario != mine {
		return fmt.Errorf("%w: the coordinator's start names scenario %.16s, this agent runs %.16s (give every process the same scenario file and --set overrides)",
			ErrScenarioMismatch, c.Scenario, mine)
	}
	return nil
}

// stopRequested drains the control channel without blocking and reports
// whether it held a stop.
func (r *runner) stopRequested() bool {
	stop := false
	for {
		select {
		case f, ok := <-r.control:
			if !ok {
				r.control = nil
				return stop
			}
			c, err := DecodeControl(f)
			if err != nil {
				r.tr.Malformed++
				r.log.Warn("dropped control frame", "error", err)
				continue
			}
			switch c.Kind {
			case ControlStop:
				r.log.Debug("stop requested", "reason", c.Reason)
				r.stopReason, r.stopControl = stopReason(c), true
				stop = true
			case ControlLost:
				stop = r.peerLost(c.Agent, r.cur+1) || stop
			}
		default:
			return stop
		}
	}
}

// stoppedByControl reports whether the run ends on a stop control that
// every peer gets too, and that wakes a peer waiting in a phase: true on
// an endpoint that implements Batcher (its transport wakes the agent on a
// control, see Batcher).
func (r *runner) stoppedByControl() bool { return r.stopControl && r.batch != nil }

// stopReason is what a final status says of the stop control c.
func stopReason(c Control) string {
	if c.Reason == "" {
		return "stop control"
	}
	return c.Reason
}

// fail ends the run on err: leave, failed status, wrapped error.
func (r *runner) fail(err error) error {
	if lost := r.live.cause(); lost != nil && errors.Is(err, context.Canceled) {
		err = lost
	}
	err = fmt.Errorf("node: agent %d: %w", r.id, err)
	r.leave()
	r.publish(StatusFailed, r.a.Report(), err)
	return err
}

// leave broadcasts, once, that this agent sends nothing from phase
// r.next on.
func (r *runner) leave() {
	if r.left {
		return
	}
	r.left = true
	key := r.next
	if r.reduce && r.root == r.id && !r.sumSent {
		// A root that leaves before broadcasting its sum skips the
		// current phase too: its peers then pick another root at once
		// instead of waiting out the deadline for a sum that never comes.
		key = r.cur
	}
	round, phase := int(key>>16), int(key&0xffff)
	f, err := r.encodeFrame(FrameLeave, nil, round, phase, nil)
	if err != nil {
		r.log.Warn("cannot encode leave frame", "error", err)
		return
	}
	if err := r.publishFrame(f, FrameLeave, nil); err != nil {
		r.log.Warn("cannot broadcast leave frame", "error", err)
		return
	}
	r.tr.MsgsSent++
	r.tr.BytesSent += r.wireLen(f, 0)
}

// publish sends a status of the given kind; cause, if non-nil, is its Err.
// A report that does not encode (a NaN iterate) is replaced by a failed
// status that says why.
func (r *runner) publish(kind StatusKind, rep consensus.Report, cause error) {
	if sr, ok := r.ep.(StatsReporter); ok {
		st := sr.Stats()
		r.tr.Refused, r.tr.RefusedBySubject = 0, st.Refused
		for _, n := range st.Refused {
			r.tr.Refused += n
		}
		r.tr.BusMalformed, r.tr.InboxOverflow, r.tr.SlowConsumer = st.Malformed, st.Overflow, st.SlowConsumer
		r.tr.Ahead = r.ahead + st.Ahead
	}
	s := Status{Kind: kind, ID: r.id, Report: rep, Traffic: r.tr}
	switch kind {
	case StatusFinal:
		s.Stop = r.stopReason
	case StatusReady:
		s.Scenario = string(r.o.Scenario)
	}
	if cause != nil {
		s.Err = cause.Error()
	}
	f, err := EncodeStatus(s)
	if err != nil {
		s = Status{Kind: StatusFailed, ID: r.id, Report: consensus.Report{ID: r.id, Round: rep.Round}, Traffic: r.tr,
			Err: fmt.Sprintf("%s status does not encode: %v", kind, err)}
		if f, err = EncodeStatus(s); err != nil {
			r.log.Error("cannot encode status", "kind", kind, "error", err)
			return
		}
	}
	if err := r.ep.Status(f); err != nil {
		r.warn.note("statuses not published", "by agent "+strconv.Itoa(r.id), err)
		return
	}
	r.live.sent()
}

// sendFailed counts a failed delivery and logs it, summarized (see
// warnLimiter).
func (r *runner) sendFailed(to int, err error) {
	r.sendErrs++
	where := "to every agent"
	if to >= 0 {
		where = "to agent " + strconv.Itoa(to)
	}
	r.warn.note("frames not delivered", where, err)
}
