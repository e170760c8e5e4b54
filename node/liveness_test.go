package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/consim/consim/internal/wallclock"
)

// TestLostPeerIsNotAwaited runs three agents on a ring, agent 1 silent,
// with a phase deadline of 400 ms: without a lost control agent 0 waits
// out the deadline for agent 1 in each of the 20 rounds (8 s, see
// TestSilentPeerIsADropout); with the lost control naming agent 1, sent
// at agent 0's first progress status, it waits in at most the round in
// which the control arrives. (The deadline is long so that rounds slowed
// by a loaded machine under the race detector, 50-90 ms each, are not
// taken for waiting.) The messages of agent 1 are still missing,
// so every round counts its dropout.
func TestLostPeerIsNotAwaited(t *testing.T) {
	const n, rounds = 3, 20
	for _, kind := range []TransportKind{TransportChan, TransportNATS} {
		t.Run(string(kind), func(t *testing.T) {
			agents := nullAgents(t, ring(t, n), 2)
			agents[1] = silent{agents[1]}
			tr := newTestTransport(t, kind, n)
			var mu sync.Mutex
			sent := false
			var sentAt time.Time
			var sentRound int
			const deadline = 400 * time.Millisecond
			opts := Options{Rounds: rounds, ReportEvery: 1, PhaseDeadline: deadline, Heartbeat: 5 * time.Millisecond}
			res, err := runObserved(t, tr, agents, opts, func(obs Observer, s Status) {
				mu.Lock()
				defer mu.Unlock()
				if s.ID == 0 && s.Kind == StatusProgress && !sent {
					sent, sentAt, sentRound = true, time.Now(), s.Report.Round
					if err := obs.Control(EncodeControl(Control{Kind: ControlLost, Agent: 1})); err != nil {
						t.Error(err)
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			// Counted from the control, not from the start: on a loaded
			// machine agent 0's first progress status may come late, and
			// the rounds before it wait out their deadlines as they should.
			// Waiting for agent 1 in every remaining round would take
			// (rounds - sentRound) deadlines; the bound is half of that.
			left := rounds - sentRound
			if left < rounds/2 {
				t.Skipf("the control went at round %d of %d: too few rounds left to tell waiting from not (loaded machine)", sentRound, rounds)
			}
			// Waiting for agent 1 would cost every round left a deadline.
			wallclock.Bound(t, fmt.Sprintf("the run after the lost control at round %d (%d rounds of %v left)", sentRound, left, deadline),
				time.Since(sentAt), time.Duration(left)*deadline/2)
			s0 := res.terminal[0]
			if s0.Kind != StatusFinal || s0.Report.Round != rounds {
				t.Fatalf("agent 0: %s at round %d, want final at %d", s0.Kind, s0.Report.Round, rounds)
			}
			if got := s0.Traffic.DropoutsByPeer[1]; got != rounds {
				t.Errorf("agent 0: %d dropouts from agent 1, want %d (one a round)", got, rounds)
			}
		})
	}
}

// TestAliveStatuses reads the statuses of one agent on a ring of two
// whose peer is silent: alive statuses come every Heartbeat, with this
// process's id and the round the agent is in, non-decreasing. A lost
// control naming the agent itself stops it, with a final status that
// says so.
func TestAliveStatuses(t *testing.T) {
	tr := newTestTransport(t, TransportChan, 2)
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	ep, err := tr.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	a := nullAgents(t, ring(t, 2), 1)[0]
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, a, ep, Options{N: 2, Rounds: 1000, PhaseDeadline: 10 * time.Millisecond, Heartbeat: 5 * time.Millisecond})
	}()
	alive, last := 0, -1
	for alive < 10 {
		s, err := DecodeStatus(<-obs.Statuses())
		if err != nil {
			t.Fatal(err)
		}
		switch s.Kind {
		case StatusReady:
			if err := obs.Control(EncodeControl(Control{Kind: ControlStart})); err != nil {
				t.Fatal(err)
			}
		case StatusAlive:
			alive++
			if s.ID != 0 || s.PID != os.Getpid() || s.Report.ID != 0 || s.Report.Round < last {
				t.Fatalf("alive status %+v after round %d: want agent 0, pid %d, round >= %d", s, last, os.Getpid(), last)
			}
			last = s.Report.Round
		}
	}
	if last < 1 {
		t.Errorf("alive statuses stayed at round %d while the agent ran 10 ms rounds", last)
	}
	if err := obs.Control(EncodeControl(Control{Kind: ControlLost, Agent: 0})); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v, want a stop", err)
	}
	for {
		s, err := DecodeStatus(<-obs.Statuses())
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind == StatusFinal {
			if s.Stop != "declared lost by the coordinator" || s.Report.Round >= 1000 {
				t.Errorf("final status at round %d, stop %q: want an early stop naming the lost control", s.Report.Round, s.Stop)
			}
			break
		}
	}
}

// TestCoordinatorLost sends start and then an alive control every 20 ms
// for 300 ms, then nothing: the agents (a ring of two, one silent, so the
// rounds are slow) run on while the controls come and fail with
// ErrCoordinatorLost CoordinatorTimeout (100 ms) after they stop.
func TestCoordinatorLost(t *testing.T) {
	const timeout, beating = 100 * time.Millisecond, 300 * time.Millisecond
	tr := newTestTransport(t, TransportChan, 2)
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	agents := nullAgents(t, ring(t, 2), 1)
	agents[1] = silent{agents[1]}
	quietc := make(chan time.Time, 1)
	go func() {
		if err := StartWhenReady(context.Background(), obs, 2); err != nil {
			t.Error(err)
			quietc <- time.Time{}
			return
		}
		end := time.Now().Add(beating)
		for time.Now().Before(end) {
			time.Sleep(20 * time.Millisecond)
			_ = obs.Control(EncodeControl(Control{Kind: ControlAlive}))
		}
		quietc <- time.Now()
	}()
	begin := time.Now()
	err = RunAll(context.Background(), agents, tr, Options{Rounds: 100000, PhaseDeadline: 20 * time.Millisecond, CoordinatorTimeout: timeout})
	took := time.Since(begin)
	if !errors.Is(err, ErrCoordinatorLost) {
		t.Fatalf("RunAll: %v, want ErrCoordinatorLost", err)
	}
	if took < beating {
		t.Errorf("the agents gave up after %v, while the coordinator's controls came for %v", took, beating)
	}
	quiet := <-quietc
	if quiet.IsZero() {
		t.Fatal("the coordinator's controls did not start")
	}
	wallclock.Bound(t, "giving up after the last control", time.Since(quiet), timeout+2*time.Second)
}
