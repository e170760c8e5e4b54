package slicing

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

var update = flag.Bool("update", false, "rewrite the generated table of docs/reproductions/slicing.md")

// TestPageTable checks that the table of docs/reproductions/slicing.md is
// the table of testdata/medium.csv, the runs.csv of `consim reproduce
// slicing` (DefaultConfig), rendered by Result.Table, and that the data
// is consistent: per instance the LP bound <= the binary optimum's
// proved lower bound (the optimum where proven) <= the routing cost of
// any routed placement, the same at both loss rates.
func TestPageTable(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "medium.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	if len(rows) != len(c.Seeds)*len(c.Losses) {
		t.Fatalf("%d rows, want %d instances x %d loss rates", len(rows), len(c.Seeds), len(c.Losses))
	}
	bound := make(map[uint64]float64)
	for _, r := range rows {
		if !(r.BinaryBound >= r.LP*(1-1e-6)) {
			t.Errorf("seed %d: binary optimum's lower bound %v below the LP bound %v", r.Seed, r.BinaryBound, r.LP)
		}
		if !math.IsNaN(r.BinaryOpt) && r.BinaryOpt != r.BinaryBound {
			t.Errorf("seed %d: proven binary optimum %v, bound %v", r.Seed, r.BinaryOpt, r.BinaryBound)
		}
		if !math.IsNaN(r.PlaceCost) && !(r.PlaceCost >= r.BinaryBound*(1-1e-6)) {
			t.Errorf("seed %d loss %v: placement routed at %v, below the binary optimum's bound %v", r.Seed, r.Loss, r.PlaceCost, r.BinaryBound)
		}
		if o, ok := bound[r.Seed]; ok && o != r.BinaryBound {
			t.Errorf("seed %d: binary bound %v and %v", r.Seed, o, r.BinaryBound)
		}
		bound[r.Seed] = r.BinaryBound
	}
	res := &Result{Config: c, Rows: rows, Sums: Summarize(rows, c.Losses)}
	exptest.CheckPage(t, filepath.Join("..", "..", "docs", "reproductions", "slicing.md"), "slicing table", res.Table(), *update)
}
