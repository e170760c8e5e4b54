package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
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
