package node

import (
	"context"
	"fmt"
	"math"
	"time"
)

// crashEnd says how a crash ended.
type crashEnd int

const (
	crashRejoined crashEnd = iota // the agent is back, at the returned round
	crashDeparted                 // departed for good; Run returns
	crashStopped                  // the coordinator stopped the run meanwhile
)

// checkCrashes verifies, before the run starts, that an agent that will
// restart after a crash can rejoin.
func (r *runner) checkCrashes() error {
	for _, c := range r.crashes {
		if c.RestartAfter == 0 || c.LoseState {
			continue // a rebuilt agent is checked when it is built
		}
		if _, ok := r.a.(Rejoiner); !ok {
			return fmt.Errorf("crash at round %d with restart: agent type %T cannot rejoin (it does not implement node.Rejoiner)", c.At, r.a)
		}
	}
	return nil
}

// crashDue returns the crash of this agent due at round t, if any, and
// drops it from the list. Crashes whose round a rejoin skipped are dropped
// too: the agent was down then.
func (r *runner) crashDue(t int) (Crash, bool) {
	for len(r.crashes) > 0 && r.crashes[0].At < t {
		r.crashes = r.crashes[1:]
	}
	if len(r.crashes) == 0 || r.crashes[0].At != t {
		return Crash{}, false
	}
	c := r.crashes[0]
	r.crashes = r.crashes[1:]
	return c, true
}

// crash takes the agent down at the start of round t. Without a restart
// (or one beyond the last round) it publishes a departed status with its
// last report and ends. Otherwise it stays down until its peers reach
// round t+RestartAfter (or a bounded wait passes, see down), then rejoins
// at the round they are in, with its state kept or rebuilt by
// Faults.Rebuild; the returned round is the one it runs next. No leave
// frame is sent: peers see dropouts meanwhile.
func (r *runner) crash(ctx context.Context, t int, c Crash) (int, crashEnd, error) {
	restart := t + c.RestartAfter
	if c.RestartAfter == 0 || restart >= r.o.Rounds {
		r.log.Info("agent crashed for good", "round", t)
		r.publish(StatusDeparted, r.a.Report(), fmt.Errorf("crashed at round %d without restart", t))
		return 0, crashDeparted, nil
	}
	r.log.Info("agent down", "round", t, "restart_round", restart)
	// A crashed process loses the runtime's buffers.
	r.tr.DroppedWhileDown += int64(r.dropFuture())
	r.stale = nil
	r.reduce = false // no phase is current while down
	next, stop, err := r.down(ctx, t, restart)
	if err != nil {
		return 0, 0, fmt.Errorf("down since round %d: %w", t, err)
	}
	if stop {
		return 0, crashStopped, nil
	}
	if c.LoseState {
		a, err := r.o.Faults.Rebuild(r.id)
		switch {
		case err != nil:
			return 0, 0, fmt.Errorf("rebuild after the crash at round %d: %w", t, err)
		case a == nil || a.ID() != r.id:
			return 0, 0, fmt.Errorf("rebuild after the crash at round %d: got no agent %d", t, r.id)
		}
		r.a = a
	}
	rj, ok := r.a.(Rejoiner)
	if !ok {
		return 0, 0, fmt.Errorf("rejoin at round %d: agent type %T does not implement node.Rejoiner", next, r.a)
	}
	if err := rj.Rejoin(next); err != nil {
		return 0, 0, fmt.Errorf("rejoin at round %d: %w", next, err)
	}
	r.log.Info("agent rejoined", "round", next, "state_lost", c.LoseState)
	return next, crashRejoined, nil
}

// down discards what arrives until a frame of round restart or later
// shows that the peers got there, then returns the latest round seen in
// the frames already queued: the round the peers are in. Frames of that
// round or later are kept for the phases ahead; leave frames still count.
// stop reports a stop from the coordinator.
//
// The wait for such a frame is bounded: an agent without peers (N = 1),
// cut off from them, or whose peers have finished would wait forever. If
// (restart - at + 1) PhaseDeadline pass after the crash at round at
// without one, down returns restart: the agent rejoins at round restart,
// as if its peers had advanced one round per deadline.
func (r *runner) down(ctx context.Context, at, restart int) (next int, stop bool, err error) {
	wait := r.o.PhaseDeadline
	if k := time.Duration(restart - at + 1); wait > math.MaxInt64/k {
		wait = math.MaxInt64
	} else {
		wait *= k
	}
	bound := time.NewTimer(wait)
	defer bound.Stop()
	next = -1
	for {
		var f []byte
		if next >= 0 {
			// Peers are back in reach: take what is queued, then rejoin.
			select {
			case f = <-r.inbox:
			default:
				return next, false, nil
			}
		} else {
			select {
			case g, ok := <-r.inbox:
				if !ok {
					return 0, false, errInboxClosed
				}
				f = g
			case g, ok := <-r.control:
				if !ok {
					r.control = nil
					continue
				}
				c, err := DecodeControl(g)
				if err != nil {
					r.tr.Malformed++
					continue
				}
				if c.Kind == ControlStop {
					return 0, true, nil
				}
				continue
			case <-bound.C:
				r.log.Info("no peer reached the restart round", "restart_round", restart)
				return restart, false, nil
			case <-ctx.Done():
				return 0, false, ctx.Err()
			}
		}
		if f == nil {
			return next, false, nil // inbox closed while draining
		}
		h, err := DecodeHeader(f)
		switch {
		case err != nil || h.From >= r.o.N:
			r.tr.Malformed++
		case h.From == r.id:
		case h.Kind == FrameLeave:
			r.depart(h.From, phaseKey(h.Round, h.Phase))
		case h.Round < restart || h.Round >= r.o.Rounds:
			r.tr.DroppedWhileDown++
		default:
			r.tr.MsgsRecv++
			r.tr.BytesRecv += r.wireLen(f, -1)
			r.keepFuture(h, f, max(restart, next))
			next = max(next, h.Round)
		}
	}
}

// straggle sleeps for this agent's compute time of round t (Stragglers).
func (r *runner) straggle(ctx context.Context, t int) error {
	d := r.o.Faults.straggle(t, r.id)
	if d <= 0 {
		return nil
	}
	if r.sleep == nil {
		r.sleep = time.NewTimer(d)
	} else {
		r.sleep.Reset(d)
	}
	defer r.sleep.Stop()
	select {
	case <-r.sleep.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// staleMsg is the latest data message received from one sender in one
// phase index.
type staleMsg struct {
	round int
	ok    bool
	data  []float64
}

// remember keeps the values of data frame f if it is the latest of its
// sender and phase index so far (bounded staleness only).
func (r *runner) remember(h Header, f []byte) {
	if m := r.staleSlot(h); m != nil {
		m.data = DecodeValues(m.data, f, h)
	}
}

// rememberValues is remember for a frame whose values are already
// decoded into data.
func (r *runner) rememberValues(h Header, data []float64) {
	if m := r.staleSlot(h); m != nil {
		m.data = append(m.data[:0], data...)
	}
}

// staleSlot returns the slot of h's sender and phase index, marked as
// holding round h.Round, if h is a data frame newer than the slot's;
// nil otherwise or without bounded staleness.
func (r *runner) staleSlot(h Header) *staleMsg {
	if r.o.Faults.Staleness == 0 || !h.Kind.data() {
		return nil
	}
	for len(r.stale) <= h.Phase {
		r.stale = append(r.stale, nil)
	}
	if r.stale[h.Phase] == nil {
		r.stale[h.Phase] = make([]staleMsg, r.o.N)
	}
	m := &r.stale[h.Phase][h.From]
	if m.ok && m.round >= h.Round {
		return nil
	}
	m.round, m.ok = h.Round, true
	return m
}

// staleFor returns the latest message of j in phase ph of rounds
// t-S..t-1 if there is one and j has not left.
func (r *runner) staleFor(j, t, ph int) ([]float64, bool) {
	s := r.o.Faults.Staleness
	if s == 0 || ph >= len(r.stale) || r.stale[ph] == nil || r.leaveOf(j) <= r.cur {
		return nil, false
	}
	m := &r.stale[ph][j]
	if !m.ok || m.round >= t || m.round < t-s {
		return nil, false
	}
	return m.data, true
}
