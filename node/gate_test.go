package node

import (
	"context"
	"testing"
)

// TestGateOf: no gate below gateMin agents; a gate holds its places, an
// enter that finds it full gives up when the context ends, and a leave
// frees a place. (TestDeterministicAcrossTransports runs agents through a
// gate of one place.)
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
