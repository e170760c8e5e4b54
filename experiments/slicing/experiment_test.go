package slicing

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

// TestSmall runs two small instances without and with 20% loss and checks
// runs.csv (rows in order, the loss dropping about its share of the
// messages, the gap to the LP bound) and the table.
func TestSmall(t *testing.T) {
	c := DefaultConfig()
	c.Seeds, c.Rounds, c.Every, c.Losses = []uint64{4, 5}, 60, 20, []float64{0, 0.2}
	c.Gen.Nodes, c.Gen.Flows = 12, 3
	dir, md := exptest.Publish(t, c.Run)
	exptest.CheckFiles(t, dir, "runs.csv", "slicing_gap.png", "slicing_gap.svg", "slicing_violation.png", "slicing_violation.svg")
	head, rows := exptest.ReadCSVRows(t, filepath.Join(dir, "runs.csv"))
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
	table := exptest.CheckTable(t, dir, md, "| 4 | 0 | ", "| 5 | 0.2 | ", "the ALM ends at a binary, feasible slice")
	if n := strings.Count(table, " of 2 instances |"); n != 4 {
		t.Errorf("table.md has %d count claim rows, want two per loss rate (the ALM's and the final stage's)", n)
	}
	// The final stage ends with every position on one host (a binary
	// slice; whether it is feasible is measured, not asserted), and the
	// binary optimum lies between the LP bound and any routed placement.
	for i, r := range rows {
		lp, _ := strconv.ParseFloat(r[2], 64)
		opt, _ := strconv.ParseFloat(r[16], 64)
		place, _ := strconv.ParseFloat(r[22], 64)
		if r[18] != "true" {
			t.Errorf("row %d: the final stage left a position unfixed", i)
		}
		if !(opt >= lp*(1-1e-9)) || (r[22] != "NaN" && !(place >= opt*(1-1e-9))) {
			t.Errorf("row %d: LP %v, binary optimum %v, placement cost %s", i, lp, opt, r[22])
		}
	}
}
