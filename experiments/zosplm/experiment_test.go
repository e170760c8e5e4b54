package zosplm

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consim/consim/experiments"
	"github.com/consim/consim/experiments/internal/exptest"
)

// tick is a clock that advances 1 ms per reading: times are exact.
func tick() func() time.Duration {
	var now time.Duration
	return func() time.Duration { now += time.Millisecond; return now }
}

// TestSmall runs two small n in two regimes and checks the files: one
// trials.csv row per (regime, n, method, trial) stopping at eps, every
// iteration in traces.csv and convergence.csv, the plots, and the
// table's rows, ratios, settings and claims.
func TestSmall(t *testing.T) {
	c := Config{Ns: []int{6, 8}, Seed: 3, Trials: 2, K: 200, MaxIter: 60, Eps: 1, PlotK: 20, PlotIters: 15,
		Regimes: []Regime{EqualStep, Theory}, Parallel: 2}
	dir, md := exptest.Publish(t, c.Run)
	var files []string
	for _, reg := range []string{"equal-step", "theory"} {
		for _, n := range []string{"6", "8"} {
			for _, p := range []string{"objective", "measures"} {
				files = append(files, "zosplm_"+reg+"_n"+n+"_"+p+".png", "zosplm_"+reg+"_n"+n+"_"+p+".svg")
			}
		}
	}
	exptest.CheckFiles(t, dir, append(files, "config.json", "trials.csv", "traces.csv", "convergence.csv")...)

	// trials.csv: one row per (regime, n, method, trial); a run that
	// reached eps stopped there.
	head, trials := exptest.ReadCSVRows(t, filepath.Join(dir, "trials.csv"))
	if got := strings.Join(head, ","); got != "regime,n,k,method,trial,iters_to_eps,iters,evals,cpu_seconds,cpu_seconds_per_iter" {
		t.Fatalf("trials.csv header %q", got)
	}
	if len(trials) != 2*2*3*2 {
		t.Fatalf("trials.csv has %d rows, want 24", len(trials))
	}
	iters := map[string]int{}
	for _, r := range trials {
		toEps, _ := strconv.Atoi(r[5])
		it, _ := strconv.Atoi(r[6])
		evals, _ := strconv.Atoi(r[7])
		if toEps >= 0 && toEps != it || toEps < 0 && it != 60 {
			t.Errorf("row %v: %d iterations with eps at %d (limit 60)", r, it, toEps)
		}
		if evals != it*(200+1) {
			t.Errorf("row %v: %d evaluations, want k + 1 = 201 per iteration", r, evals)
		}
		iters[r[0]+"/"+r[1]+"/"+r[3]+"/"+r[4]] = it
	}
	// traces.csv: iterations + 1 points per run (the start included).
	_, traces := exptest.ReadCSVRows(t, filepath.Join(dir, "traces.csv"))
	points := map[string]int{}
	for _, r := range traces {
		points[r[0]+"/"+r[1]+"/"+r[3]+"/"+r[4]]++
	}
	for k, it := range iters {
		if points[k] != it+1 {
			t.Errorf("%s: %d trace points, want %d", k, points[k], it+1)
		}
	}
	// convergence.csv: every method runs all 15 iterations.
	_, conv := exptest.ReadCSVRows(t, filepath.Join(dir, "convergence.csv"))
	if len(conv) != 2*2*3*16 {
		t.Errorf("convergence.csv has %d rows, want %d", len(conv), 2*2*3*16)
	}
	exptest.CheckTable(t, dir, md, "## Regime equal-step", "## Regime theory", "| 6 | ZO-SPLM | ", "| 8 | ZO-ALM | ",
		"| 6 | ZO-ConEX | ", "ZO-ALM / ZO-SPLM [95% CI]", "| theory | ZO-SPLM | beta | 1/(24 kappa_1)",
		"| equal-step | ZO-SPLM needs fewer iterations than ZO-ALM |", "## Convergence runs")
}

// TestParallelSameIterates: the runs' counts and measures do not depend on
// the number of runs at once.
func TestParallelSameIterates(t *testing.T) {
	c := Config{Ns: []int{6}, Seed: 5, Trials: 3, K: 100, MaxIter: 40, Eps: 1, Regimes: []Regime{EqualStep}, Parallel: 1, Clock: tick()}
	one, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c.Parallel, c.Clock = 3, func() time.Duration { return 0 }
	three, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range one.Trials {
		b := three.Trials[i]
		if a.Regime != b.Regime || a.N != b.N || a.Trace.Method != b.Trace.Method || a.Trace.Trial != b.Trace.Trial ||
			a.Trace.ItersToEps != b.Trace.ItersToEps || len(a.Trace.Points) != len(b.Trace.Points) {
			t.Fatalf("run %d differs: %+v vs %+v", i, a, b)
		}
		for k := range a.Trace.Points {
			if a.Trace.Points[k] != b.Trace.Points[k] {
				t.Fatalf("run %d point %d differs", i, k)
			}
		}
	}
}

// TestReadResult: the table rendered from the files Write wrote equals
// the table of the run (the clock ticks 1 ms per reading, so the times
// are exact in the files), and bad files are errors naming the file.
func TestReadResult(t *testing.T) {
	c := Config{Ns: []int{6}, Seed: 3, Trials: 3, K: 100, MaxIter: 40, Eps: 1, PlotK: 10, PlotIters: 5,
		Regimes: []Regime{Theory, EqualStep}, Parallel: 1, Clock: tick()}
	r, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := experiments.NewDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResult(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.Table(), r.Table(); got != want {
		t.Errorf("table from the files differs:\n%s\nwant\n%s", got, want)
	}
	if _, err := ReadResult(t.TempDir()); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("missing files: %v", err)
	}
}
