package node

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
)

// reducer is a two-phase agent: in phase 0 it awaits a message from
// agent 0; in phase 1 its all-reduce term is (id+1, 1). It records every
// sum it receives.
type reducer struct {
	id   int
	sums [][]float64
}

func (a *reducer) ID() int        { return a.id }
func (a *reducer) Phases(int) int { return 2 }

func (a *reducer) Send(t, ph int) consensus.Outbox {
	if ph == 0 {
		return consensus.Outbox{Expect: []int{0}}
	}
	return consensus.Outbox{Reduce: []float64{float64(a.id + 1), 1}}
}

func (a *reducer) Receive(t, ph int, in consensus.Inbox) error {
	if ph == 1 {
		a.sums = append(a.sums, slices.Clone(in.Reduce))
	}
	return nil
}

func (a *reducer) Report() consensus.Report {
	return consensus.Report{ID: a.id, Round: len(a.sums)}
}

// TestReduceRootLeavesMidPhase scripts agent 0, the reduce root, from the
// test: it sends its round-0 phase-0 message, gathers the terms of the
// reduce (phase 1) of the agents that picked it and then leaves, skipping
// that phase, without a sum. Agents listed in knew get its leave before
// its message, so they pick agent 1 as the root from the beginning. Every agent must pick agent 1 again and finish well
// within the one-minute phase deadline, each sum being the sum of the
// live agents' terms (2+3+4, 3).
func TestReduceRootLeavesMidPhase(t *testing.T) {
	const n, rounds = 4, 3
	want := []float64{2 + 3 + 4, 3}
	tests := []struct {
		name string
		knew []int
	}{
		{"nobody knew", nil},
		{"a sender knew", []int{2}},
		{"the next root knew", []int{1}},
	}
	leave := mustFrame(t, FrameLeave, 0, 0, 1, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tr := newTestTransport(t, TransportChan, n)
			obs, err := tr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			defer obs.Close()
			eps := make([]Endpoint, n)
			for i := range eps {
				if eps[i], err = tr.Endpoint(i); err != nil {
					t.Fatal(err)
				}
				defer eps[i].Close()
			}
			for _, i := range tc.knew {
				if err := eps[0].Publish(mustFrameTo(t, FrameLeave, 0, []int{i}, 0, 1, nil)); err != nil {
					t.Fatal(err)
				}
			}
			for i := 1; i < n; i++ {
				if err := eps[0].Publish(mustFrameTo(t, FrameData, 0, []int{i}, 0, 0, []float64{1})); err != nil {
					t.Fatal(err)
				}
			}
			if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
				t.Fatal(err)
			}
			agents := make([]*reducer, n)
			errs := make(chan error, n-1)
			for i := 1; i < n; i++ {
				agents[i] = &reducer{id: i}
				go func() { errs <- Run(ctx, agents[i], eps[i], Options{N: n, Rounds: rounds, PhaseDeadline: time.Minute}) }()
			}

			// Agent 0 gathers the terms sent to it, then leaves.
			pending := map[int]bool{}
			for i := 1; i < n; i++ {
				pending[i] = !slices.Contains(tc.knew, i)
			}
			for left := n - 1 - len(tc.knew); left > 0; left-- {
				f, ok := <-eps[0].Inbox()
				if !ok {
					t.Fatalf("agent 0's inbox closed while it awaits terms from %v", pending)
				}
				h, err := DecodeHeader(f)
				if err != nil || h.Kind != FrameReduce || h.Round != 0 || h.Phase != 1 || !pending[h.From] {
					t.Fatalf("agent 0 got frame %+v (%v), want a round-0 phase-1 term from one of %v", h, err, pending)
				}
				pending[h.From] = false
			}
			if err := eps[0].Publish(leave); err != nil {
				t.Fatal(err)
			}

			for i := 1; i < n; i++ {
				if err := <-errs; err != nil {
					t.Fatalf("%v (a reduce waited for its deadline)", err)
				}
			}
			for _, a := range agents[1:] {
				if len(a.sums) != rounds {
					t.Fatalf("agent %d received %d sums, want %d", a.id, len(a.sums), rounds)
				}
				for r, s := range a.sums {
					if !slices.Equal(s, want) {
						t.Errorf("agent %d round %d: sum %v, want %v", a.id, r, s, want)
					}
				}
			}
		})
	}
}
