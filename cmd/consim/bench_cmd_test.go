package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/consim/consim/internal/bench"
)

// TestBenchJSON runs consim bench on a small torus over channels and
// checks the JSON: one row, the raw baseline and the null algorithm
// measured, the ratio their rates give.
func TestBenchJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "--n", "9", "--dim", "2", "--rounds", "20", "--reps", "1", "--transports", "chan", "--json"}
	if code := mainExit(args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	var rep struct {
		Rows []struct {
			Transport string
			N, D      int
			Rounds    int
			Raw       struct {
				RoundsPerS float64 `json:"rounds_per_s"`
			}
			Consim map[string]struct {
				RoundsPerS float64 `json:"rounds_per_s"`
			}
			Ratio map[string]float64
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	if len(rep.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rep.Rows))
	}
	r := rep.Rows[0]
	if r.Transport != "chan" || r.N != 9 || r.D != 2 || r.Rounds != 20 {
		t.Errorf("row %+v: want chan, N = 9, d = 2, 20 rounds", r)
	}
	null, ok := r.Consim["null"]
	if !ok || null.RoundsPerS <= 0 || r.Raw.RoundsPerS <= 0 {
		t.Fatalf("rates raw %v, consim %+v: want both measured", r.Raw.RoundsPerS, r.Consim)
	}
	// One repetition: the ratio is the two rates' quotient.
	if want := null.RoundsPerS / r.Raw.RoundsPerS; r.Ratio["null"] < want*(1-1e-9) || r.Ratio["null"] > want*(1+1e-9) {
		t.Errorf("ratio %v, rates give %v", r.Ratio["null"], want)
	}
}

func TestBenchRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--n", "8"},
		{"bench", "--dim", "0"},
		{"bench", "--transports", "pigeon"},
		{"bench", "--algos", "newton"},
		{"bench", "--reps", "0"},
		{"bench", "extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := mainExit(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%s: exit %d, want %d (stderr %q)", strings.Join(args, " "), code, exitUsage, stderr.String())
		}
	}
}

func TestWriteBenchMarkdown(t *testing.T) {
	rows := []bench.Row{{
		Transport: "chan", N: 1024, Rounds: 450,
		Raw:      bench.Stats{RoundsPerSec: 1566.4, PeakMiB: 47.2},
		Consim:   map[string]bench.Stats{"null": {RoundsPerSec: 692, AllocsPerRound: 184.3, PeakMiB: 51}, "alm": {RoundsPerSec: 222, PeakMiB: 93}},
		Ratio:    map[string]float64{"null": 0.46, "alm": 0.14},
		CPURatio: map[string]float64{"null": 0.44, "alm": 0.15},
	}}
	var b strings.Builder
	writeBenchMarkdown(&b, []string{"null", "alm"}, rows)
	want := "| transport | N | rounds | raw rounds/s | null rounds/s | ratio | CPU ratio | allocs / agent / round | alm rounds/s | alm ratio | alm CPU ratio | peak MiB raw / null / alm |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n" +
		"| chan | 1,024 | 450 | 1,566 | 692 | 0.46 | 0.44 | 0.18 | 222 | 0.14 | 0.15 | 47 / 51 / 93 |\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	for v, s := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 61536: "61,536", 1234567: "1,234,567", -4321: "-4,321"} {
		if got := thousands(v); got != s {
			t.Errorf("thousands(%v) = %q, want %q", v, got, s)
		}
	}
}
