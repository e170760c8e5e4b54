package main

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/coordinator"
)

// TestLaunchDirected runs scenarios/pushsum64.yaml with 8 agents (and graph.q = 0.5), each
// its own process over NATS on TCP loopback, and with goroutine agents
// over channels: the processes draw the same arcs from the common
// randomness, and every final estimate agrees bit for bit and is the
// average of the initial points.
func TestLaunchDirected(t *testing.T) {
	exe := consimBinary(t)
	const path = "../../scenarios/pushsum64.yaml"
	sets := []string{"agents=8", "graph.q=0.5", "rounds=120"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	sum, err := launch(ctx, launchOptions{path: path, sets: sets, out: t.TempDir(), runID: "pushsum-procs", logLevel: "warn", exe: exe}, &stderr)
	if err != nil {
		t.Fatalf("launch: %v\nstderr:\n%s", err, stderr.String())
	}
	if sum.Status != coordinator.StatusOK || sum.Rounds != 120 || sum.Traffic.Dropouts != 0 {
		t.Fatalf("process run: status %s, %d rounds, %d dropouts; want ok, 120, 0", sum.Status, sum.Rounds, sum.Traffic.Dropouts)
	}
	s, err := loadScenario(path, append(sets, "runtime.transport=chan", "output.dir="+t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	avg := make([]float64, 4)
	for _, x := range st.Env.InitialPoints() {
		for l, v := range x {
			avg[l] += v / 8
		}
	}
	ref, err := runScenario(ctx, s, "pushsum-goroutines", hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatalf("goroutine run: %v", err)
	}
	got, want := readFinal(t, sum.Bundle), readFinal(t, ref.Bundle)
	if len(got.Agents) != 8 || len(want.Agents) != 8 {
		t.Fatalf("final iterates of %d and %d agents, want 8", len(got.Agents), len(want.Agents))
	}
	for i := range want.Agents {
		g, w := got.Agents[i], want.Agents[i]
		if g.Round != 120 || len(g.X) != 4 || len(w.X) != 4 {
			t.Fatalf("agent %d: round %d with %d values, goroutines %d values", i, g.Round, len(g.X), len(w.X))
		}
		for k := range w.X {
			if math.Float64bits(g.X[k]) != math.Float64bits(w.X[k]) {
				t.Errorf("agent %d z[%d]: processes %v, goroutines %v", i, k, g.X[k], w.X[k])
			}
			if math.Abs(g.X[k]-avg[k]) > 1e-12 {
				t.Errorf("agent %d z[%d] = %v, average %v", i, k, g.X[k], avg[k])
			}
		}
	}
}
