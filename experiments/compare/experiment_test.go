package compare

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

// TestSmall: with a loose consensus target every run meets
// it at a measured round; the ALM's samples at that round are N b per
// round, and the messages are those the lockstep driver counted.
func TestSmall(t *testing.T) {
	c := DefaultConfig()
	c.Seeds, c.Ps, c.Rounds, c.Every, c.ConsTol, c.StatTol = 2, []float64{1}, 200, 50, 10, 1e-9
	c.Methods = []string{"alm", "penalty_asg", "dgd"}
	dir, md := exptest.Publish(t, c.Run)
	head, rows := exptest.ReadCSVRows(t, filepath.Join(dir, "compare.csv"))
	if head[3] != "consensus_round" || head[6] != "stationarity_round" {
		t.Fatalf("compare.csv header %q", head)
	}
	if len(rows) != 3*2 {
		t.Fatalf("compare.csv has %d rows, want 3 methods x 2 seeds", len(rows))
	}
	for _, r := range rows {
		round, _ := strconv.Atoi(r[3])
		msgs, _ := strconv.ParseInt(r[4], 10, 64)
		samples, _ := strconv.ParseInt(r[5], 10, 64)
		if round != 50 || msgs <= 0 {
			t.Errorf("%s seed %s: consensus target met at round %d with %d messages, want round 50 and messages", r[0], r[2], round, msgs)
		}
		if r[0] == "ALM" && samples != 16*10*50 {
			t.Errorf("ALM seed %s: %d samples after 50 rounds, want 16 agents x batch 10 x 50", r[2], samples)
		}
		if r[6] != "-1" {
			t.Errorf("%s seed %s: stationarity 1e-9 met at round %s", r[0], r[2], r[6])
		}
	}
	exptest.CheckTable(t, dir, md, "## p = 1", "| ALM | 50 ± 0 (2/2) |", "| — (0/2) |")
}
