package coordinator

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/null"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
)

// TestRunDepartedAgent runs null agents on a ring over the in-memory
// transport; agent 2 crashes for good at round 10 of 30. With
// ContinueOnDeparture the run completes: the departure is recorded as a
// fault, and the rounds after it are measured over the other agents.
// Without it the run fails with ErrAgentDeparted naming agent 2.
func TestRunDepartedAgent(t *testing.T) {
	const n, rounds, at, crashed = 5, 30, 10, 2
	for _, cont := range []bool{true, false} {
		t.Run(map[bool]string{true: "continue", false: "fail"}[cont], func(t *testing.T) {
			g, err := graph.Ring(n)
			if err != nil {
				t.Fatal(err)
			}
			agents := make([]consensus.Agent, n)
			for i := range agents {
				if agents[i], err = null.NewAgent(i, g, 2, []float64{float64(i), 1}); err != nil {
					t.Fatal(err)
				}
			}
			tr, err := node.NewChanTransport(n)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			obs, err := tr.Observer()
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			done := make(chan error, 1)
			go func() {
				done <- node.RunAll(ctx, agents, tr, node.Options{Rounds: rounds, ReportEvery: 5, PhaseDeadline: 20 * time.Millisecond,
					Faults: node.Faults{Crashes: []node.Crash{{Agent: crashed, At: at}}}})
			}()
			cfg := testConfig(t, n)
			cfg.ContinueOnDeparture = cont
			sum, err := Run(ctx, cfg, obs, EvaluatorFunc(func(reps []consensus.Report) (observe.Metrics, error) {
				return observe.Measure(nil, g, reps)
			}))
			if aerr := <-done; aerr != nil {
				t.Fatalf("agents: %v", aerr)
			}
			if len(sum.Faults) != 1 || sum.Faults[0].Agent != crashed || sum.Faults[0].Kind != "departed" {
				t.Errorf("faults %+v, want agent %d departed", sum.Faults, crashed)
			}
			if !cont {
				var ae *AgentError
				if !errors.Is(err, ErrAgentDeparted) || !errors.As(err, &ae) || ae.ID != crashed ||
					!strings.Contains(err.Error(), "agent 2 departed") {
					t.Fatalf("err = %v, want agent %d departed", err, crashed)
				}
				if sum.Status != StatusFailed || sum.StopCause != StopDeparted {
					t.Errorf("status %q cause %q, want failed, departed", sum.Status, sum.StopCause)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sum.Status != StatusOK || sum.Rounds != rounds || sum.Final == nil || sum.Final.Round != rounds {
				t.Fatalf("status %q after %d rounds, final %+v; want ok after %d", sum.Status, sum.Rounds, sum.Final, rounds)
			}
			rows := readRows(t, filepath.Join(cfg.OutDir, cfg.RunID, "metrics.jsonl"))
			if len(rows) != rounds/5+1 {
				t.Errorf("%d rows, want one every 5 rounds from 0 to %d", len(rows), rounds)
			}
		})
	}
}
