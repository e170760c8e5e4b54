package zosplm

import (
	"math"
	"testing"
	"time"
)

// TestExperimentSmall runs every method of a small experiment and checks
// the trace's bookkeeping: one point per iteration plus the start, k + 1
// calls per iteration, the caller's clock read around every iteration, and
// the stopping iteration being the first whose measures are below eps.
func TestExperimentSmall(t *testing.T) {
	e := Experiment{N: 10, K: 300, Trials: 2, Seed: 3, MaxIter: 2000}
	for _, m := range Methods {
		var trs []*Trace
		for trial := range e.Trials {
			var now time.Duration
			clock := func() time.Duration { now += time.Millisecond; return now }
			tr, err := e.RunTrial(m, trial, clock)
			if err != nil {
				t.Fatal(err)
			}
			if tr.ItersToEps < 1 || tr.Iters != tr.ItersToEps || len(tr.Points) != tr.Iters+1 {
				t.Fatalf("%s trial %d: eps at %d, %d iterations, %d points", m, trial, tr.ItersToEps, tr.Iters, len(tr.Points))
			}
			for i, p := range tr.Points[:tr.Iters] {
				if p.Below(1) {
					t.Fatalf("%s trial %d: below eps at %d already, stopped at %d", m, trial, i, tr.Iters)
				}
			}
			if tr.Evals != int64(tr.Iters)*int64(e.K+1) {
				t.Errorf("%s: %d oracle calls, want %d", m, tr.Evals, tr.Iters*(e.K+1))
			}
			if want := float64(tr.Iters) * 1e-3; math.Abs(tr.Seconds-want) > 1e-9 {
				t.Errorf("%s: %v s, want %v (one clock tick per iteration)", m, tr.Seconds, want)
			}
			trs = append(trs, tr)
		}
		if s := SummarizeTraces(trs); s.Reached != 2 || s.Trials != 2 || s.Method != m {
			t.Errorf("summary %+v", s)
		}
	}
	if _, err := e.RunTrial("zo-nothing", 0, nil); err == nil {
		t.Error("unknown method accepted")
	}
	bad := e
	bad.K = 0
	if _, err := bad.RunTrial(MethodSPLM, 0, nil); err == nil {
		t.Error("k = 0 accepted")
	}
	a, _ := e.Instance(0)
	b, _ := e.Instance(1)
	if a.D[0] == b.D[0] {
		t.Error("trials share an instance")
	}
}
