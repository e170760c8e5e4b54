package sim_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// TestSweepRun runs a 2-point grid with 2 seeds through NewSweep and
// Sweep.Run: four runs in expansion order (seeds innermost), a done call
// per run, the bundles and tables written; a second sweep of the same id
// is refused as input.
func TestSweepRun(t *testing.T) {
	out := t.TempDir()
	path := filepath.Join(out, "tiny.yaml")
	if err := os.WriteFile(path, []byte(`name: tiny
seed: 3
agents: 3
graph: {topology: complete, p: 1}
problem: {kind: least_squares, dim: 2, samples_per_agent: 10, batch: 5}
algorithm: {name: alm}
rounds: 20
metrics: {every: 10}
runtime: {transport: chan}
sweep:
  grid:
    graph.p: [1, 0.5]
  seeds: 2
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.LoadWith(path, "output.dir="+out)
	if err != nil {
		t.Fatal(err)
	}
	sw, err := sim.NewSweep(s, sim.SweepOptions{ID: "s1", Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Points) != 4 || sw.Parallel != 2 || sw.Dir != filepath.Join(out, "s1") {
		t.Fatalf("%d points, %d at once, dir %s", len(sw.Points), sw.Parallel, sw.Dir)
	}
	var done int
	res, err := sw.Run(context.Background(), func(p sim.SweepProgress) {
		done++
		if p.Done != done || p.Total != 4 {
			t.Errorf("progress %d/%d, want %d/4", p.Done, p.Total, done)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if done != 4 || len(res.Table.Rows) != 4 || res.Failed != 0 {
		t.Fatalf("%d done calls, %d rows, %d failed", done, len(res.Table.Rows), res.Failed)
	}
	for k, r := range res.Table.Rows {
		if want := uint64(3 + k%2); r.Seed != want || r.Stats.Status != coordinator.StatusOK {
			t.Errorf("row %d: seed %d, status %s; want seed %d, ok", k, r.Seed, r.Stats.Status, want)
		}
	}
	for _, f := range []string{"scenario.yaml", "sweep.csv", "aggregate.md", "runs/s1-003/summary.json"} {
		if _, err := os.Stat(filepath.Join(sw.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := sim.NewSweep(s, sim.SweepOptions{ID: "s1"}); !errors.Is(err, sim.ErrInput) {
		t.Errorf("a second sweep s1: error %v, want one wrapping ErrInput", err)
	}
}
