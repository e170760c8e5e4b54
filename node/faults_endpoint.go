package node

import (
	"sync"
	"time"
)

// faultEndpoint injects the transport faults of Faults (loss and delay)
// into the data frames an agent sends with Send; reduce and leave frames
// (Broadcast), statuses and control pass through untouched. It is driven
// by one runner: Send and the counters it updates in tr are used from the
// runner's goroutine only, while delayed frames leave from timers.
type faultEndpoint struct {
	Endpoint
	id int
	f  *Faults
	tr *Traffic

	mu     sync.Mutex
	closed bool
}

func newFaultEndpoint(ep Endpoint, id int, f *Faults, tr *Traffic) *faultEndpoint {
	return &faultEndpoint{Endpoint: ep, id: id, f: f, tr: tr}
}

// Send drops the data frame of (t, ph) to agent to if the loss draw says
// so (counted in InjectedLoss, by destination), delays it by the delay
// draw (counted in Delayed), and otherwise sends it at once. A dropped or
// delayed frame reports success: the sender cannot tell.
func (e *faultEndpoint) Send(to int, frame []byte) error {
	h, err := DecodeHeader(frame)
	if err != nil || h.Kind != FrameData {
		return e.Endpoint.Send(to, frame)
	}
	if e.f.lost(h.Round, h.Phase, e.id, to) {
		e.tr.InjectedLoss++
		if e.tr.InjectedLossByPeer == nil {
			e.tr.InjectedLossByPeer = make(map[int]int64)
		}
		e.tr.InjectedLossByPeer[to]++
		return nil
	}
	d := e.f.delay(h.Round, h.Phase, e.id, to)
	if d <= 0 {
		return e.Endpoint.Send(to, frame)
	}
	e.tr.Delayed++
	f := clone(frame) // Send must not keep the caller's frame
	time.AfterFunc(d, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if !e.closed {
			_ = e.Endpoint.Send(to, f) // the sender has moved on; a failure is a loss
		}
	})
	return nil
}

// Close drops the frames still delayed and closes the endpoint.
func (e *faultEndpoint) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	return e.Endpoint.Close()
}
