package tsp

import (
	"math"
	"strings"
	"testing"
	"time"

	tspalg "github.com/consim/consim/consensus/tsp"
	"github.com/consim/consim/problems/bilevel"
)

// TestExperimentPlumbing runs the experiment machinery on a small random
// instance: every method is traced at rounds 0, Every, ..., Rounds, the
// peaks and finals are those of the points, the clock is used, and
// Summarize aggregates over results.
func TestExperimentPlumbing(t *testing.T) {
	h := smallCleaning(t, 21, 40, 10)
	e := Experiment{Seed: 3, Rounds: 25, Every: 10, Methods: []string{tspalg.NameTSP, tspalg.NameBOME, tspalg.NamePBGD, tspalg.NameMEHA}}
	u := tspalg.DefaultMeanUnits()
	e.Convert(u, h.Train.Len(), e.Rounds)
	var ticks time.Duration
	clock := func() time.Duration { ticks += time.Millisecond; return ticks }
	var seen int
	e.OnPoint = func(string, Point) { seen++ }
	res, err := e.RunOn(h, clock)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Traces) != 4 || seen != 16 {
		t.Fatalf("%d traces, %d points reported", len(res.Traces), seen)
	}
	for i, tr := range res.Traces {
		if tr.Method != e.Methods[i] || tr.Diverged {
			t.Fatalf("trace %d: method %s diverged %v", i, tr.Method, tr.Diverged)
		}
		rounds := []int{0, 10, 20, 25}
		if len(tr.Points) != len(rounds) {
			t.Fatalf("%s: %d points", tr.Method, len(tr.Points))
		}
		var pa, pf float64
		for k, p := range tr.Points {
			if p.Round != rounds[k] {
				t.Fatalf("%s: point %d at round %d", tr.Method, k, p.Round)
			}
			if k > 0 && (p.Seconds <= tr.Points[k-1].Seconds || p.Evals <= tr.Points[k-1].Evals) {
				t.Fatalf("%s: time or evals do not grow", tr.Method)
			}
			pa, pf = math.Max(pa, p.Accuracy), math.Max(pf, p.F1)
		}
		ga, gf := tr.Peak()
		fa, ff := tr.Final()
		last := tr.Points[len(tr.Points)-1]
		if ga != pa || gf != pf || fa != last.Accuracy || ff != last.F1 {
			t.Fatalf("%s: peak/final mismatch", tr.Method)
		}
	}
	res2, err := e.RunOn(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Traces {
		a, b := res.Traces[i].Points, res2.Traces[i].Points
		for k := range a {
			if a[k].Accuracy != b[k].Accuracy || a[k].F1 != b[k].F1 || b[k].Seconds != 0 {
				t.Fatalf("rerun differs at %s point %d", res.Traces[i].Method, k)
			}
		}
	}
	sum := Summarize([]*ExperimentResult{res, res2})
	if len(sum) != 4 || sum[0].Method != tspalg.NameTSP || sum[0].Seeds != 2 || sum[0].PeakAccuracy.Std != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if a, _ := res.Traces[0].Peak(); sum[0].PeakAccuracy.Mean != a {
		t.Fatalf("summary mean %v, peak %v", sum[0].PeakAccuracy.Mean, a)
	}
}

func TestExperimentValidate(t *testing.T) {
	good := DefaultExperiment(1, 100)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mod  func(*Experiment)
		want string
	}{
		{func(e *Experiment) { e.Rounds = 0 }, "rounds"},
		{func(e *Experiment) { e.Methods = nil }, "no methods"},
		{func(e *Experiment) { e.Methods = []string{"SGD"} }, "unknown method"},
		{func(e *Experiment) { e.BOME.Inner = 0 }, "BOME"},
		{func(e *Experiment) { e.PBGD.Alpha = -1 }, "V-PBGD"},
		{func(e *Experiment) { e.MEHA.Gamma = 0 }, "MEHA"},
		{func(e *Experiment) { e.TSP.Omega = 0 }, "omega"},
	} {
		e := DefaultExperiment(1, 100)
		tc.mod(&e)
		if err := e.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	if n := len(PaperTable()); n != 4 {
		t.Fatalf("paper table has %d rows", n)
	}
}

// TestConvert checks that the sum-normalized problem with converted
// constants runs the same TSP iteration as the mean-normalized one: the
// iterates agree (up to rounding) and lambda_sum = lambda_mean/m.
func TestConvert(t *testing.T) {
	h := smallCleaning(t, 8, 30, 10)
	m := h.Train.Len()
	sum, err := h.Bilevel()
	if err != nil {
		t.Fatal(err)
	}
	mean := bilevel.Bilevel{NX: sum.NX, NY: sum.NY, F: sum.F, G: scaled{sum.G, 1 / float64(m)}}
	u := tspalg.DefaultMeanUnits()
	u.Delta, u.Tau, u.Eta = 0.001, 1, 0.5
	var es, em Experiment
	es.Convert(u, m, 10)
	em.Convert(u, 1, 10)
	x0 := make([]float64, sum.NX)
	y0 := make([]float64, sum.NY)
	a, err := tspalg.NewTSP(sum, x0, y0, es.TSP)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tspalg.NewTSP(mean, x0, y0, em.TSP)
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		a.Step()
		b.Step()
	}
	if b.Lambda == 0 || a.H == 0 || maxRel(a.X, b.X) > 1e-9 || maxRel(a.Y, b.Y) > 1e-9 || math.Abs(a.Lambda*float64(m)-b.Lambda) > 1e-9*b.Lambda {
		t.Fatalf("sum and mean forms differ: lambda %v*m vs %v, x err %g, y err %g", a.Lambda, b.Lambda, maxRel(a.X, b.X), maxRel(a.Y, b.Y))
	}
	// The baselines too.
	for _, name := range []string{tspalg.NameBOME, tspalg.NamePBGD, tspalg.NameMEHA} {
		ma, err := es.NewMethod(name, sum, x0, y0)
		if err != nil {
			t.Fatal(err)
		}
		mb, err := em.NewMethod(name, mean, x0, y0)
		if err != nil {
			t.Fatal(err)
		}
		for range 30 {
			ma.Step()
			mb.Step()
		}
		xa, ya := ma.Point()
		xb, yb := mb.Point()
		if maxRel(xa, x0) == 0 || maxRel(xa, xb) > 1e-9 || maxRel(ya, yb) > 1e-9 {
			t.Fatalf("%s: sum and mean forms differ: x err %g, y err %g", name, maxRel(xa, xb), maxRel(ya, yb))
		}
	}
}

// scaled is c times an objective.
type scaled struct {
	o bilevel.Objective
	c float64
}

func (s scaled) Value(x, y []float64) float64 { return s.c * s.o.Value(x, y) }

func (s scaled) Grad(x, y, gx, gy []float64) {
	s.o.Grad(x, y, gx, gy)
	for i := range gx {
		gx[i] *= s.c
	}
	for i := range gy {
		gy[i] *= s.c
	}
}
