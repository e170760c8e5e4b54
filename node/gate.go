package node

import (
	"runtime"
	"sync"
)

// gate bounds the agents of one RunAll that run at once: an agent holds a
// place from its start to its end, except while it waits for frames.
// Go's scheduler shares the processors fairly between runnable
// goroutines; at 10^5 goroutine agents, the coordinator, the liveness
// clock and the garbage collector's workers would be a few goroutines
// among 10^5 runnable ones, each getting a 10^5th of the processors
// whenever it does not finish within a time slice, and a coordinator
// that falls behind its agents' statuses would never catch up. With the
// gate at most places agents are runnable, and the others wait in its
// queue, in the order they came.
//
// A waiting agent blocks on a channel of its own, to which leave hands
// the freed place: no channel is shared by the waiters (a select on a
// places channel and the run's context had all 10^5 agents queue on
// the context's channel, contending for its lock).
type gate struct {
	mu      sync.Mutex
	free    int         // places nobody holds
	waiting []chan bool // the waiting agents' channels, oldest first
	closed  bool
}

// gateMin is the number of agents in one RunAll from which it gates them
// (gateFor): below it the agents' goroutines are few enough for the
// scheduler, and a wake-up that finds the gate full would cost a second
// one (a gate slows 10^4 agents on 2 processors). A variable for the
// tests.
var gateMin = 1 << 15

// gateFor returns the gate of a RunAll of n agents: 4 GOMAXPROCS places
// from gateMin agents on, nil (no gate) below.
func gateFor(n int) *gate {
	places := gatePlaces
	if places == 0 {
		places = 4 * runtime.GOMAXPROCS(0)
	}
	return gateOf(n, places)
}

// gatePlaces, if positive, replaces 4 GOMAXPROCS (for the tests).
var gatePlaces int

// gateOf returns a gate of the given places for n agents (nil below
// gateMin).
func gateOf(n, places int) *gate {
	if n < gateMin {
		return nil
	}
	return &gate{free: places}
}

// enter takes a place, waiting behind the agents that came first; it
// reports false once the gate is closed (the caller holds no place then).
// wake is the caller's own channel, of capacity 1, on which a leave hands
// it a place (true) or close turns it away (false).
func (g *gate) enter(wake chan bool) bool {
	if g == nil {
		return true
	}
	g.mu.Lock()
	switch {
	case g.closed:
		g.mu.Unlock()
		return false
	case g.free > 0 && len(g.waiting) == 0:
		g.free--
		g.mu.Unlock()
		return true
	}
	g.waiting = append(g.waiting, wake)
	g.mu.Unlock()
	return <-wake
}

// leave gives a place back: to the agent that has waited longest, if
// any.
func (g *gate) leave() {
	if g == nil {
		return
	}
	g.mu.Lock()
	if len(g.waiting) == 0 {
		g.free++
		g.mu.Unlock()
		return
	}
	w := g.waiting[0]
	g.waiting[0] = nil
	g.waiting = g.waiting[1:]
	g.mu.Unlock()
	w <- true
}

// close turns away the waiting agents and every later enter; RunAll
// closes its gate when its context ends.
func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	waiting := g.waiting
	g.waiting = nil
	g.mu.Unlock()
	for _, w := range waiting {
		w <- false
	}
}
