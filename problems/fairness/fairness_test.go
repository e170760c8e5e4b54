package fairness

import (
	"math"
	"testing"
)

// TestLossDerivatives checks V' against central differences of V for
// the three losses, on both sides of the kinks of the smoothed 0-1 loss.
func TestLossDerivatives(t *testing.T) {
	for _, l := range []Loss{Logistic{}, LogDiff{Mu: 1}, LogDiff{Mu: 3}, Smooth01{}} {
		for _, m := range []float64{-40, -3, -1.5, -0.7, 0, 0.3, 0.99, 1.2, 5, 40} {
			const h = 1e-6
			vp, _ := l.Eval(m + h)
			vm, _ := l.Eval(m - h)
			_, dv := l.Eval(m)
			if fd := (vp - vm) / (2 * h); math.Abs(fd-dv) > 1e-6 {
				t.Errorf("%s: V'(%g) = %g, central difference %g", l.Name(), m, dv, fd)
			}
		}
	}
	// Values from the formulas of the paper.
	if v, _ := (Smooth01{}).Eval(0); v != 0.5 {
		t.Errorf("smooth01 V(0) = %g, want 1/2", v)
	}
	if v, _ := (LogDiff{Mu: 1}).Eval(0); math.Abs(v-(math.Log(2)-math.Log(1+math.Exp(-1)))) > 1e-15 {
		t.Errorf("logdiff V(0) = %g", v)
	}
	if v, _ := (Logistic{}).Eval(-800); v != 800 {
		t.Errorf("logistic V(-800) = %g, want 800 (no overflow)", v)
	}
}

// TestMeasuresHandMade checks the covariance, accuracy and p%-rule on four
// examples computed by hand.
func TestMeasuresHandMade(t *testing.T) {
	d := &Data{Dim: 2,
		X: []float64{1, 1, 2, 1, -1, 1, -3, 1},
		Y: []float64{1, 1, -1, 1},
		Z: []float64{1, 1, 0, 0},
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	theta := []float64{1, 0}
	// zbar = 1/2; a = (1/4)(1/2 (1,1) + 1/2 (2,1) - 1/2 (-1,1) - 1/2 (-3,1)) = (7/8, 0).
	if a := d.CovVector(); math.Abs(a[0]-7.0/8) > 1e-15 || math.Abs(a[1]) > 1e-15 {
		t.Errorf("a = %v, want (7/8, 0)", a)
	}
	if got := Accuracy(d, theta); got != 0.75 {
		t.Errorf("accuracy %g, want 3/4", got)
	}
	// Positive rates: z = 1: 2/2, z = 0: 0/2 -> p%-rule 0.
	if got := PRule(d, theta); got != 0 {
		t.Errorf("p%%-rule %g, want 0", got)
	}
	// theta = (0, 1): every prediction +1: rates equal, 100.
	if got := PRule(d, []float64{0, 1}); got != 100 {
		t.Errorf("p%%-rule %g, want 100", got)
	}
	// theta = (1, 1.5): predictions +,+,+,- : rates 1 and 1/2 -> 50.
	if got := PRule(d, []float64{1, 1.5}); got != 50 {
		t.Errorf("p%%-rule %g, want 50", got)
	}
}

// TestValidateNamesTheProblem checks the errors of bad data.
func TestValidateNamesTheProblem(t *testing.T) {
	for _, tc := range []struct {
		d    Data
		want string
	}{
		{Data{Dim: 1, X: []float64{1, 2}, Y: []float64{1, 0}, Z: []float64{0, 1}}, "label 0"},
		{Data{Dim: 1, X: []float64{1, 2}, Y: []float64{1, -1}, Z: []float64{0, 2}}, "sensitive attribute 2"},
		{Data{Dim: 1, X: []float64{1, 2}, Y: []float64{1, -1}, Z: []float64{1, 1}}, "both non-empty"},
		{Data{Dim: 1, X: []float64{1, math.NaN()}, Y: []float64{1, -1}, Z: []float64{0, 1}}, "finite"},
	} {
		err := tc.d.Validate()
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("Validate = %v, want an error containing %q", err, tc.want)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

// TestReferenceKKT checks the independent solve's optimality conditions on
// Zafar et al.'s synthetic data: feasibility, complementary slackness and
// a vanishing projected gradient of the Lagrangian.
func TestReferenceKKT(t *testing.T) {
	d, err := Synthetic(500, math.Pi/4, 3)
	if err != nil {
		t.Fatal(err)
	}
	a := d.CovVector()
	for _, c := range []float64{math.Inf(1), 0.5, 0.05} {
		opt, err := Reference(d, Logistic{}, c, 10)
		if err != nil {
			t.Fatal(err)
		}
		theta, nu := opt.Theta, opt.Nu
		if opt.Gap > 1e-9 || opt.L-opt.Lower != opt.Gap {
			t.Errorf("c = %g: certified gap %g (L %v, lower bound %v), want <= 1e-9", c, opt.Gap, opt.L, opt.Lower)
		}
		cov := dot(a, theta)
		if math.Abs(cov) > c*(1+1e-9) {
			t.Errorf("c = %g: |a^T theta| = %g exceeds c", c, math.Abs(cov))
		}
		if nu != 0 && math.Abs(math.Abs(cov)-c) > 1e-6*c {
			t.Errorf("c = %g: multiplier %g but |a^T theta| = %g is not at c", c, nu, cov)
		}
		g := make([]float64, d.Dim)
		Gradient(d, Logistic{}, theta, nil, g)
		var res float64
		for j := range g {
			step := theta[j] - clamp(theta[j]-(g[j]+nu*a[j]), 10)
			res += step * step
		}
		if math.Sqrt(res) > 1e-6 {
			t.Errorf("c = %g: projected Lagrangian gradient %g, want ~0", c, math.Sqrt(res))
		}
	}
}
