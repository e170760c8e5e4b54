package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// testMNIST is the shared MNIST directory, seen from this package's
// directory.
var testMNIST = filepath.Join("..", "..", defaultMNIST)

func TestReproduceTSPSmall(t *testing.T) {
	if _, err := os.Stat(filepath.Join(testMNIST, "train-images-idx3-ubyte.gz")); err != nil {
		t.Skipf("MNIST not found in %s: %v", testMNIST, err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"--out", dir, "--mnist", testMNIST, "--seeds", "2", "--seed", "3", "--rounds", "4", "--every", "2",
		"--train", "60", "--val", "60", "--methods", "TSP,PBGD", "--parallel", "2"}
	if err := reproduce("tsp", args, &stdout, &stderr); err != nil {
		t.Fatalf("reproduce tsp: %v\nstderr: %s", err, stderr.String())
	}
	checkFiles(t, dir, "tsp.csv", "tsp_accuracy.png", "tsp_accuracy.svg", "tsp_f1.png", "tsp_f1.svg")
	head, rows := readCSVRows(t, filepath.Join(dir, "tsp.csv"))
	if len(head) != 8 || head[4] != "accuracy" || head[5] != "f1" {
		t.Fatalf("tsp.csv header %q", head)
	}
	// 2 seeds x 2 methods x rounds 0, 2, 4.
	if len(rows) != 12 {
		t.Fatalf("tsp.csv has %d rows, want 12", len(rows))
	}
	count := map[string]int{}
	for _, r := range rows {
		count[r[0]+"/"+r[1]]++
		for _, c := range []string{r[4], r[5]} {
			if v, err := strconv.ParseFloat(c, 64); err != nil || v < 0 || v > 1 {
				t.Errorf("row %v: measure %q not in [0, 1]", r, c)
			}
		}
	}
	for _, k := range []string{"3/TSP", "4/TSP", "3/PBGD", "4/PBGD"} {
		if count[k] != 3 {
			t.Errorf("%s: %d points, want 3", k, count[k])
		}
	}
	checkTable(t, dir, stdout.String(), "| TSP | ", "| PBGD | ", "90.40", "TSP peaks within 1 point of the paper's accuracy and F1",
		"peak accuracies in the paper's order (TSP > PBGD)")
}

func TestReproduceTSPBadFlags(t *testing.T) {
	checkBadFlags(t, "tsp", map[string][]string{
		"seeds":    {"--seeds", "0"},
		"rounds":   {"--rounds", "0"},
		"method":   {"--methods", "TSP,SGD"},
		"parallel": {"--parallel", "0"},
		"mnist":    {"--mnist", filepath.Join(os.TempDir(), "no-such-mnist")},
	})
}
