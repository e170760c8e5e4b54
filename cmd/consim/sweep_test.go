package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinySweep is a 2 x 2 grid (p x agents) with 2 seeds: 8 short runs.
const tinySweep = `name: tiny
seed: 3
agents: 4
graph: {topology: complete, p: 1}
problem: {kind: least_squares, dim: 3, samples_per_agent: 20, batch: 5}
algorithm: {name: alm}
rounds: 60
metrics: {every: 10}
sweep:
  grid:
    graph.p: [1, 0.5]
    agents: [3, 4]
  seeds: 2
  parallel: 2
`

func TestSweepEndToEnd(t *testing.T) {
	dir := t.TempDir()
	path := writeScenario(t, dir, "tiny.yaml", tinySweep)
	out := filepath.Join(dir, "results")
	code, stdout, stderr := consim(t, "sweep", path, "--out", out, "--sweep-id", "s1")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	sd := filepath.Join(out, "s1")
	for _, want := range []string{"sweep s1: 8 runs (4 grid points x 2 seeds), 2 at once, transport chan", "| graph.p | agents | ok/runs |", "wrote plots/rate.png"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	runs, err := os.ReadDir(filepath.Join(sd, "runs"))
	if err != nil || len(runs) != 8 {
		t.Fatalf("runs/: %d entries, %v", len(runs), err)
	}
	for _, f := range []string{"scenario.yaml", "sweep.csv", "aggregate.csv", "aggregate.md",
		"plots/final_consensus_err.png", "plots/rate.svg", "runs/s1-007/summary.json"} {
		if fi, err := os.Stat(filepath.Join(sd, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	recs := readCSV(t, filepath.Join(sd, "sweep.csv"))
	if len(recs) != 9 {
		t.Fatalf("sweep.csv has %d lines, want a header and 8 runs", len(recs))
	}
	h := recs[0]
	col := func(name string) int {
		for i, c := range h {
			if c == name {
				return i
			}
		}
		t.Fatalf("sweep.csv has no column %s: %v", name, h)
		return -1
	}
	// Expansion order: p slowest, then agents, seeds 3 and 4 innermost.
	wantRows := [][4]string{{"1", "3", "3"}, {"1", "3", "4"}, {"1", "4", "3"}, {"1", "4", "4"},
		{"0.5", "3", "3"}, {"0.5", "3", "4"}, {"0.5", "4", "3"}, {"0.5", "4", "4"}}
	for k, rec := range recs[1:] {
		got := [4]string{rec[col("graph.p")], rec[col("agents")], rec[col("seed")]}
		if got != wantRows[k] || rec[col("status")] != "ok" || rec[col("final_round")] != "60" {
			t.Errorf("run %d: p, agents, seed = %v, status %s, final round %s", k, got, rec[col("status")], rec[col("final_round")])
		}
		if rec[col("run_id")] != "s1-00"+string(rune('0'+k)) {
			t.Errorf("run %d: id %s", k, rec[col("run_id")])
		}
	}
	// Fewer agents send fewer messages; p = 0.5 drops links.
	if m := func(i int) string { return recs[i][col("msgs")] }; m(1) == m(3) || m(3) == m(7) {
		t.Errorf("messages do not vary over the grid: %s %s %s", m(1), m(3), m(7))
	}
	agg := readCSV(t, filepath.Join(sd, "aggregate.csv"))
	if len(agg) != 5 || agg[1][0] != "0" || agg[1][1] != "1" || agg[1][2] != "3" || agg[1][3] != "2" || agg[1][4] != "2" {
		t.Errorf("aggregate.csv: %v", agg)
	}

	// The report of the sweep and of one of its runs.
	code, stdout, stderr = consim(t, "report", sd)
	if code != exitOK || !strings.Contains(stdout, "report.md") {
		t.Fatalf("report sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	run := filepath.Join(sd, "runs", "s1-000")
	code, stdout, stderr = consim(t, "report", run)
	if code != exitOK {
		t.Fatalf("report run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"report.md", "plots/consensus.png", "plots/optgap_feasibility.svg"} {
		data, err := os.ReadFile(filepath.Join(run, f))
		if err != nil || len(data) == 0 {
			t.Errorf("%s: %v", f, err)
		}
		if strings.HasSuffix(f, ".png") && !bytes.HasPrefix(data, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", f)
		}
	}

	// The same sweep id again refuses to rewrite the sweep.
	code, _, stderr = consim(t, "sweep", path, "--out", out, "--sweep-id", "s1")
	if code != exitUsage || !strings.Contains(stderr, "never rewrites earlier output") {
		t.Errorf("second sweep s1: exit %d, %s", code, stderr)
	}
}

func TestSweepUsageErrors(t *testing.T) {
	dir := t.TempDir()
	plain := writeScenario(t, dir, "plain.yaml", strings.Split(tinySweep, "sweep:")[0])
	badGrid := writeScenario(t, dir, "bad.yaml", strings.Replace(tinySweep, "graph.p: [1, 0.5]", "graph.pp: [1, 0.5]", 1))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no sweep block", []string{"sweep", plain}, "has no sweep block"},
		{"unknown grid key", []string{"sweep", badGrid}, `bad.yaml:11:5: sweep.grid.graph.pp: unknown key "pp" in graph`},
		{"no scenario", []string{"sweep"}, "want exactly one scenario file"},
		{"bad sweep id", []string{"sweep", plain, "--sweep-id", "a/b"}, "--sweep-id"},
		{"report of nothing", []string{"report", dir}, "neither a run bundle"},
		{"report of a missing dir", []string{"report", filepath.Join(dir, "nope")}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := consim(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
	// A sweep block does not stop consim run from running the scenario once.
	sweepFile := writeScenario(t, dir, "s.yaml", tinySweep)
	code, stdout, stderr := consim(t, "run", sweepFile, "--transport", "chan", "--out", filepath.Join(dir, "r"), "--run-id", "once", "--log-level", "warn")
	if code != exitOK || !strings.Contains(stdout, "4 agents, 60 of 60 rounds") {
		t.Errorf("run of a sweep scenario: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
