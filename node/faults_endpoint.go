package node

import (
	"sync"
	"time"
)

// faultSender injects the transport faults of Faults (loss and delay) into
// the data frames one runner sends; the runner sends every other frame
// (reduce terms to the root, sums, leaves, statuses)
// straight through its endpoint. send and the counters it updates in tr
// are used from the runner's goroutine only; delayed frames leave from
// timers.
//
// A delayed frame whose timer has not fired when the run ends is
// discarded (see settle): its sender's endpoint is about to close, and no
// timer outlives the run.
type faultSender struct {
	ep Endpoint
	id int
	f  *Faults
	tr *Traffic

	mu      sync.Mutex
	pending map[*time.Timer]struct{} // delayed frames not yet sent
	idle    chan struct{}            // closed when pending empties, while settle waits
	stopped bool                     // settle ran: nothing more leaves
}

func newFaultSender(ep Endpoint, id int, f *Faults, tr *Traffic) *faultSender {
	return &faultSender{ep: ep, id: id, f: f, tr: tr, pending: make(map[*time.Timer]struct{})}
}

// send delivers the data frame of (t, ph), addressed to agent to alone,
// to it: it drops the frame
// if the loss draw says so (counted in InjectedLoss, by destination),
// delays it by the delay draw (counted in Delayed), and otherwise sends it
// at once. A dropped or delayed frame reports success: the sender cannot
// tell.
func (e *faultSender) send(to int, frame []byte, t, ph int) error {
	if e.f.Lost(t, ph, e.id, to) {
		e.tr.InjectedLoss++
		if e.tr.InjectedLossByPeer == nil {
			e.tr.InjectedLossByPeer = make(map[int]int64)
		}
		e.tr.InjectedLossByPeer[to]++
		return nil
	}
	d := e.f.delay(t, ph, e.id, to)
	if d <= 0 {
		return e.ep.Publish(frame)
	}
	e.tr.Delayed++
	f := clone(frame) // Send must not keep the caller's frame
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopped {
		return nil
	}
	var timer *time.Timer
	timer = time.AfterFunc(d, func() {
		// timer is assigned: this runs after send released mu.
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.stopped {
			return
		}
		delete(e.pending, timer)
		_ = e.ep.Publish(f) // the sender has moved on; a failure is a loss
		if len(e.pending) == 0 && e.idle != nil {
			close(e.idle)
			e.idle = nil
		}
	})
	e.pending[timer] = struct{}{}
	return nil
}

// settle ends the delays when the run ends: it waits until every delayed
// frame has left or wait has passed, then stops the timers of the frames
// still delayed, which are discarded. Run waits up to PhaseDeadline after
// its last round, so the frames of that round reach peers still waiting
// for them, and not at all after a stop or a failure.
func (e *faultSender) settle(wait time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.pending) > 0 && wait > 0 {
		idle := make(chan struct{})
		e.idle = idle
		e.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-idle:
		case <-timer.C:
		}
		timer.Stop()
		e.mu.Lock()
		e.idle = nil
	}
	e.stopped = true
	for timer := range e.pending {
		timer.Stop()
	}
	clear(e.pending)
}
