package storm

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

// TestSmall: a small run writes its files; the sample counts
// follow the oracle accounting (ALM: b per agent and round; ALM-STORM:
// N_0 b at round 0, then 2b per round, N_0 = ceil(T^(1/3))), and the table's
// slopes are the least-squares slopes of storm_runs.csv recomputed here.
func TestSmall(t *testing.T) {
	const N, b = 4, 2
	c := DefaultConfig()
	c.Seeds, c.Horizons, c.FitFrom, c.Agents, c.Dim, c.Batch, c.Points = 2, []int{64, 125, 216}, 100, N, 3, b, 4
	dir, md := exptest.Publish(t, c.Run)
	exptest.CheckFiles(t, dir, "storm.csv", "storm_runs.csv", "storm.png", "storm.svg", "table.md")
	head, rows := exptest.ReadCSVRows(t, filepath.Join(dir, "storm_runs.csv"))
	if head[0] != "method" || head[3] != "samples" || head[4] != "mean_stationarity_z" {
		t.Fatalf("storm_runs.csv header %q", head)
	}
	if len(rows) != 2*2*3 {
		t.Fatalf("storm_runs.csv has %d rows, want 2 methods x 2 seeds x 3 horizons", len(rows))
	}
	type key struct {
		method string
		seed   string
	}
	lx, ly := map[key][]float64{}, map[key][]float64{}
	for _, r := range rows {
		T, _ := strconv.Atoi(r[2])
		samples, _ := strconv.ParseInt(r[3], 10, 64)
		want := int64(N * b * T)
		if r[0] == "ALM-STORM" {
			n0 := int64(math.Ceil(math.Cbrt(float64(T)) - 1e-9))
			want = int64(N*b) * (n0 + 2*int64(T-1))
		}
		if samples != want {
			t.Errorf("%s seed %s T = %d: %d samples, want %d", r[0], r[1], T, samples, want)
		}
		if T >= 100 {
			s, _ := strconv.ParseFloat(r[4], 64)
			k := key{r[0], r[1]}
			lx[k], ly[k] = append(lx[k], math.Log(float64(samples))), append(ly[k], math.Log(s))
		}
	}
	for _, m := range []string{"ALM", "ALM-STORM"} {
		var sum float64
		for _, s := range []string{"1", "2"} {
			x, y := lx[key{m, s}], ly[key{m, s}]
			// Two points: the slope is the secant.
			sum += (y[1] - y[0]) / (x[1] - x[0])
		}
		exptest.CheckTable(t, dir, md, fmt.Sprintf("| %s | %.3f ± ", m, sum/2))
	}
}
