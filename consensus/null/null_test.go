package null

import (
	"math"
	"testing"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/graph"
)

func path3(t *testing.T) *graph.Graph {
	t.Helper()
	g, err := graph.New(3, []graph.Edge{{I: 0, J: 1, P: 1}, {I: 1, J: 2, P: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestNewAgentRejectsBadInput(t *testing.T) {
	g := path3(t)
	tests := []struct {
		name string
		id   int
		g    *graph.Graph
		d    int
		x0   []float64
	}{
		{"nil graph", 0, nil, 1, nil},
		{"negative id", -1, g, 1, nil},
		{"id too large", 3, g, 1, nil},
		{"zero dimension", 0, g, 0, nil},
		{"x0 length", 0, g, 2, []float64{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewAgent(tc.id, tc.g, tc.d, tc.x0); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

// TestSynchronousRounds drives three agents on a path in lockstep: the
// first round is checked against a hand computation, and after many
// rounds the iterates agree, as the row-stochastic iteration with self
// weights on a connected graph converges to consensus.
func TestSynchronousRounds(t *testing.T) {
	g := path3(t)
	x0 := [][]float64{{0, 3}, {3, 0}, {6, 3}}
	agents := make([]*Agent, 3)
	for i := range agents {
		a, err := NewAgent(i, g, 2, x0[i])
		if err != nil {
			t.Fatal(err)
		}
		agents[i] = a
	}
	x0[0][0] = 99 // the agent keeps its own copy
	// One round by hand: x_0 = (x_0+x_1)/2, x_1 = (x_0+x_1+x_2)/3, x_2 = (x_1+x_2)/2.
	want := [][]float64{{1.5, 1.5}, {3, 2}, {4.5, 1.5}}
	for rounds := 0; rounds < 200; rounds++ {
		step(t, agents, rounds)
		if rounds == 0 {
			for i, a := range agents {
				for k, v := range a.Report().X {
					if v != want[i][k] {
						t.Fatalf("round 1: x_%d = %v, want %v", i, a.Report().X, want[i])
					}
				}
			}
		}
	}
	first := agents[0].Report().X
	for _, a := range agents {
		r := a.Report()
		if r.Round != 200 {
			t.Errorf("agent %d reports round %d, want 200", r.ID, r.Round)
		}
		for k, v := range r.X {
			if math.Abs(v-first[k]) > 1e-12 {
				t.Errorf("agent %d: x = %v, not in consensus with %v", r.ID, r.X, first)
			}
		}
	}
}

// step runs one synchronous round among agents, as a lossless runtime would.
func step(t *testing.T, agents []*Agent, round int) {
	t.Helper()
	boxes := make([]consensus.Outbox, len(agents))
	for i, a := range agents {
		boxes[i] = a.Send(round, 0)
	}
	inboxes := make([]consensus.Inbox, len(agents))
	for _, b := range boxes { // senders ascending, so inbox messages ascend by From
		for _, m := range b.Msgs {
			m.Data = append([]float64(nil), m.Data...)
			inboxes[m.To].Msgs = append(inboxes[m.To].Msgs, m)
		}
	}
	for i, a := range agents {
		if err := a.Receive(round, 0, inboxes[i]); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReceiveWithDropoutAveragesArrivals(t *testing.T) {
	a, err := NewAgent(1, path3(t), 1, []float64{3})
	if err != nil {
		t.Fatal(err)
	}
	a.Send(0, 0)
	in := consensus.Inbox{Msgs: []consensus.Msg{{From: 0, To: 1, Data: []float64{6}}}, Missing: []int{2}}
	if err := a.Receive(0, 0, in); err != nil {
		t.Fatal(err)
	}
	if got := a.Report().X[0]; got != 4.5 {
		t.Fatalf("x = %v, want (3+6)/2 = 4.5", got)
	}
	bad := consensus.Inbox{Msgs: []consensus.Msg{{From: 0, To: 1, Data: []float64{1, 2}}}}
	if err := a.Receive(1, 0, bad); err == nil {
		t.Fatal("want an error for a message of the wrong length")
	}
}
