package coordinator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/null"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/internal/wallclock"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
)

// muteTransport is a transport whose endpoint of agent dead stops
// publishing anything (frames, statuses, heartbeats) once mute is set:
// to the others and the coordinator the agent is gone, as after kill -9.
type muteTransport struct {
	node.Transport
	dead int
	mute *atomic.Bool
}

func (m muteTransport) Endpoint(id int) (node.Endpoint, error) {
	ep, err := m.Transport.Endpoint(id)
	if err != nil || id != m.dead {
		return ep, err
	}
	return muteEndpoint{ep, m.mute}, nil
}

type muteEndpoint struct {
	node.Endpoint
	mute *atomic.Bool
}

func (e muteEndpoint) Publish(f []byte) error {
	if e.mute.Load() {
		return nil
	}
	return e.Endpoint.Publish(f)
}

func (e muteEndpoint) Status(f []byte) error {
	if e.mute.Load() {
		return nil
	}
	return e.Endpoint.Status(f)
}

// dying is an agent whose rounds take 5 ms (so heartbeats name them)
// and that calls die when it starts round at.
type dying struct {
	consensus.Agent
	at  int
	die func()
}

func (d dying) Send(t, ph int) consensus.Outbox {
	if t == d.at && ph == 0 {
		d.die()
	}
	if t < d.at {
		time.Sleep(5 * time.Millisecond)
	}
	return d.Agent.Send(t, ph)
}

// TestLostAgent runs null agents on a ring of 5 over the in-memory
// transport, with heartbeats every 5 ms and a report every 50 rounds of
// 200; agent 2 goes silent at round 10 (its endpoint stops publishing).
// The rounds of the others slow down (20 ms phase deadlines) so that a
// report period takes longer than the agent timeout (150 ms): only their
// heartbeats keep them live. Agent 2 is found lost either by its silence
// or by a notice on Config.Lost (a supervisor that saw its process
// exit), named with its round and process id; the run fails with
// ErrAgentLost, or with ContinueOnDeparture completes without it.
func TestLostAgent(t *testing.T) {
	const n, rounds, at, dead = 5, 200, 10, 2
	for _, tc := range []struct {
		name         string
		cont, notice bool
	}{{"silence-fail", false, false}, {"silence-continue", true, false}, {"notice-fail", false, true}, {"notice-continue", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := graph.Ring(n)
			if err != nil {
				t.Fatal(err)
			}
			ctr, err := node.NewChanTransport(n)
			if err != nil {
				t.Fatal(err)
			}
			defer ctr.Close()
			obs, err := ctr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			var mute atomic.Bool
			lost := make(chan Lost, 1)
			agents := make([]consensus.Agent, n)
			for i := range agents {
				if agents[i], err = null.NewAgent(i, g, 2, []float64{float64(i), 1}); err != nil {
					t.Fatal(err)
				}
			}
			agents[dead] = dying{agents[dead], at, func() {
				if !mute.Swap(true) && tc.notice {
					lost <- Lost{ID: dead, PID: 4242, Reason: "process exited: signal: killed"}
				}
			}}
			ctx := context.Background()
			done := make(chan error, 1)
			go func() {
				done <- node.RunAll(ctx, agents, muteTransport{ctr, dead, &mute}, node.Options{Rounds: rounds, ReportEvery: 50,
					PhaseDeadline: 20 * time.Millisecond, Heartbeat: 5 * time.Millisecond, CoordinatorTimeout: 2 * time.Second})
			}()
			cfg := testConfig(t, n)
			cfg.AgentTimeout = 150 * time.Millisecond
			cfg.Heartbeat = 5 * time.Millisecond
			cfg.ContinueOnDeparture = tc.cont
			if tc.notice {
				cfg.AgentTimeout = 5 * time.Second // the notice, not the silence
				cfg.Lost = lost
			}
			begin := time.Now()
			sum, err := Run(ctx, cfg, obs, EvaluatorFunc(func(reps []consensus.Report) (observe.Metrics, error) {
				return observe.Measure(nil, g, reps)
			}))
			took := time.Since(begin)
			if aerr := <-done; aerr != nil {
				t.Fatalf("agents: %v", aerr)
			}
			if len(sum.Faults) == 1 && sum.Faults[0].Kind == "unresponsive" && !tc.notice {
				// An agent of a loaded machine did not advance a round for
				// the 150 ms agent timeout while its heartbeats kept
				// coming, and was named stalled before agent 2's silence
				// was: the timing this test relies on did not hold.
				t.Skipf("a loaded machine: %s stalled for the agent timeout before agent %d's silence was noticed", sum.Faults[0].Message, dead)
			}
			if len(sum.Faults) != 1 || sum.Faults[0].Agent != dead || sum.Faults[0].Kind != "lost" {
				t.Fatalf("faults %+v, want agent %d lost and no other", sum.Faults, dead)
			}
			// Heartbeats come every 5 ms, rounds take 5 ms: the last one
			// names one of the last rounds.
			if f := sum.Faults[0]; f.Round < at-3 || f.Round > at {
				t.Errorf("lost at round %d, want %d..%d (the round of its last heartbeat)", f.Round, at-3, at)
			}
			if tc.notice && !strings.Contains(sum.Faults[0].Message, "agent 2 (pid 4242) lost at round") {
				t.Errorf("fault message %q does not name the agent, its process and round", sum.Faults[0].Message)
			}
			if !tc.notice && !strings.Contains(sum.Faults[0].Message, "no heartbeat") {
				t.Errorf("fault message %q does not say the heartbeats stopped", sum.Faults[0].Message)
			}
			if !tc.cont {
				var ae *AgentError
				if !errors.Is(err, ErrAgentLost) || !errors.As(err, &ae) || ae.ID != dead {
					t.Fatalf("err = %v, want agent %d lost", err, dead)
				}
				if sum.Status != StatusFailed || sum.StopCause != StopLost {
					t.Errorf("status %q cause %q, want failed, %s", sum.Status, sum.StopCause, StopLost)
				}
				if tc.notice {
					wallclock.Bound(t, "ending the run on the notice", took, 2*time.Second)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sum.Status != StatusOK || sum.Rounds != rounds {
				t.Fatalf("status %q after %d rounds, want ok after %d", sum.Status, sum.Rounds, rounds)
			}
			// Without the lost control each remaining round would wait
			// out the phase deadline for agent 2: 190 x 20 ms.
			wallclock.Bound(t, fmt.Sprintf("the run after agent %d was lost (waiting for it: 190 x 20 ms)", dead), took, 3*time.Second)
		})
	}
}
