package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// testA9A is LIBSVM a9a in the shared data directory, seen from this
// package's directory.
var testA9A = filepath.Join("..", "..", defaultA9A)

func TestReproducePenalty51Small(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"--out", dir, "--section", "5.1", "--k51", "150", "--every51", "5", "--n", "10", "--samples", "400", "--core", "5", "--seed", "2"}
	if err := reproduce("penalty", args, &stdout, &stderr); err != nil {
		t.Fatalf("reproduce penalty: %v\nstderr: %s", err, stderr.String())
	}
	checkFiles(t, dir, "penalty.csv", "penalty_5.1_gap.png", "penalty_5.1_gap.svg", "penalty_5.1_violation.png", "penalty_5.1_violation.svg")
	rows := checkPenaltyCSV(t, dir)
	// Two runs of 150 iterations recorded every 5: 31 records each.
	if len(rows) != 2*31 {
		t.Errorf("penalty.csv has %d rows, want 62", len(rows))
	}
	checkTable(t, dir, stdout.String(), "| 5.1 | dynamic penalty faster in objective | ", "| 5.1 | constant penalty slightly faster in violation | ",
		"| 5.1 | Algorithm 1, constant (Thm 1) | 150 | ")
}

func TestReproducePenalty52Small(t *testing.T) {
	if _, err := os.Stat(testA9A); err != nil {
		t.Skipf("a9a not found at %s: %v", testA9A, err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"--out", dir, "--section", "5.2", "--a9a", testA9A, "--a9a-rows", "1000", "--core", "5", "--k52", "8", "--rules", "3ii,4ii"}
	if err := reproduce("penalty", args, &stdout, &stderr); err != nil {
		t.Fatalf("reproduce penalty: %v\nstderr: %s", err, stderr.String())
	}
	checkFiles(t, dir, "penalty.csv", "penalty_5.2_gap.png", "penalty_5.2_gap.svg")
	rows := checkPenaltyCSV(t, dir)
	if len(rows) != 3*9 {
		t.Errorf("penalty.csv has %d rows, want 3 runs x 9 records", len(rows))
	}
	checkTable(t, dir, stdout.String(), "(Thm 3(ii)) well ahead of EAG in objective gap", "(Thm 4(ii)) well ahead of EAG in violation",
		"Algorithm 2 well ahead of EAG in both objective and violation", "a9a (1000 rows, 123 features)")
}

// checkPenaltyCSV checks penalty.csv's header, that the gaps of each run
// are |F - F*| for one F*, and that gradient evaluations never decrease
// along a run; it returns the rows.
func checkPenaltyCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	head, rows := readCSVRows(t, filepath.Join(dir, "penalty.csv"))
	if len(head) != 8 || head[4] != "objective" || head[5] != "gap" {
		t.Fatalf("penalty.csv header %q", head)
	}
	fstar := map[string]float64{}
	evals := map[string]int64{}
	for _, r := range rows {
		f, _ := strconv.ParseFloat(r[4], 64)
		gap, _ := strconv.ParseFloat(r[5], 64)
		ev, _ := strconv.ParseInt(r[3], 10, 64)
		key := r[0] + "/" + r[1]
		if ev < evals[key] {
			t.Errorf("%s: gradient evaluations fell to %d", key, ev)
		}
		evals[key] = ev
		// F* is F - gap or F + gap; the two runs of a section share it.
		if s, ok := fstar[r[0]]; ok {
			if math.Abs(math.Abs(f-s)-gap) > 1e-5*(1+gap) {
				t.Errorf("%s: F = %v, gap %v, F* = %v", key, f, gap, s)
			}
		} else if gap > 0 {
			fstar[r[0]] = f - gap
		}
	}
	return rows
}

func TestReproducePenaltyBadFlags(t *testing.T) {
	checkBadFlags(t, "penalty", map[string][]string{
		"section": {"--section", "5.3"},
		"k51":     {"--k51", "0"},
		"every52": {"--every52", "0"},
		"rules":   {"--rules", "3ii,5"},
		"n":       {"--n", "0"},
		"a9a":     {"--section", "5.2", "--a9a", filepath.Join(os.TempDir(), "no-such-a9a.gz")},
	})
}
