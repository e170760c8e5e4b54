package sim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// TestSteppedMatchesChan runs one small scenario (a 5 x 5 torus with edges
// up with probability 0.7, the ALM with its safeguard's reduce every 10
// rounds) on the channel transport and on the stepped engine, and compares
// every agent's final iterate bit for bit (final.json keeps the shortest
// decimal that parses back to the same float64) and the measured rows.
func TestSteppedMatchesChan(t *testing.T) {
	out := t.TempDir()
	run := func(transport string) (*coordinator.Summary, coordinator.FinalIterates, []map[string]any) {
		s, err := scenarios.LoadWith("../scenarios/scale_10k.yaml", "agents=25", "graph.rows=5", "graph.cols=5",
			"graph.p=0.7", "rounds=120", "metrics.every=20", "runtime.transport="+transport, "output.dir="+out)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := sim.Run(context.Background(), s, sim.Options{RunID: transport})
		if err != nil {
			t.Fatalf("%s: %v", transport, err)
		}
		var f coordinator.FinalIterates
		data, err := os.ReadFile(filepath.Join(out, transport, coordinator.FinalFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(filepath.Join(out, transport, coordinator.MetricsJSONFile))
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		var rows []map[string]any
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var r map[string]any
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r)
		}
		return sum, f, rows
	}
	chSum, chFinal, chRows := run(scenarios.TransportChan)
	stSum, stFinal, stRows := run(scenarios.TransportStepped)
	if chSum.Rounds != 120 || stSum.Rounds != 120 || stSum.Status != coordinator.StatusOK {
		t.Fatalf("rounds: chan %d, stepped %d (status %s)", chSum.Rounds, stSum.Rounds, stSum.Status)
	}
	if len(stFinal.Agents) != 25 || len(chFinal.Agents) != 25 {
		t.Fatalf("final iterates: chan %d agents, stepped %d", len(chFinal.Agents), len(stFinal.Agents))
	}
	for i, a := range stFinal.Agents {
		b := chFinal.Agents[i]
		if a.ID != b.ID || a.Round != b.Round || len(a.X) != len(b.X) {
			t.Fatalf("agent %d: stepped (id %d, round %d), chan (id %d, round %d)", i, a.ID, a.Round, b.ID, b.Round)
		}
		for k := range a.X {
			if math.Float64bits(a.X[k]) != math.Float64bits(b.X[k]) {
				t.Fatalf("agent %d: x[%d] = %v on the stepped engine, %v on chan", i, k, a.X[k], b.X[k])
			}
		}
	}
	if len(stRows) != len(chRows) || len(stRows) != 7 {
		t.Fatalf("measured rows: stepped %d, chan %d, want 7 (rounds 0, 20, ..., 120)", len(stRows), len(chRows))
	}
	for k := range chRows {
		for _, col := range []string{"round", "consensus_err", "feasibility", "obj_value", "opt_gap", "grad_evals", "kkt", "dual_norm"} {
			a, aok := stRows[k][col].(float64)
			b, bok := chRows[k][col].(float64)
			if !aok || !bok || math.Abs(a-b) > 1e-12*math.Max(1, math.Abs(b)) {
				t.Errorf("row %d %s: stepped %v, chan %v", k, col, stRows[k][col], chRows[k][col])
			}
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "stepped", coordinator.MetricsCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(csv), "\n"); lines != 8 {
		t.Errorf("metrics.csv has %d lines, want a header and 7 rows", lines)
	}
}

// TestSteppedRefusesFaults checks that a scenario with faults cannot
// select the stepped engine.
func TestSteppedRefusesFaults(t *testing.T) {
	_, err := scenarios.LoadWith("../scenarios/lossy.yaml", "runtime.transport=stepped")
	if err == nil || !strings.Contains(err.Error(), "stepped runs without loss") {
		t.Errorf("load = %v, want the stepped engine refused with faults", err)
	}
}
