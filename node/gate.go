package node

import (
	"context"
	"runtime"
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
type gate struct {
	places chan struct{}
}

// gateMin is the number of agents in one RunAll from which it gates them
// (gateFor): below it the agents' goroutines are few enough for the
// scheduler, and a wake-up that finds the gate full would cost a second
// one (at 10^4 agents on 2 processors a gate cost 6% of the rounds per
// second). A variable for the tests.
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
	return &gate{places: make(chan struct{}, places)}
}

// enter takes a place, waiting for one; it reports false if ctx ended
// first (the caller holds no place then).
func (g *gate) enter(ctx context.Context) bool {
	if g == nil {
		return true
	}
	select {
	case g.places <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// leave gives a place back.
func (g *gate) leave() {
	if g != nil {
		<-g.places
	}
}
