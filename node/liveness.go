package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/consim/consim/consensus"
)

// Liveness of a run, both ways, independent of the round rate and of the
// report period:
//
//   - every agent publishes an alive status every Options.Heartbeat,
//     from a goroutine of its own, naming the round it is in and its
//     process id, so the coordinator tells a slow agent (alive, in an old
//     round) from a dead one (silent), whatever ReportEvery is;
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

// liveness is the heartbeat and the coordinator watchdog of one Run.
type liveness struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{}
	wg     sync.WaitGroup
	// round is the round the agent is in, for its heartbeats.
	round atomic.Int64
	// heard is the time of the last valid control (Unix ns), 0 until the
	// first one: the watchdog is armed by it.
	heard atomic.Int64
	once  sync.Once
}

// startLiveness starts the heartbeat and watchdog of r per r.o, replaces
// r.control with the forwarder's channel and returns the context the run
// uses: it is cancelled with cause ErrCoordinatorLost when the watchdog
// fires. It returns nil when r.o asks for neither.
func (r *runner) startLiveness(ctx context.Context) *liveness {
	if r.o.Heartbeat <= 0 && r.o.CoordinatorTimeout <= 0 {
		return nil
	}
	l := &liveness{done: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancelCause(ctx)
	out := make(chan []byte, 64)
	src := r.control
	r.control = out
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		l.forward(src, out)
	}()
	if r.o.Heartbeat > 0 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.beat(r.ep, r.id, r.o.Heartbeat)
		}()
	}
	if r.o.CoordinatorTimeout > 0 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.watch(r.o.CoordinatorTimeout)
		}()
	}
	return l
}

// stop ends the liveness goroutines and waits for them.
func (l *liveness) stop() {
	if l == nil {
		return
	}
	l.once.Do(func() { close(l.done) })
	l.wg.Wait()
	l.cancel(nil)
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

// forward moves the frames of src to out, except alive controls; every
// control that decodes is noted as heard. out is closed when src is.
func (l *liveness) forward(src <-chan []byte, out chan<- []byte) {
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
		case <-l.done:
			return
		}
	}
}

// beat publishes an alive status of agent id every period until stop.
func (l *liveness) beat(ep Endpoint, id int, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	pid := os.Getpid()
	for {
		select {
		case <-t.C:
		case <-l.done:
			return
		}
		s := Status{Kind: StatusAlive, ID: id, PID: pid, Report: consensus.Report{ID: id, Round: int(l.round.Load())}}
		f, err := EncodeStatus(s)
		if err != nil {
			continue // a report of two integers always encodes
		}
		_ = ep.Status(f) // a lost heartbeat is what the coordinator's deadline is for
	}
}

// watch cancels the run with ErrCoordinatorLost once no control has been
// heard for timeout since the first one.
func (l *liveness) watch(timeout time.Duration) {
	t := time.NewTicker(min(max(timeout/8, time.Millisecond), 250*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			h := l.heard.Load()
			if h == 0 {
				continue
			}
			if silent := now.Sub(time.Unix(0, h)); silent > timeout {
				l.cancel(fmt.Errorf("%w: no control from the coordinator for %v (deadline %v)", ErrCoordinatorLost, silent.Round(time.Millisecond), timeout))
				return
			}
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
