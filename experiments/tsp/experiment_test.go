package tsp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

// mnistDir is where the MNIST files are looked for (CONSIM_MNIST
// overrides it).
func mnistDir() string {
	if d := os.Getenv("CONSIM_MNIST"); d != "" {
		return d
	}
	return "/work/shared/data/mnist"
}

// TestSmall runs two seeds of two methods in parallel on 60 MNIST training
// samples for 4 rounds and checks the files and the claims table.
func TestSmall(t *testing.T) {
	data, err := LoadMNIST(mnistDir())
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("MNIST not found in %s: %v", mnistDir(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	c.Data, c.Seeds, c.Seed, c.Rounds, c.Every, c.Train, c.Val = data, 2, 3, 4, 2, 60, 60
	c.Methods, c.Parallel = []string{"TSP", "PBGD"}, 2
	dir, md := exptest.Publish(t, c.Run)
	exptest.CheckFiles(t, dir, "tsp.csv", "tsp_accuracy.png", "tsp_accuracy.svg", "tsp_f1.png", "tsp_f1.svg")
	head, rows := exptest.ReadCSVRows(t, filepath.Join(dir, "tsp.csv"))
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
	exptest.CheckTable(t, dir, md, "| TSP | ", "| PBGD | ", "90.40", "TSP peaks within 1 point of the paper's accuracy and F1",
		"peak accuracies in the paper's order (TSP > PBGD)")
}
