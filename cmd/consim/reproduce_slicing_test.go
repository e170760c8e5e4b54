package main

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestReproduceSlicingSmall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"--out", dir, "--instances", "2", "--seed", "4", "--rounds", "60", "--every", "20",
		"--nodes", "12", "--flows", "3", "--losses", "0,0.2"}
	if err := reproduce("slicing", args, &stdout, &stderr); err != nil {
		t.Fatalf("reproduce slicing: %v\nstderr: %s", err, stderr.String())
	}
	checkFiles(t, dir, "runs.csv", "slicing_gap.png", "slicing_gap.svg", "slicing_violation.png", "slicing_violation.svg")
	head, rows := readCSVRows(t, filepath.Join(dir, "runs.csv"))
	if head[0] != "seed" || head[1] != "loss" || head[15] != "dropped" {
		t.Fatalf("runs.csv header %q", head)
	}
	if len(rows) != 4 {
		t.Fatalf("runs.csv has %d rows, want 2 instances x 2 loss rates", len(rows))
	}
	for i, r := range rows {
		seed, loss := strconv.Itoa(4+i/2), []string{"0", "0.2"}[i%2]
		if r[0] != seed || r[1] != loss {
			t.Errorf("row %d is seed %s loss %s, want seed %s loss %s", i, r[0], r[1], seed, loss)
		}
		msgs, _ := strconv.Atoi(r[13])
		dropped, _ := strconv.Atoi(r[15])
		if loss == "0" && dropped != 0 || loss == "0.2" && !(dropped > msgs/10 && dropped < msgs*3/10) {
			t.Errorf("row %d (loss %s): %d of %d messages dropped", i, loss, dropped, msgs)
		}
		lp, _ := strconv.ParseFloat(r[2], 64)
		g, _ := strconv.ParseFloat(r[3], 64)
		gap, _ := strconv.ParseFloat(r[4], 64)
		if d := gap - (g-lp)/lp; d > 1e-4 || d < -1e-4 {
			t.Errorf("row %d: gap %v, (g - LP)/LP = %v", i, gap, (g-lp)/lp)
		}
	}
	table := checkTable(t, dir, stdout.String(), "| 4 | 0 | ", "| 5 | 0.2 | ", "the ALM ends at a binary, feasible slice")
	if n := strings.Count(table, " of 2 instances |"); n != 2 {
		t.Errorf("table.md has %d claim rows, want one per loss rate", n)
	}
}

func TestReproduceSlicingBadFlags(t *testing.T) {
	checkBadFlags(t, "slicing", map[string][]string{
		"instances": {"--instances", "0"},
		"rounds":    {"--rounds", "0"},
		"loss":      {"--losses", "1"},
		"loss list": {"--losses", "0,x"},
		"nodes":     {"--nodes", "1"},
	})
}
