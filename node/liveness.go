package node

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Liveness of a run, both ways, independent of the round rate and of the
// report period:
//
//   - every agent publishes an alive status every Options.Heartbeat,
//     from its process's liveClock (not from its round loop), naming the
//     round it is in and its process id, so the coordinator tells a slow
//     agent (alive, in an old round) from a dead one (silent), whatever
//     ReportEvery is;
//   - the coordinator publishes an alive control every
//     coordinator.Config.Heartbeat; an agent that has heard no control for
//     Options.CoordinatorTimeout after the start fails with
//     ErrCoordinatorLost (its process exits nonzero) instead of running on
//     without anyone to report to;
//   - a lost control {"kind": "lost", "agent": j} from the coordinator
//     (an agent it declared lost, when the run goes on without it) acts as
//     a leave of j from the agent's next phase: its peers stop waiting for
//     it and take no more dropouts from it.
//
// Alive controls never reach the round loop: a forwarder between the
// endpoint's control channel and the loop takes them out and notes the
// time.

// ErrCoordinatorLost is wrapped by the error of an agent that heard no
// control from its coordinator for Options.CoordinatorTimeout.
var ErrCoordinatorLost = errors.New("coordinator lost")

// HeartbeatPeriod returns the heartbeat period for a liveness deadline d:
// d/4, at least 10 ms, so that three heartbeats may be lost before d
// passes (a shorter period would detect nothing sooner: a loss is named
// after d of silence, and costs a status per agent per period); 1 s for
// d <= 0 (no deadline given).
func HeartbeatPeriod(d time.Duration) time.Duration {
	if d <= 0 {
		return time.Second
	}
	return max(d/4, 10*time.Millisecond)
}

// liveness is the heartbeat and the coordinator watchdog of one Run: its
// entry in the process's liveClock, which publishes its heartbeats and
// fires its watchdog, and its control forwarder if the endpoint needs one
// (see controlHeard).
type liveness struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{}
	wg     sync.WaitGroup
	clock  *liveClock
	// ownClock: the clock is this Run's alone, stopped with it.
	ownClock bool
	// round is the round the agent is in, for its heartbeats.
	round atomic.Int64
	// published is when the agent's latest status went out (Unix ns).
	published atomic.Int64
	// The clock's fields, under its lock: the agent's endpoint and id, and
	// its index in the clock's members (-1 once removed).
	ep  Endpoint
	id  int
	idx int
	// heard is the time of the last valid control (Unix ns), 0 until the
	// first one: the watchdog is armed by it. The forwarder notes it, or
	// the endpoint does (controlHeard).
	heard     atomic.Int64
	heardFrom controlHeard
	once      sync.Once
}

// startLiveness registers r with the process's liveClock (r.o.clock, or
// a clock of its own when Run is called alone) and returns the context
// the run uses: it is cancelled with cause ErrCoordinatorLost when the
// watchdog fires. On an endpoint that is not a controlHeard, it also
// starts a forwarder and replaces r.control with its channel. It returns
// nil when r.o asks for neither heartbeats nor a watchdog.
func (r *runner) startLiveness(ctx context.Context) *liveness {
	clock, own := r.o.clock, false
	if clock == nil {
		clock, own = newLiveClock(r.o), true
	}
	if clock == nil {
		return nil
	}
	l := &liveness{done: make(chan struct{}), clock: clock, ownClock: own}
	l.ctx, l.cancel = context.WithCancelCause(ctx)
	if ch, ok := r.ep.(controlHeard); ok {
		l.heardFrom = ch // the round loop skips alive controls itself
	} else {
		out := make(chan []byte, 64)
		src := r.control
		r.control = out
		wake := func() {}
		if r.batch != nil {
			wake = r.batch.Wake
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.forward(src, out, wake)
		}()
	}
	clock.add(l, r.ep, r.id)
	return l
}

// controlHeard is implemented by endpoints that note when a control last
// reached their agent, so that no forwarder goroutine (see forward) sits
// between the endpoint and the round loop: only authentic controls reach
// an endpoint's control channel, and the round loop ignores alive ones.
type controlHeard interface {
	// lastControl is when the latest control reached the endpoint (Unix
	// ns), 0 before the first.
	lastControl() int64
}

// lastHeard is when the agent last heard a control (Unix ns), 0 if never.
func (l *liveness) lastHeard() int64 {
	if l.heardFrom != nil {
		return l.heardFrom.lastControl()
	}
	return l.heard.Load()
}

// stop ends the agent's liveness: it leaves the clock, and the forwarder
// ends.
func (l *liveness) stop() {
	if l == nil {
		return
	}
	l.once.Do(func() {
		l.clock.remove(l)
		if l.ownClock {
			l.clock.stop()
		}
		close(l.done)
	})
	l.wg.Wait()
	l.cancel(nil)
}

// sent notes that the agent published a status: its next heartbeat is
// due a period from now.
func (l *liveness) sent() {
	if l != nil {
		l.published.Store(time.Now().UnixNano())
	}
}

// setRound notes the round the agent is in.
func (l *liveness) setRound(t int) {
	if l != nil {
		l.round.Store(int64(t))
	}
}

// cause returns ErrCoordinatorLost, wrapped with the silence, if the
// watchdog ended the run; nil otherwise.
func (l *liveness) cause() error {
	if l == nil {
		return nil
	}
	if c := context.Cause(l.ctx); errors.Is(c, ErrCoordinatorLost) {
		return c
	}
	return nil
}

// forward moves the frames of src to out, except alive controls, and
// calls wake after each (the transport's wake-up came before the frame
// reached out, see Batcher); every control that decodes is noted as
// heard. out is closed when src is.
func (l *liveness) forward(src <-chan []byte, out chan<- []byte, wake func()) {
	defer close(out)
	for {
		var f []byte
		var ok bool
		select {
		case f, ok = <-src:
			if !ok {
				return
			}
		case <-l.done:
			return
		}
		c, err := DecodeControl(f)
		if err == nil {
			l.heard.Store(time.Now().UnixNano())
			if c.Kind == ControlAlive {
				continue
			}
		}
		select {
		case out <- f:
			wake()
		case <-l.done:
			return
		}
	}
}

// peerLost applies a lost control naming agent j: j sends nothing from
// the phase key from on (the phase after the current one during the run,
// 0 before the start). An agent declared lost itself (its
// heartbeats did not reach the coordinator in time) stops, as on a stop
// control: the run goes on without it. It reports whether it stops.
func (r *runner) peerLost(j int, from uint64) bool {
	if j == r.id {
		r.log.Warn("declared lost by the coordinator; stopping")
		r.stopReason = "declared lost by the coordinator"
		return true
	}
	if j < 0 || j >= r.o.N {
		r.tr.Malformed++
		r.log.Warn("dropped lost control", "agent", j, "agents", r.o.N)
		return false
	}
	r.log.Info("peer declared lost by the coordinator", "peer", j)
	r.depart(j, from)
	return false
}
