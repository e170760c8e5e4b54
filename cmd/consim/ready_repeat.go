package main

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/consim/consim/node"
)

// readyRepeat is how often an agent process repeats its ready status
// until the coordinator's first control arrives.
const readyRepeat = time.Second

// readyRepeater wraps an agent's endpoint so that its ready status is
// published again every period until the first control frame (start or
// stop) arrives. An agent process may then be started before the
// coordinator subscribes: the coordinator counts a repeated ready once.
type readyRepeater struct {
	node.Endpoint
	period  time.Duration
	control chan []byte
	heard   chan struct{} // closed at the first control frame or close
	once    sync.Once
	started atomic.Bool // the repeats have started
}

func newReadyRepeater(ep node.Endpoint, period time.Duration) *readyRepeater {
	r := &readyRepeater{Endpoint: ep, period: period, control: make(chan []byte, 16), heard: make(chan struct{})}
	go r.forward()
	return r
}

// forward moves control frames from the wrapped endpoint to r.control.
func (r *readyRepeater) forward() {
	defer close(r.control)
	for f := range r.Endpoint.Control() {
		r.once.Do(func() { close(r.heard) })
		r.control <- f
	}
	r.once.Do(func() { close(r.heard) })
}

// Control yields the wrapped endpoint's control frames.
func (r *readyRepeater) Control() <-chan []byte { return r.control }

// Status publishes frame; the first ready status starts the repeats.
func (r *readyRepeater) Status(frame []byte) error {
	err := r.Endpoint.Status(frame)
	if r.started.Load() {
		return err
	}
	if s, derr := node.DecodeStatus(frame); derr == nil && s.Kind == node.StatusReady && r.started.CompareAndSwap(false, true) {
		go r.repeatReady(append([]byte(nil), frame...))
	}
	return err
}

// repeatReady republishes ready every period until a control arrives.
func (r *readyRepeater) repeatReady(ready []byte) {
	t := time.NewTicker(r.period)
	defer t.Stop()
	for {
		select {
		case <-r.heard:
			return
		case <-t.C:
			if r.Endpoint.Status(ready) != nil {
				return
			}
		}
	}
}
