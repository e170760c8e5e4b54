package fairness

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

var update = flag.Bool("update", false, "rewrite the generated table of docs/reproductions/fairness.md")

// TestPageTable checks that the table of docs/reproductions/fairness.md
// is the table of testdata/logistic.csv, the fairness.csv of
//
//	consim reproduce fairness --losses logistic --cs inf,0.1,0.01,0.001
//
// rendered by Result.Table with the default parameters, and that the data
// still says what the page says: the optimum's certified gap is below
// 1e-6 with the covariance on the bound (to 1e-8) at every finite c.
func TestPageTable(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "logistic.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	for _, r := range rows {
		if !(r.RefGap <= 1e-6) {
			t.Errorf("c = %g: certified gap %g", r.C, r.RefGap)
		}
		if !math.IsInf(r.C, 1) && math.Abs(math.Abs(r.RefCov)-r.C) > 1e-8 {
			t.Errorf("c = %g: the optimum's covariance %g is off the bound", r.C, r.RefCov)
		}
	}
	res := &Result{Config: DefaultConfig(), Rows: rows}
	table := res.Table()
	if !strings.Contains(table, "| logistic | 0.001 |") {
		t.Fatalf("table without the c = 0.001 row:\n%s", table)
	}
	exptest.CheckPage(t, filepath.Join("..", "..", "docs", "reproductions", "fairness.md"), "fairness table", table, *update)
}
