package zosplm

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/consim/consim/experiments/internal/exptest"
)

// TestSmall runs two small n and checks the files: one trials.csv row per
// (n, method, trial) stopping at eps, every iteration in traces.csv and
// convergence.csv, the plots, and the table's rows and claims.
func TestSmall(t *testing.T) {
	c := Config{Ns: []int{6, 8}, Seed: 3, Trials: 2, K: 200, MaxIter: 60, Eps: 1, PlotK: 20, PlotIters: 15}
	dir, md := exptest.Publish(t, c.Run)
	var plots []string
	for _, n := range []string{"6", "8"} {
		for _, p := range []string{"objective", "measures"} {
			plots = append(plots, "zosplm_n"+n+"_"+p+".png", "zosplm_n"+n+"_"+p+".svg")
		}
	}
	exptest.CheckFiles(t, dir, append(plots, "trials.csv", "traces.csv", "convergence.csv")...)

	// trials.csv: one row per (n, method, trial); a run that reached eps
	// stopped there.
	head, trials := exptest.ReadCSVRows(t, filepath.Join(dir, "trials.csv"))
	if got := strings.Join(head, ","); got != "n,k,method,trial,iters_to_eps,iters,evals,cpu_seconds,cpu_seconds_per_iter" {
		t.Fatalf("trials.csv header %q", got)
	}
	if len(trials) != 2*3*2 {
		t.Fatalf("trials.csv has %d rows, want 12", len(trials))
	}
	iters := map[string]int{}
	for _, r := range trials {
		toEps, _ := strconv.Atoi(r[4])
		it, _ := strconv.Atoi(r[5])
		evals, _ := strconv.Atoi(r[6])
		if toEps >= 0 && toEps != it || toEps < 0 && it != 60 {
			t.Errorf("row %v: %d iterations with eps at %d (limit 60)", r, it, toEps)
		}
		if evals != it*(200+1) {
			t.Errorf("row %v: %d evaluations, want k + 1 = 201 per iteration", r, evals)
		}
		iters[r[0]+"/"+r[2]+"/"+r[3]] = it
	}
	// traces.csv: iterations + 1 points per run (the start included).
	_, traces := exptest.ReadCSVRows(t, filepath.Join(dir, "traces.csv"))
	points := map[string]int{}
	for _, r := range traces {
		points[r[0]+"/"+r[2]+"/"+r[3]]++
	}
	for k, it := range iters {
		if points[k] != it+1 {
			t.Errorf("%s: %d trace points, want %d", k, points[k], it+1)
		}
	}
	// convergence.csv: every method runs all 15 iterations.
	_, conv := exptest.ReadCSVRows(t, filepath.Join(dir, "convergence.csv"))
	if len(conv) != 2*3*16 {
		t.Errorf("convergence.csv has %d rows, want %d", len(conv), 2*3*16)
	}
	exptest.CheckTable(t, dir, md, "| 6 | zo-splm | ", "| 8 | zo-alm | ", "| 6 | zo-conex | ",
		"ZO-SPLM needs fewer iterations than zo-conex", "| 8 | zo-splm | ")
}
