package node

import (
	"context"
	"testing"
)

// TestGatedAgentsMatchLockstep runs the agents of TestDeterministicAcrossTransports
// through a gate of one place (each agent runs alone between its waits):
// the iterates equal the lockstep driver's bit for bit, and nothing waits
// forever for a place.
func TestGatedAgentsMatchLockstep(t *testing.T) {
	defer func(m, p int) { gateMin, gatePlaces = m, p }(gateMin, gatePlaces)
	gateMin, gatePlaces = 1, 1
	const n, rounds = 6, 25
	g := ring(t, n)
	for _, alg := range algorithms {
		want := alg.make(t, g)
		lockstep(t, want, rounds)
		for _, kind := range TransportKinds {
			t.Run(alg.name+"/"+string(kind), func(t *testing.T) {
				agents := alg.make(t, g)
				if _, err := runObserved(t, newTestTransport(t, kind, n), agents, Options{Rounds: rounds, ReportEvery: 10}, nil); err != nil {
					t.Fatal(err)
				}
				sameBits(t, agents, want)
			})
		}
	}
}

func TestGateOf(t *testing.T) {
	defer func(m int) { gateMin = m }(gateMin)
	gateMin = 100
	if g := gateOf(99, 4); g != nil {
		t.Errorf("gate for 99 agents below gateMin 100: %v, want none", g)
	}
	g := gateOf(100, 4)
	if g == nil || cap(g.places) != 4 {
		t.Fatalf("gate for 100 agents: %v, want 4 places", g)
	}
	for range 4 {
		if !g.enter(t.Context()) {
			t.Fatal("enter failed with free places")
		}
	}
	if len(g.places) != 4 {
		t.Errorf("%d places taken, want 4", len(g.places))
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if g.enter(ctx) {
		t.Error("enter of a full gate with an ended context took a place")
	}
	g.leave()
	if len(g.places) != 3 {
		t.Errorf("%d places taken after a leave, want 3", len(g.places))
	}
}
