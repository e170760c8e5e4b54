package penalty

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

// TestSmall51 runs a small Section 5.1 and checks its files.
func TestSmall51(t *testing.T) {
	c := DefaultConfig()
	c.Do52, c.Seed, c.K51, c.Every51, c.N, c.Samples, c.Core = false, 2, 150, 5, 10, 400, 5
	dir, md := exptest.Publish(t, c.Run)
	exptest.CheckFiles(t, dir, "penalty.csv", "penalty_5.1_gap.png", "penalty_5.1_gap.svg", "penalty_5.1_violation.png", "penalty_5.1_violation.svg")
	rows := checkPenaltyCSV(t, dir)
	// Two runs of 150 iterations recorded every 5: 31 records each.
	if len(rows) != 2*31 {
		t.Errorf("penalty.csv has %d rows, want 62", len(rows))
	}
	exptest.CheckTable(t, dir, md, "| 5.1 | dynamic penalty faster in objective | ", "| 5.1 | constant penalty slightly faster in violation | ",
		"| 5.1 | Algorithm 1, constant (Thm 1) | 150 | ")
}

// TestSmall52 runs a small Section 5.2 on the first 1000 rows of a9a and
// checks its files.
func TestSmall52(t *testing.T) {
	if _, err := os.Stat(a9aPath); err != nil {
		t.Skipf("a9a not found at %s: %v", a9aPath, err)
	}
	c := DefaultConfig()
	c.Do51, c.Core, c.K52, c.Rules = false, 5, 8, []string{"3ii", "4ii"}
	var err error
	if c.A9A, err = LoadA9A(a9aPath, 1000); err != nil {
		t.Fatal(err)
	}
	dir, md := exptest.Publish(t, c.Run)
	exptest.CheckFiles(t, dir, "penalty.csv", "penalty_5.2_gap.png", "penalty_5.2_gap.svg")
	rows := checkPenaltyCSV(t, dir)
	if len(rows) != 3*9 {
		t.Errorf("penalty.csv has %d rows, want 3 runs x 9 records", len(rows))
	}
	exptest.CheckTable(t, dir, md, "(Thm 3(ii)) well ahead of EAG in objective gap", "(Thm 4(ii)) well ahead of EAG in violation",
		"Algorithm 2 well ahead of EAG in both objective and violation", "a9a (1000 rows, 123 features)")
}

// checkPenaltyCSV checks penalty.csv's header, that the gaps of each run
// are |F - F*| for one F*, and that gradient evaluations never decrease
// along a run; it returns the rows.
func checkPenaltyCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	head, rows := exptest.ReadCSVRows(t, filepath.Join(dir, "penalty.csv"))
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
