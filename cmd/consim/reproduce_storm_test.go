package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"testing"
)

// TestReproduceStormSmall: a small run writes its files; the sample counts
// follow the oracle accounting (ALM: b per agent and round; ALM-STORM:
// N_0 b at round 0, then 2b per round, N_0 = ceil(T^(1/3))), and the table's
// slopes are the least-squares slopes of storm_runs.csv recomputed here.
func TestReproduceStormSmall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	const N, b = 4, 2
	args := []string{"--out", dir, "--seeds", "2", "--horizons", "64,125,216", "--fit-from", "100",
		"--agents", strconv.Itoa(N), "--dim", "3", "--batch", strconv.Itoa(b), "--points", "4"}
	if err := reproduce("storm", args, &stdout, &stderr); err != nil {
		t.Fatalf("reproduce storm: %v\nstderr: %s", err, stderr.String())
	}
	checkFiles(t, dir, "storm.csv", "storm_runs.csv", "storm.png", "storm.svg", "table.md")
	head, rows := readCSVRows(t, filepath.Join(dir, "storm_runs.csv"))
	if head[0] != "method" || head[3] != "samples" || head[4] != "mean_stationarity_z" {
		t.Fatalf("storm_runs.csv header %q", head)
	}
	if len(rows) != 2*2*3 {
		t.Fatalf("storm_runs.csv has %d rows, want 2 methods x 2 seeds x 3 horizons", len(rows))
	}
	type key struct {
		method string
		seed   string
	}
	lx, ly := map[key][]float64{}, map[key][]float64{}
	for _, r := range rows {
		T, _ := strconv.Atoi(r[2])
		samples, _ := strconv.ParseInt(r[3], 10, 64)
		want := int64(N * b * T)
		if r[0] == "ALM-STORM" {
			n0 := int64(math.Ceil(math.Cbrt(float64(T)) - 1e-9))
			want = int64(N*b) * (n0 + 2*int64(T-1))
		}
		if samples != want {
			t.Errorf("%s seed %s T = %d: %d samples, want %d", r[0], r[1], T, samples, want)
		}
		if T >= 100 {
			s, _ := strconv.ParseFloat(r[4], 64)
			k := key{r[0], r[1]}
			lx[k], ly[k] = append(lx[k], math.Log(float64(samples))), append(ly[k], math.Log(s))
		}
	}
	for _, m := range []string{"ALM", "ALM-STORM"} {
		var sum float64
		for _, s := range []string{"1", "2"} {
			x, y := lx[key{m, s}], ly[key{m, s}]
			// Two points: the slope is the secant.
			sum += (y[1] - y[0]) / (x[1] - x[0])
		}
		checkTable(t, dir, stdout.String(), fmt.Sprintf("| %s | %.3f ± ", m, sum/2))
	}
}

func TestReproduceStormBadFlags(t *testing.T) {
	checkBadFlags(t, "storm", map[string][]string{
		"seeds":    {"--seeds", "1"},
		"horizons": {"--horizons", "100,x"},
		"fit":      {"--horizons", "100,200", "--fit-from", "150"},
		"p":        {"--p", "0"},
		"agents":   {"--agents", "1"},
	})
}

// TestReproduceCompareSmall: with a loose consensus target every run meets
// it at a measured round; the ALM's samples at that round are N b per
// round, and the messages are those the lockstep driver counted.
func TestReproduceCompareSmall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"--out", dir, "--seeds", "2", "--p", "1", "--rounds", "200", "--every", "50",
		"--methods", "alm,penalty_asg,dgd", "--consensus", "10", "--stationarity", "1e-9"}
	if err := reproduce("compare", args, &stdout, &stderr); err != nil {
		t.Fatalf("reproduce compare: %v\nstderr: %s", err, stderr.String())
	}
	head, rows := readCSVRows(t, filepath.Join(dir, "compare.csv"))
	if head[3] != "consensus_round" || head[6] != "stationarity_round" {
		t.Fatalf("compare.csv header %q", head)
	}
	if len(rows) != 3*2 {
		t.Fatalf("compare.csv has %d rows, want 3 methods x 2 seeds", len(rows))
	}
	for _, r := range rows {
		round, _ := strconv.Atoi(r[3])
		msgs, _ := strconv.ParseInt(r[4], 10, 64)
		samples, _ := strconv.ParseInt(r[5], 10, 64)
		if round != 50 || msgs <= 0 {
			t.Errorf("%s seed %s: consensus target met at round %d with %d messages, want round 50 and messages", r[0], r[2], round, msgs)
		}
		if r[0] == "ALM" && samples != 16*10*50 {
			t.Errorf("ALM seed %s: %d samples after 50 rounds, want 16 agents x batch 10 x 50", r[2], samples)
		}
		if r[6] != "-1" {
			t.Errorf("%s seed %s: stationarity 1e-9 met at round %s", r[0], r[2], r[6])
		}
	}
	checkTable(t, dir, stdout.String(), "## p = 1", "| ALM | 50 ± 0 (2/2) |", "| — (0/2) |")
}
