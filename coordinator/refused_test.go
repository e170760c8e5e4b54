package coordinator

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/null"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/node"
	"github.com/consim/consim/observe"
)

// TestRunRefusedInSummary runs null agents over NATS on TCP, on a server
// without users (as an external server may be), while a client without
// the run key, connected to the same server, publishes a
// stop on the control subject, a leave as agent 1, a data frame as agent
// 2 and a failed status as agent 3, as soon as round 0 is measured. None
// acts: the run ends ok after every round, and the summary counts each
// forged message as refused, by subject: the status by the coordinator,
// the others by the agents.
func TestRunRefusedInSummary(t *testing.T) {
	const n, rounds = 5, 300
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
	cfg := testConfig(t, n)
	cfg.Rounds, cfg.ReportEvery = rounds, 50
	srv, err := node.StartNATSServer(node.NATSServerOptions{Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	key, err := node.NewRunKey()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := node.NewNATSTransport(node.NATSOptions{RunID: cfg.RunID, URL: srv.ClientURL(), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	obs, err := tr.Observer()
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(tr.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	run := cfg.RunID
	leave, err := node.AppendFrame(nil, node.FrameLeave, 1, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := node.AppendFrameTo(nil, node.FrameData, 2, []int{1, 3}, 2, 0, []float64{1e9, 1e9})
	if err != nil {
		t.Fatal(err)
	}
	failed, err := node.EncodeStatus(node.Status{Kind: node.StatusFailed, ID: 3, Err: "forged"})
	if err != nil {
		t.Fatal(err)
	}
	forged := []struct {
		subject string
		data    []byte
	}{
		{node.SubjectControl(run), node.EncodeControl(node.Control{Kind: node.ControlStop, Reason: "forged"})},
		{node.SubjectAgent(run, 1), leave},
		{node.SubjectAgent(run, 2), data},
		{node.SubjectStatus(run, 3), failed},
	}
	injected := false
	cfg.Progress = func(Progress) {
		if injected {
			return
		}
		injected = true
		for _, f := range forged {
			if err := nc.Publish(f.subject, f.data); err != nil {
				t.Error(err)
			}
		}
		if err := nc.Flush(); err != nil {
			t.Error(err)
		}
	}
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		done <- node.RunAll(ctx, agents, tr, node.Options{Rounds: rounds, ReportEvery: 50, PhaseDeadline: 10 * time.Second})
	}()
	sum, err := Run(ctx, cfg, obs, EvaluatorFunc(func(reps []consensus.Report) (observe.Metrics, error) {
		return observe.Measure(nil, g, reps)
	}))
	if aerr := <-done; aerr != nil {
		t.Fatalf("agents: %v", aerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != StatusOK || sum.StopCause != StopRounds || sum.Rounds != rounds || sum.Traffic.Dropouts != 0 {
		t.Fatalf("status %q cause %q after %d rounds with %d dropouts; want ok, rounds, %d, 0",
			sum.Status, sum.StopCause, sum.Rounds, sum.Traffic.Dropouts, rounds)
	}
	if sum.Traffic.Refused != int64(len(forged)) {
		t.Errorf("%d refused, want %d: %v", sum.Traffic.Refused, len(forged), sum.Traffic.RefusedBySubject)
	}
	for _, f := range forged {
		if sum.Traffic.RefusedBySubject[f.subject] != 1 {
			t.Errorf("refused by subject %v: want one on %s", sum.Traffic.RefusedBySubject, f.subject)
		}
	}
}

// TestRunStoppedElsewhere: the agents end early on a stop control this
// coordinator did not send (their final statuses carry its reason). The
// run is reported as stopped, not ok, naming the agent and the reason,
// and Run returns ErrStoppedElsewhere.
func TestRunStoppedElsewhere(t *testing.T) {
	const n = 3
	s := sim{n: n, rounds: 10, every: 2}
	obs := newFakeObserver()
	push := func(st node.Status) {
		b, err := node.EncodeStatus(st)
		if err != nil {
			t.Fatal(err)
		}
		obs.statuses <- b
	}
	for i := range n {
		push(node.Status{Kind: node.StatusReady, ID: i})
	}
	for i := range n {
		push(s.status(node.StatusProgress, i, 0))
		final := s.status(node.StatusFinal, i, 3)
		final.Stop = "not from this coordinator"
		push(final)
	}
	cfg := testConfig(t, n)
	cfg.Rounds, cfg.ReportEvery = s.rounds, s.every
	ev := EvaluatorFunc(func([]consensus.Report) (observe.Metrics, error) { return observe.Metrics{}, nil })
	sum, err := Run(context.Background(), cfg, obs, ev)
	if !errors.Is(err, ErrStoppedElsewhere) || !strings.Contains(err.Error(), "not from this coordinator") {
		t.Fatalf("err = %v, want ErrStoppedElsewhere with the stop's reason", err)
	}
	if sum.Status != StatusStopped || sum.StopCause != StopElsewhere || !strings.Contains(sum.Reason, "agent 0") {
		t.Errorf("status %q cause %q reason %q, want stopped, %s, naming agent 0", sum.Status, sum.StopCause, sum.Reason, StopElsewhere)
	}
	for _, c := range obs.sentControls() {
		if c.Kind == node.ControlStop {
			return
		}
	}
	t.Errorf("controls %v: the coordinator should still stop the others", obs.sentControls())
}
