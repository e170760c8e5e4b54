package straggler

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe"
	"github.com/consim/consim/scenarios"
	"github.com/consim/consim/sim"
)

// TestAsyncReachesTargetFirst runs the experiment of docs/async.md: on
// every seed both methods reach the target, AD-PSGD sooner, and the 95%
// intervals of the mean times to target are disjoint, AD-PSGD's below.
// The table in docs/async.md must be the one the experiment renders (the
// runs replay bit for bit; regenerate with go run
// ./experiments/straggler/cmd -write docs/async.md).
func TestAsyncReachesTargetFirst(t *testing.T) {
	res, err := Run(context.Background(), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for s, run := range res.Runs {
		if math.IsNaN(run[0].Time) || math.IsNaN(run[1].Time) || !(run[0].Time < run[1].Time) {
			t.Errorf("seed %d: AD-PSGD at %v, D-PSGD at %v", s+1, run[0].Time, run[1].Time)
		}
	}
	_, asyncHi := observe.Summarize(res.Times(0)).Interval95()
	syncLo, _ := observe.Summarize(res.Times(1)).Interval95()
	if !(asyncHi < syncLo) {
		t.Errorf("AD-PSGD's interval ends at %.1f, D-PSGD's starts at %.1f", asyncHi, syncLo)
	}
	table := res.Markdown()
	t.Log("\n" + table)
	doc, err := os.ReadFile("../../docs/async.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Splice(string(doc), table)
	if err != nil {
		t.Fatal(err)
	}
	if want != string(doc) {
		t.Error("docs/async.md's straggler table differs from the experiment's; regenerate with go run ./experiments/straggler/cmd -write docs/async.md")
	}
}

// TestReplayBitIdentical runs one seed of AD-PSGD twice through sim and
// checks that the two results bundles hold the same metrics, bit for bit
// (every column but the wall time elapsed_s), and the same final iterates.
func TestReplayBitIdentical(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Horizon = 200
	var bundles [2]string
	for k := range bundles {
		s, err := scenarios.Parse([]byte(cfg.scenario("adpsgd", 3)), "replay.yaml")
		if err != nil {
			t.Fatal(err)
		}
		s.Output.Dir = t.TempDir()
		sum, err := sim.Run(context.Background(), s, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		bundles[k] = sum.Bundle
	}
	rows := func(dir string) []map[string]json.RawMessage {
		f, err := os.Open(filepath.Join(dir, coordinator.MetricsJSONFile))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var out []map[string]json.RawMessage
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var row map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				t.Fatal(err)
			}
			delete(row, "elapsed_s")
			out = append(out, row)
		}
		return out
	}
	a, b := rows(bundles[0]), rows(bundles[1])
	if len(a) != 201 || len(a) != len(b) {
		t.Fatalf("%d and %d rows, want 201", len(a), len(b))
	}
	for k := range a {
		for col, v := range a[k] {
			if !bytes.Equal(v, b[k][col]) {
				t.Fatalf("row %d, %s: %s vs %s", k, col, v, b[k][col])
			}
		}
	}
	final := func(dir string) string {
		data, err := os.ReadFile(filepath.Join(dir, coordinator.FinalFile))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Agents json.RawMessage `json:"agents"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		return string(f.Agents)
	}
	if fa, fb := final(bundles[0]), final(bundles[1]); fa != fb || !strings.Contains(fa, `"x"`) {
		t.Error("final iterates differ between the two runs")
	}
}
