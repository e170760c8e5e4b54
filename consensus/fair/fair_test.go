package fair

import (
	"math"
	"testing"

	"github.com/consim/consim/problems/fairness"
)

// TestAlgorithm1ReachesReference runs Algorithm 1 (exact and sampled
// constraint rows) on the synthetic data and checks that it ends near the
// independently solved optimum: objective within 2e-3 and covariance
// within 0.02 of the optimum's with the exact row; with sampled rows the
// penalty carries rho/2 Var(a_B^T theta), a bias that pulls theta in, so
// there within 5e-3 and 0.05.
func TestAlgorithm1ReachesReference(t *testing.T) {
	d, err := fairness.Synthetic(500, math.Pi/4, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []float64{math.Inf(1), 0.3} {
		ref, err := fairness.Reference(d, fairness.Logistic{}, c, 10)
		if err != nil {
			t.Fatal(err)
		}
		fStar, covStar := ref.L, ref.Cov
		for _, sampled := range []bool{false, true} {
			res, err := Solve(d, fairness.Logistic{}, Config{C: c, Rounds: 20000, SampledConstraint: sampled, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			f, cov := fairness.Objective(d, fairness.Logistic{}, res.Theta), fairness.Covariance(d, res.Theta)
			tolF, tolC := 2e-3, 0.02
			if sampled {
				tolF, tolC = 5e-3, 0.05
			}
			if math.Abs(f-fStar) > tolF || math.Abs(cov-covStar) > tolC {
				t.Errorf("c = %g sampled = %v: L = %.5f cov = %.4f, optimum L* = %.5f cov* = %.4f", c, sampled, f, cov, fStar, covStar)
			}
		}
	}
}

// TestSolveRejectsBadParams checks that every bad parameter is named.
func TestSolveRejectsBadParams(t *testing.T) {
	d, err := fairness.Synthetic(20, math.Pi/4, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Solve(d, fairness.Logistic{}, Config{C: -1, Tau: -1, Beta: 2, Batch: 1000, Rounds: -3, R: math.Inf(1)})
	for _, want := range []string{"c -1", "tau -1", "beta 2", "batch 1000", "rounds -3", "R +Inf"} {
		if err == nil || !contains(err.Error(), want) {
			t.Errorf("error %v does not name %q", err, want)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}
