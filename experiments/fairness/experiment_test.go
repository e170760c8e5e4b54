package fairness

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

// TestSmall solves two losses at two thresholds on six Adult records
// (testdata/adult-small) and checks the files.
func TestSmall(t *testing.T) {
	data, err := LoadAdult(filepath.Join("..", "testdata", "adult-small"))
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	c.Data, c.Losses, c.Cs = data, []string{"logistic", "smooth01"}, []float64{math.Inf(1), 0.01}
	c.Params.Rounds, c.Params.Batch = 200, 2
	dir, md := exptest.Publish(t, c.Run)
	exptest.CheckFiles(t, dir, "fairness.csv", "table.md")
	csv, err := os.ReadFile(filepath.Join(dir, "fairness.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(csv), "\n"); lines != 1+4 {
		t.Errorf("fairness.csv has %d lines, want a header and 2 losses x 2 thresholds", lines)
	}
	exptest.CheckTable(t, dir, md, "| logistic | ∞ | ", "| smooth01 | 0.01 | ", "| smooth01 | ∞ | ", "L − L*", "certified gap")

}
