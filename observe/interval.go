package observe

import "math"

// Interval95 returns the 95% confidence interval of the mean of s:
// Mean -+ t_{0.975, N-1} Std / sqrt(N), NaN bounds for N < 2.
func (s Stats) Interval95() (lo, hi float64) {
	if s.N < 2 {
		return math.NaN(), math.NaN()
	}
	h := tQuantile(s.N-1) * s.Std / math.Sqrt(float64(s.N))
	return s.Mean - h, s.Mean + h
}
