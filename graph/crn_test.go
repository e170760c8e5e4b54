package graph

import (
	"math"
	"testing"
)

// TestExponentialQuantile checks the closed form against known quantiles
// and that the sample mean of Exponential(U, m) over common randomness is m.
func TestExponentialQuantile(t *testing.T) {
	if got := Exponential(0, 3); got != 0 {
		t.Errorf("Exponential(0, 3) = %v, want 0", got)
	}
	if got, want := Exponential(1-math.Exp(-2), 1.5), 3.0; math.Abs(got-want) > 1e-12 {
		t.Errorf("Exponential(1-e^-2, 1.5) = %v, want %v", got, want)
	}
	const n, mean = 200000, 2.0
	var s float64
	for k := range n {
		s += Exponential(Uniform(9, uint64(k), 0, 0, 0), mean)
	}
	// The standard error of the mean is mean/sqrt(n).
	if m := s / n; math.Abs(m-mean) > 5*mean/math.Sqrt(n) {
		t.Errorf("sample mean %v, want %v within 5 standard errors", m, mean)
	}
}
