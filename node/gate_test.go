package node

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestGateOf: no gate below gateMin agents; a gate holds its places,
// hands a freed place to the agent that has waited longest, and once
// closed turns away the waiting agents and every later one. (Through
// RunAll, TestDeterministicAcrossTransports runs agents through a gate of
// one place.)
func TestGateOf(t *testing.T) {
	defer func(m int) { gateMin = m }(gateMin)
	gateMin = 100
	if g := gateOf(99, 4); g != nil {
		t.Errorf("gate for 99 agents below gateMin 100: %v, want none", g)
	}
	g := gateOf(100, 2)
	if g == nil {
		t.Fatal("no gate for 100 agents")
	}
	for range 2 {
		if !g.enter(make(chan bool, 1)) {
			t.Fatal("enter failed with free places")
		}
	}

	// Three agents queue in order; each leave lets in the oldest.
	entered := make(chan int, 3)
	for k := range 3 {
		wake := make(chan bool, 1)
		go func() {
			if g.enter(wake) {
				entered <- k
			} else {
				entered <- -1 - k
			}
		}()
		waitUntil(t, "the agent waits in the gate", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.waiting) == k+1 })
	}
	select {
	case k := <-entered:
		t.Fatalf("agent %d entered a full gate", k)
	case <-time.After(20 * time.Millisecond):
	}
	for want := range 2 {
		g.leave()
		if k := <-entered; k != want {
			t.Errorf("a leave let in agent %d, want %d (the oldest waiting)", k, want)
		}
	}

	g.close()
	if k := <-entered; k != -3 {
		t.Errorf("close: waiting agent got %d, want to be turned away (-3)", k)
	}
	if g.enter(make(chan bool, 1)) {
		t.Error("enter of a closed gate took a place")
	}
	g.leave() // a place given back after the close goes to nobody
	if g.enter(make(chan bool, 1)) {
		t.Error("enter of a closed gate took a freed place")
	}
}

// TestGatedRunAllCancels: agents queued in a gate of one place leave it
// when the run's context ends, so RunAll returns promptly.
func TestGatedRunAllCancels(t *testing.T) {
	defer func(m, p int) { gateMin, gatePlaces = m, p }(gateMin, gatePlaces)
	gateMin, gatePlaces = 1, 1
	const n = 16
	tr := newTestTransport(t, TransportChan, n)
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- RunAll(ctx, nullAgents(t, ring(t, n), 2), tr, Options{Rounds: 1 << 30, PhaseDeadline: time.Minute})
	}()
	if err := StartWhenReady(ctx, obs, n); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range obs.Statuses() {
		}
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) { // blocked for good if the cancel did not end RunAll
		t.Fatalf("RunAll: %v, want context.Canceled", err)
	}
}
