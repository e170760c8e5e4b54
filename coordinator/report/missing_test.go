package report

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSweepCSVMissingIsEmpty: a value that does not exist (rounds to a
// tolerance never reached) is an empty field in sweep.csv and
// aggregate.csv, as in metrics.csv, and reads back as missing.
func TestSweepCSVMissingIsEmpty(t *testing.T) {
	dir := t.TempDir()
	tab := fabricateSweep() // rows b..e never reach the tolerance
	path := filepath.Join(dir, SweepCSV)
	if err := tab.WriteCSV(path); err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, path)
	col := slices.Index(recs[0], "rounds_to_tol")
	if col < 0 {
		t.Fatalf("sweep.csv header %v lacks rounds_to_tol", recs[0])
	}
	want := []string{"40", "", "", "", ""}
	for k, rec := range recs[1:] {
		if rec[col] != want[k] {
			t.Errorf("sweep.csv row %d rounds_to_tol = %q, want %q", k+1, rec[col], want[k])
		}
	}
	for _, rec := range recs {
		if slices.Contains(rec, "NaN") {
			t.Errorf("sweep.csv writes NaN: %v", rec)
		}
	}
	back, err := ReadSweepCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := back.Rows[1].Stats.RoundsToTol; v == v {
		t.Errorf("empty rounds_to_tol reads back as %v, want NaN", v)
	}

	aggs := Aggregate(tab)
	path = filepath.Join(dir, AggregateCSV)
	if err := WriteAggregateCSV(path, tab.Keys, aggs); err != nil {
		t.Fatal(err)
	}
	recs = readCSV(t, path)
	col = slices.Index(recs[0], "rounds_to_tol_mean")
	if col < 0 {
		t.Fatalf("aggregate.csv header %v lacks rounds_to_tol_mean", recs[0])
	}
	// Point 1 (p = 0.5): no ok run reached the tolerance.
	if got := recs[2][col]; got != "" {
		t.Errorf("aggregate.csv p = 0.5 rounds_to_tol_mean = %q, want an empty field", got)
	}
	for _, rec := range recs {
		if slices.Contains(rec, "NaN") {
			t.Errorf("aggregate.csv writes NaN: %v", rec)
		}
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
