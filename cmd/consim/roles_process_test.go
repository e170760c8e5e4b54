package main

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/consim/consim/coordinator"
)

// TestLaunchRolesMatchGoroutines: the algorithms whose agents hold
// different blocks or play roles (one network node per agent, a
// zeroth-order server, an upper-level agent with task agents,
// data-parallel agents) give the same final iterates, bit for bit, with
// every agent its own OS process (NATS over TCP loopback) and with
// goroutine agents over channels.
func TestLaunchRolesMatchGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts agent processes")
	}
	exe := consimBinary(t)
	for _, c := range []struct {
		path string
		sets []string
	}{
		{"../../scenarios/slicing_small.yaml", []string{"rounds=100", "metrics.every=50"}},
		{"../../scenarios/zosplm_qcqp.yaml", []string{"rounds=5", "metrics.every=5", "runtime.workers=0", "problem.n=10", "algorithm.directions=200"}},
		{"../../scenarios/tsp_quad.yaml", []string{"rounds=100", "metrics.every=50"}},
		{"../../scenarios/penalty_logistic.yaml", []string{"rounds=10", "metrics.every=5", "problem.samples=100"}},
	} {
		t.Run(c.path, func(t *testing.T) {
			var stderr bytes.Buffer
			sum, err := launch(context.Background(), launchOptions{path: c.path, sets: c.sets, out: t.TempDir(), runID: "procs", logLevel: "warn", exe: exe}, &stderr)
			if err != nil {
				t.Fatalf("launch: %v\nstderr:\n%s", err, stderr.String())
			}
			if sum.Status != coordinator.StatusOK || sum.Traffic.Dropouts != 0 {
				t.Fatalf("process run: status %s, %d dropouts; want ok, 0", sum.Status, sum.Traffic.Dropouts)
			}
			s, err := loadScenario(c.path, append(c.sets, "runtime.transport=chan", "output.dir="+t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := runScenario(context.Background(), s, "goroutines", hclog.NewNullLogger(), nil)
			if err != nil {
				t.Fatalf("goroutine run: %v", err)
			}
			got, want := readFinal(t, sum.Bundle), readFinal(t, ref.Bundle)
			if len(got.Agents) != s.Agents || len(want.Agents) != s.Agents {
				t.Fatalf("final iterates of %d and %d agents, want %d", len(got.Agents), len(want.Agents), s.Agents)
			}
			for i := range want.Agents {
				g, w := got.Agents[i], want.Agents[i]
				if g.Round != s.Rounds || w.Round != s.Rounds || len(g.X) != len(w.X) || len(w.X) == 0 {
					t.Fatalf("agent %d: processes (round %d, %d values), goroutines (round %d, %d values), want round %d",
						i, g.Round, len(g.X), w.Round, len(w.X), s.Rounds)
				}
				for k := range w.X {
					if math.Float64bits(g.X[k]) != math.Float64bits(w.X[k]) {
						t.Fatalf("agent %d x[%d]: processes %v, goroutines %v", i, k, g.X[k], w.X[k])
					}
				}
			}
		})
	}
}
