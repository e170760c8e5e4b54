package node

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
)

// Roles of the star test: a server, three workers and two bystanders.
const (
	starServer = 0
	starN      = 6
	starEta    = 0.5
)

var (
	starWorkers    = []int{1, 2, 3}
	starBystanders = []int{4, 5}
)

// starData is worker i's a_i in R^2.
func starData(i int) []float64 { return []float64{float64(i*i) / 3, 1 - float64(i)/7} }

// starAgent is one role of a star that minimizes (1/2) sum_i ||x - a_i||^2
// over the workers i = 1, 2, 3 by gradient steps, in three phases a round:
//
//	0: the server sends x to each worker (Msgs off any graph);
//	1: the workers reduce g_i = x - a_i over the group {1, 2, 3}; the
//	   bystanders 4 and 5 reduce (id, t) over their own group {4, 5};
//	2: worker 3 sends the sum to the server, which steps
//	   x <- x - eta (g_1 + g_2 + g_3)/3.
//
// The server never takes part in a reduce, and the bystanders exchange
// nothing with the star.
type starAgent struct {
	id    int
	a, x  []float64
	g     []float64
	sums  [][]float64 // every reduce sum received
	xs    [][]float64 // worker: every x received
	msgs  []consensus.Msg
	round int
}

func newStar(id int) *starAgent {
	a := &starAgent{id: id, x: []float64{3, -2}, g: make([]float64, 2)}
	if slices.Contains(starWorkers, id) {
		a.a = starData(id)
	}
	return a
}

func starAgents() []consensus.Agent {
	agents := make([]consensus.Agent, starN)
	for i := range agents {
		agents[i] = newStar(i)
	}
	return agents
}

func (a *starAgent) ID() int        { return a.id }
func (a *starAgent) Phases(int) int { return 3 }

func (a *starAgent) Send(t, ph int) consensus.Outbox {
	worker := slices.Contains(starWorkers, a.id)
	switch {
	case a.id == starServer && ph == 0:
		a.msgs = a.msgs[:0]
		for _, j := range starWorkers {
			a.msgs = append(a.msgs, consensus.Msg{From: a.id, To: j, Data: a.x})
		}
		return consensus.Outbox{Msgs: a.msgs}
	case a.id == starServer && ph == 2:
		return consensus.Outbox{Expect: []int{3}}
	case worker && ph == 0:
		return consensus.Outbox{Expect: []int{starServer}}
	case worker && ph == 1:
		for k := range a.g {
			a.g[k] = a.x[k] - a.a[k]
		}
		return consensus.Outbox{Reduce: a.g, Group: starWorkers}
	case a.id == 3 && ph == 2:
		return consensus.Outbox{Msgs: []consensus.Msg{{From: 3, To: starServer, Data: a.sums[len(a.sums)-1]}}}
	case !worker && a.id != starServer && ph == 1:
		return consensus.Outbox{Reduce: []float64{float64(a.id), float64(t)}, Group: starBystanders}
	}
	return consensus.Outbox{}
}

func (a *starAgent) Receive(t, ph int, in consensus.Inbox) error {
	if len(in.Missing) > 0 {
		return fmt.Errorf("round %d phase %d: missing %v", t, ph, in.Missing)
	}
	switch {
	case a.id == starServer && ph == 2:
		s := in.Msgs[0].Data
		for k := range a.x {
			a.x[k] -= starEta * s[k] / 3
		}
	case a.id != starServer && ph == 0 && len(in.Msgs) == 1:
		copy(a.x, in.Msgs[0].Data)
		a.xs = append(a.xs, slices.Clone(a.x))
	case in.Reduce != nil:
		a.sums = append(a.sums, slices.Clone(in.Reduce))
	}
	if ph == 2 {
		a.round = t + 1
	}
	return nil
}

func (a *starAgent) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: a.round, X: slices.Clone(a.x)}
}

// starReference is the server's iteration written out: x_{t+1} = x_t -
// eta (g_1 + g_2 + g_3)/3 with g_i = x_t - a_i, summed in ascending i.
// It returns the iterates x_0..x_rounds and the sums.
func starReference(rounds int) (xs, sums [][]float64) {
	x := []float64{3, -2}
	xs = append(xs, slices.Clone(x))
	for range rounds {
		s := make([]float64, 2)
		for n, i := range starWorkers {
			for k := range s {
				g := x[k] - starData(i)[k]
				if n == 0 {
					s[k] = g
				} else {
					s[k] += g
				}
			}
		}
		for k := range x {
			x[k] -= starEta * s[k] / 3
		}
		xs, sums = append(xs, slices.Clone(x)), append(sums, s)
	}
	return xs, sums
}

// TestStarGroupReduce runs the star (a server, three workers exchanging
// with it by Msgs although no graph links them, a group reduce over the
// workers) beside two bystanders reducing over their own group in the same
// phase, on every transport, with a one-minute deadline: a member waiting
// for an agent outside its group would stall the run. The server's
// iterates equal the reference's bit for bit and converge to the minimizer
// mean_i a_i; every worker receives the same sums; each bystander receives
// exactly one frame a round (the other's term or the group sum) and the
// server none of the reduce's; nothing is missing or unexpected.
func TestStarGroupReduce(t *testing.T) {
	const rounds = 40
	xs, sums := starReference(rounds)
	mean := make([]float64, 2)
	for _, i := range starWorkers {
		for k, v := range starData(i) {
			mean[k] += v / 3
		}
	}
	for k := range mean {
		if d := math.Abs(xs[rounds][k] - mean[k]); d > 1e-10 {
			t.Fatalf("reference x[%d] = %v, %g from the minimizer %v", k, xs[rounds][k], d, mean[k])
		}
	}
	for _, kind := range TransportKinds {
		t.Run(string(kind), func(t *testing.T) {
			agents := starAgents()
			res, err := runObserved(t, newTestTransport(t, kind, starN), agents, Options{Rounds: rounds, PhaseDeadline: time.Minute}, nil)
			if err != nil {
				t.Fatal(err)
			}
			server := agents[starServer].(*starAgent)
			if !slices.Equal(server.x, xs[rounds]) {
				t.Errorf("server x = %v, want %v bit for bit", server.x, xs[rounds])
			}
			for _, i := range starWorkers {
				got := agents[i].(*starAgent).sums
				if len(got) != rounds {
					t.Fatalf("worker %d received %d sums, want %d", i, len(got), rounds)
				}
				for r := range got {
					if !slices.Equal(got[r], sums[r]) {
						t.Fatalf("worker %d round %d: sum %v, want %v", i, r, got[r], sums[r])
					}
				}
			}
			for _, i := range starBystanders {
				got := agents[i].(*starAgent).sums
				for r, s := range got {
					if want := []float64{4 + 5, 2 * float64(r)}; !slices.Equal(s, want) {
						t.Fatalf("bystander %d round %d: sum %v, want %v", i, r, s, want)
					}
				}
				if len(got) != rounds {
					t.Fatalf("bystander %d received %d sums, want %d", i, len(got), rounds)
				}
				if recv := res.terminal[i].Traffic.MsgsRecv; recv != rounds {
					t.Errorf("bystander %d received %d frames, want %d (its group's only)", i, recv, rounds)
				}
			}
			if recv := res.terminal[starServer].Traffic.MsgsRecv; recv != rounds {
				t.Errorf("server received %d frames, want %d (worker 3's sums only)", recv, rounds)
			}
			for i, s := range res.terminal {
				tr := s.Traffic
				if s.Kind != StatusFinal || tr.Dropouts != 0 || tr.ReduceMissing != 0 || tr.Unexpected != 0 || tr.Late != 0 {
					t.Errorf("agent %d: %s, traffic %+v", i, s.Kind, tr)
				}
			}
		})
	}
}

// TestGroupRootLeaves: worker 1, the root of the workers' group, fails in
// round 2. Its leave frame makes worker 2 the root at once (the deadline
// is a minute), workers 2 and 3 then receive g_2 + g_3, and every other
// agent finishes.
func TestGroupRootLeaves(t *testing.T) {
	const rounds, at = 5, 2
	for _, kind := range []TransportKind{TransportChan, TransportNATS} {
		t.Run(string(kind), func(t *testing.T) {
			agents := starAgents()
			agents[1] = failing{Agent: agents[1], at: at}
			res, err := runObserved(t, newTestTransport(t, kind, starN), agents, Options{Rounds: rounds, PhaseDeadline: time.Minute}, nil)
			if !errors.Is(err, errBoom) {
				t.Fatalf("error %v, want agent 1's", err)
			}
			w2, w3 := agents[2].(*starAgent), agents[3].(*starAgent)
			if !slices.EqualFunc(w2.sums, w3.sums, slices.Equal) || len(w2.sums) != rounds {
				t.Fatalf("workers 2 and 3 received %d and %d sums, want %d equal ones", len(w2.sums), len(w3.sums), rounds)
			}
			for r := range rounds {
				s, x := w2.sums[r], w2.xs[r]
				for k := range s {
					// g_1 + g_2 + g_3 before the failure, g_2 + g_3 after.
					want := x[k] - starData(2)[k]
					if r < at {
						want = (x[k] - starData(1)[k]) + want
					}
					want += x[k] - starData(3)[k]
					if s[k] != want {
						t.Fatalf("round %d: sum %v, want %v at k=%d", r, s, want, k)
					}
				}
			}
			for i, s := range res.terminal {
				if i != 1 && (s.Kind != StatusFinal || s.Report.Round != rounds) {
					t.Errorf("agent %d: %s after round %d, want final after %d", i, s.Kind, s.Report.Round, rounds)
				}
			}
		})
	}
}

// TestGroupValidation: a bad Outbox.Group fails the agent with an error
// that says what is wrong.
func TestGroupValidation(t *testing.T) {
	tests := []struct {
		group  []int
		reduce []float64
		text   string
	}{
		{[]int{0, 2, 1}, []float64{1}, "not strictly ascending"},
		{[]int{0, 0}, []float64{1}, "not strictly ascending"},
		{[]int{1, 2}, []float64{1}, "does not contain agent 0"},
		{[]int{0, 3}, []float64{1}, "agent 3 outside 0..2"},
		{[]int{0, 1}, nil, "without a reduce term"},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			tr := newTestTransport(t, TransportChan, 3)
			ep, err := tr.Endpoint(0)
			if err != nil {
				t.Fatal(err)
			}
			defer ep.Close()
			obs, err := tr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			defer obs.Close()
			if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
				t.Fatal(err)
			}
			a := fixedOutbox{consensus.Outbox{Reduce: tc.reduce, Group: tc.group}}
			err = Run(context.Background(), a, ep, Options{N: 3, Rounds: 1})
			if err == nil || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("error %v, want one with %q", err, tc.text)
			}
		})
	}
}

// fixedOutbox is agent 0 with one phase whose outbox is given.
type fixedOutbox struct{ out consensus.Outbox }

func (a fixedOutbox) ID() int                                 { return 0 }
func (a fixedOutbox) Phases(int) int                          { return 1 }
func (a fixedOutbox) Send(int, int) consensus.Outbox          { return a.out }
func (a fixedOutbox) Receive(int, int, consensus.Inbox) error { return nil }
func (a fixedOutbox) Report() consensus.Report                { return consensus.Report{} }
