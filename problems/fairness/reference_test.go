package fairness

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// adultDir is the shared UCI Adult directory the tests read when present.
const adultDir = "/work/shared/data/adult"

// TestReferenceAdult solves the stated problem on the full Adult
// training set (mean logistic loss, box [-10, 10]^d, |a^T theta| <= c)
// and checks the certificate (gap <= 1e-6, the covariance on the bound to 1e-8
// where the multiplier is nonzero) and the optimum against an
// independent solve (SLSQP and a multiplier bisection over L-BFGS-B,
// which agree to 4e-7): L* = 0.325579, 0.353744, 0.377402, 0.380065 for
// c = inf, 0.1, 0.01, 0.001. With -short only c = 0.01.
func TestReferenceAdult(t *testing.T) {
	if _, err := os.Stat(filepath.Join(adultDir, "adult.data.gz")); err != nil {
		t.Skipf("Adult data not found: %v", err)
	}
	train, _, err := LoadAdult(adultDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ c, want float64 }{{0.01, 0.377402}}
	if !testing.Short() {
		cases = append(cases, struct{ c, want float64 }{math.Inf(1), 0.325579},
			struct{ c, want float64 }{0.1, 0.353744}, struct{ c, want float64 }{0.001, 0.380065})
	}
	for _, tc := range cases {
		opt, err := Reference(train, Logistic{}, tc.c, 10)
		if err != nil {
			t.Fatalf("c = %g: %v", tc.c, err)
		}
		if opt.Gap > 1e-6 || opt.Gap < 0 {
			t.Errorf("c = %g: certified gap %g, want in [0, 1e-6]", tc.c, opt.Gap)
		}
		if math.Abs(opt.L-tc.want) > 1e-6 {
			t.Errorf("c = %g: L* = %.7f, independent solve %.6f", tc.c, opt.L, tc.want)
		}
		if math.Abs(opt.Cov) > tc.c {
			t.Errorf("c = %g: covariance %g off the feasible set", tc.c, opt.Cov)
		}
		if opt.Nu != 0 && math.Abs(math.Abs(opt.Cov)-tc.c) > 1e-8 {
			t.Errorf("c = %g: multiplier %g but covariance %g is not on the bound", tc.c, opt.Nu, opt.Cov)
		}
		if !math.IsInf(tc.c, 1) && opt.Nu == 0 {
			t.Errorf("c = %g: the constraint is inactive (covariance %g), the independent solve has it active", tc.c, opt.Cov)
		}
		t.Logf("c = %g: L* = %.7f, lower bound %.7f, gap %.1e, KKT %.1e, covariance %.7f, nu %.5g, %d Newton steps",
			tc.c, opt.L, opt.Lower, opt.Gap, opt.KKT, opt.Cov, opt.Nu, opt.Newton)
	}
}
