package node

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
)

// closeWatch is a transport whose endpoints signal their Close.
type closeWatch struct {
	Transport
	closed []chan struct{} // closed[id] is closed when agent id's endpoint is
}

func (w *closeWatch) Endpoint(id int) (Endpoint, error) {
	ep, err := w.Transport.Endpoint(id)
	if err != nil {
		return nil, err
	}
	return &watchedEndpoint{Endpoint: ep, closed: w.closed[id]}, nil
}

type watchedEndpoint struct {
	Endpoint
	closed chan struct{}
	once   sync.Once
}

func (e *watchedEndpoint) Close() error {
	e.once.Do(func() { close(e.closed) })
	return e.Endpoint.Close()
}

// awaitClose is an agent that, before its sends of round at, waits for a
// channel to close, however long it takes (a channel never closed hangs
// the run, which go test's -timeout reports).
type awaitClose struct {
	consensus.Agent
	at     int
	closed <-chan struct{}
}

func (a awaitClose) Send(t, ph int) consensus.Outbox {
	if t == a.at && ph == 0 {
		<-a.closed
	}
	return a.Agent.Send(t, ph)
}

// TestRunAllClosesEndpointOfEndedAgent: agent 2 fails in round 1; RunAll
// closes its endpoint while the others still run (they wait for that in
// round 3), so frames sent to it later are discarded.
func TestRunAllClosesEndpointOfEndedAgent(t *testing.T) {
	const n, rounds, bad = 4, 5, 2
	tr := &closeWatch{Transport: newTestTransport(t, TransportChan, n), closed: make([]chan struct{}, n)}
	for i := range tr.closed {
		tr.closed[i] = make(chan struct{})
	}
	agents := nullAgents(t, ring(t, n), 1)
	for i := range agents {
		if i != bad {
			agents[i] = awaitClose{Agent: agents[i], at: 3, closed: tr.closed[bad]}
		}
	}
	agents[bad] = failing{agents[bad], 1}
	_, err := runObserved(t, tr, agents, Options{Rounds: rounds, PhaseDeadline: time.Minute}, nil)
	if !errors.Is(err, errBoom) {
		t.Fatalf("RunAll error %v, want %v", err, errBoom)
	}
}
