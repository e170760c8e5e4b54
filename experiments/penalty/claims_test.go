package penalty

import (
	"math"
	"testing"

	penaltyalg "github.com/consim/consim/consensus/penalty"
)

// mkTrace builds a trace from (x, value) points; the value is stored as
// the objective (with FStar = 0) and as the violation.
func mkTrace(name string, xs []int64, vals []float64) penaltyalg.Trace {
	tr := penaltyalg.Trace{Method: name}
	for i, x := range xs {
		tr.Records = append(tr.Records, penaltyalg.Record{Iter: int(x), GradEvals: 10 * x, Objective: vals[i], Violation: vals[i]})
	}
	return tr
}

func TestCompare(t *testing.T) {
	xs := []int64{0, 1, 2, 3, 4}
	for _, tc := range []struct {
		name           string
		a, b           []float64
		faster         bool
		reachA, reachB int64
	}{
		{"a lower throughout", []float64{1, .1, .01, .001, .0001}, []float64{1, .5, .2, .1, .05}, true, 2, 4},
		{"b lower throughout", []float64{1, .5, .2, .1, .05}, []float64{1, .1, .01, .001, .0001}, false, 4, 2},
		{"equal reach, a ends lower", []float64{1, 1, 1, 1, .1}, []float64{1, 1, 1, 1, .2}, true, 4, 4},
		// a dips below the level at x=1 but comes back up: the reach
		// counts from where it stays below.
		{"transient dip", []float64{1, .001, .5, .02, .01}, []float64{1, .5, .03, .02, .02}, true, 3, 3},
		{"transient dip loses", []float64{1, .001, .5, .3, .01}, []float64{1, .5, .02, .02, .02}, false, 4, 2},
	} {
		a, b := mkTrace("a", xs, tc.a), mkTrace("b", xs, tc.b)
		for _, m := range []Metric{MetricGap, MetricViolation} {
			c, err := Compare(a, b, m, ByIter)
			if err != nil {
				t.Fatal(err)
			}
			if c.Faster != tc.faster || c.ReachA != tc.reachA || c.ReachB != tc.reachB {
				t.Errorf("%s (%v): got %+v, want faster %v reach %d, %d", tc.name, m, c, tc.faster, tc.reachA, tc.reachB)
			}
		}
	}
	// Budget: b runs longer; it is cut at a's end.
	a := mkTrace("a", []int64{0, 1, 2}, []float64{1, .5, .25})
	b := mkTrace("b", []int64{0, 1, 2, 3, 4}, []float64{1, .6, .3, 1e-9, 1e-9})
	c, err := Compare(a, b, MetricGap, ByGradEvals)
	if err != nil {
		t.Fatal(err)
	}
	if c.Budget != 20 || c.EndB != .3 || !c.Faster || math.Abs(c.Ratio()-1.2) > 1e-15 {
		t.Errorf("budget comparison: %+v", c)
	}
	a.FStar = math.NaN()
	if _, err := Compare(a, b, MetricGap, ByIter); err == nil {
		t.Error("objective gap without FStar accepted")
	}
}

func TestClaims(t *testing.T) {
	xs := []int64{0, 1, 2, 3}
	cst := mkTrace("constant", xs, []float64{1, .5, .2, .1})
	dyn := mkTrace("dynamic", xs, []float64{1, .1, .05, .02})
	// Same values in both metrics: dynamic faster in objective, so the
	// constant cannot be faster in violation.
	cl, err := Claims51(cst, dyn)
	if err != nil {
		t.Fatal(err)
	}
	if !cl[0].Holds || cl[1].Holds {
		t.Errorf("5.1 claims: %+v", cl)
	}
	cst.Records[3].Violation, dyn.Records[3].Violation = 0.01, 0.02 // constant ends 2x lower
	cst.Records[2].Violation = 0.015
	if cl, _ = Claims51(cst, dyn); !cl[1].Holds {
		t.Errorf("constant slightly faster in violation not detected: %+v", cl[1])
	}
	cst.Records[3].Violation = 0.001 // 20x lower: no longer "slightly"
	if cl, _ = Claims51(cst, dyn); cl[1].Holds {
		t.Errorf("a 20x lead counted as slightly faster: %+v", cl[1])
	}

	eag := mkTrace("EAG", xs, []float64{1, .8, .6, .5})
	alg := mkTrace("Alg2", xs, []float64{1, .01, .005, .001})
	cl, err = Claims52(eag, alg, alg)
	if err != nil {
		t.Fatal(err)
	}
	if len(cl) != 5 || !cl[4].Holds {
		t.Errorf("5.2 claims: %+v", cl)
	}
	alg.Records[3].Violation = 0.2 // only 2.5x ahead in violation
	if cl, _ = Claims52(eag, alg); cl[1].Holds || cl[2].Holds || !cl[0].Holds {
		t.Errorf("5.2 claims with a small violation lead: %+v", cl)
	}
}

// TestEAGStep checks that the EAG-V step sizes decrease to a positive
// limit from alpha_0 = 0.618/R, as Theorem 2 of Yoon and Ryu requires.
func TestEAGStep(t *testing.T) {
	const r = 3.0
	a := 0.618 / r
	for k := range 100000 {
		next := penaltyalg.EAGStep(a, k, r)
		if !(next > 0 && next <= a) {
			t.Fatalf("k=%d: alpha %g -> %g", k, a, next)
		}
		a = next
	}
	if a*r < 0.4 || a*r > 0.5 {
		t.Errorf("alpha_infinity R = %g, want in [0.4, 0.5]", a*r)
	}
	t.Logf("alpha_infinity R = %.4f", a*r)
}
