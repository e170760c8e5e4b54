package zosplm

import (
	"os"
	"testing"

	"github.com/consim/consim/internal/proc"
)

func long(t *testing.T) {
	t.Helper()
	if os.Getenv("CONSIM_LONG") != "1" {
		t.Skip("long: set CONSIM_LONG=1")
	}
}

// TestTable2N50Long runs the Table 2 comparison at n = 50, k = 10,000 on
// 5 instances and checks ZO-SPLM's median iterations to eps = 1 against
// the paper's 496, and its CPU time per iteration against 1/20 of the
// paper's 0.412 s. The baselines' medians are logged next to the paper's
// (with the default rules they do not need more iterations than ZO-SPLM;
// see the report).
func TestTable2N50Long(t *testing.T) {
	long(t)
	e := Experiment{N: 50, K: 10000, Trials: 5, Seed: 2026, MaxIter: 3000}
	paper := map[string]PaperRow{}
	for _, r := range PaperTable2 {
		if r.N == e.N {
			paper[r.Method] = r
		}
	}
	for _, m := range Methods {
		var trs []*Trace
		for trial := range e.Trials {
			tr, err := e.RunTrial(m, trial, proc.CPUTime)
			if err != nil {
				t.Fatal(err)
			}
			trs = append(trs, tr)
		}
		s := SummarizeTraces(trs)
		t.Logf("%-8s reached %d/%d, iterations median %g [%g, %g], cpu s/iter median %.4f [%.4f, %.4f]; paper %d iterations, %.3f s/iter",
			m, s.Reached, s.Trials, s.Iters.Median, s.Iters.Min, s.Iters.Max,
			s.SecondsPerIter.Median, s.SecondsPerIter.Min, s.SecondsPerIter.Max, paper[m].Iters, paper[m].PerIterSec)
		if s.Reached != s.Trials {
			t.Errorf("%s: %d of %d trials reached eps", m, s.Reached, s.Trials)
		}
		if m == MethodSPLM {
			if s.Iters.Median > float64(paper[m].Iters) {
				t.Errorf("ZO-SPLM median %g iterations, paper %d", s.Iters.Median, paper[m].Iters)
			}
			if lim := paper[m].PerIterSec / 20; s.SecondsPerIter.Median > lim {
				t.Errorf("ZO-SPLM %.4f cpu s/iteration, want <= %.4f (paper / 20)", s.SecondsPerIter.Median, lim)
			}
		}
	}
}

// TestConvergencePlotLong runs the figure's setting (k = 50, one instance
// per n, a fixed budget) and checks that every method's objective trace
// ends below its start and that the measures end below eps.
func TestConvergencePlotLong(t *testing.T) {
	long(t)
	for _, n := range []int{50, 100} {
		e := Experiment{N: n, K: 50, Trials: 1, Seed: 7, MaxIter: 400, RunAll: true}
		for _, m := range Methods {
			tr, err := e.RunTrial(m, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			first, last := tr.Points[0], tr.Points[len(tr.Points)-1]
			t.Logf("n = %d %-8s eps reached at %d; f %.4f -> %.4f, final %+v", n, m, tr.ItersToEps, first.Objective, last.Objective, last)
			if !(last.Objective < first.Objective) || tr.ItersToEps < 0 || !last.Below(1) {
				t.Errorf("n = %d %s: no convergence: %+v", n, m, last)
			}
		}
	}
}
