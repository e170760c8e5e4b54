package objective

import (
	"math"
	"math/big"
	"testing"
)

// TestExp checks exp against e^x in 200-bit arithmetic (from math/big's
// exact rational arithmetic and a Taylor series) to one unit in the last
// place, and the special cases of math.Exp.
func TestExp(t *testing.T) {
	for k := -3000; k <= 3000; k++ {
		x := float64(k) / 97.3
		got := exp(x)
		want := bigExp(x)
		if ulp := math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want); ulp > 1 {
			t.Fatalf("exp(%v) = %v, want %v (%.2f ulp)", x, got, want, ulp)
		}
	}
	for _, tc := range []struct{ x, want float64 }{
		{0, 1}, {1e-300, 1}, {math.Inf(1), math.Inf(1)}, {math.Inf(-1), 0}, {710, math.Inf(1)}, {-746, 0},
	} {
		if got := exp(tc.x); got != tc.want {
			t.Errorf("exp(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if !math.IsNaN(exp(math.NaN())) {
		t.Error("exp(NaN) is not NaN")
	}
}

// bigExp returns e^x rounded to float64, by e^x = (e^(x/2^s))^(2^s) with a
// Taylor series of the reduced argument in 200-bit precision.
func bigExp(x float64) float64 {
	const prec = 200
	const s = 12
	r := new(big.Float).SetPrec(prec).SetFloat64(x)
	r.Quo(r, new(big.Float).SetPrec(prec).SetFloat64(1<<s))
	sum := new(big.Float).SetPrec(prec).SetFloat64(1)
	term := new(big.Float).SetPrec(prec).SetFloat64(1)
	for n := 1; n < 60; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(n)))
		sum.Add(sum, term)
	}
	for range s {
		sum.Mul(sum, sum)
	}
	f, _ := sum.Float64()
	return f
}
