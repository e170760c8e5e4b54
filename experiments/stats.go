package experiments

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Stats summarizes a sample: its size, mean, median, quartiles and range.
// The quartiles are the medians of the lower and upper halves.
type Stats struct {
	Count                          int
	Mean, Median, Q1, Q3, Min, Max float64
}

// Summarize returns the Stats of v (NaN fields for an empty v). NaN
// values sort first, as slices.Sort puts them.
func Summarize(v []float64) Stats {
	if len(v) == 0 {
		nan := math.NaN()
		return Stats{Mean: nan, Median: nan, Q1: nan, Q3: nan, Min: nan, Max: nan}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	h := len(s) / 2
	lo, hi := s[:h], s[len(s)-h:]
	var sum float64
	for _, x := range s {
		sum += x
	}
	st := Stats{Count: len(s), Mean: sum / float64(len(s)), Median: medianSorted(s), Min: s[0], Max: s[len(s)-1], Q1: s[0], Q3: s[len(s)-1]}
	if h > 0 {
		st.Q1, st.Q3 = medianSorted(lo), medianSorted(hi)
	}
	return st
}

// Median returns the median of v (NaN for none); see Summarize.
func Median(v []float64) float64 { return Summarize(v).Median }

// medianSorted is the median of the sorted, non-empty a: its middle
// value, or the mean of its two middle values.
func medianSorted(a []float64) float64 {
	k := len(a)
	if k%2 == 1 {
		return a[k/2]
	}
	return (a[k/2-1] + a[k/2]) / 2
}

// Stat is a mean and a sample standard deviation.
type Stat struct{ Mean, Std float64 }

// MeanStd returns the mean and the sample standard deviation of v (0 for
// one value; the zero Stat for none).
func MeanStd(v []float64) Stat {
	if len(v) == 0 {
		return Stat{}
	}
	var m float64
	for _, t := range v {
		m += t
	}
	m /= float64(len(v))
	var s float64
	for _, t := range v {
		s += (t - m) * (t - m)
	}
	if len(v) > 1 {
		s = math.Sqrt(s / float64(len(v)-1))
	}
	return Stat{Mean: m, Std: s}
}

// MeanCI returns the mean of xs and the half-width of its 95% Student-t
// interval, t_{0.975, n-1} sd / sqrt(n) (n = len(xs) >= 2).
func MeanCI(xs []float64) (mean, half float64) {
	m, sd := stat.MeanStdDev(xs, nil)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975)
	return m, q * sd / math.Sqrt(float64(len(xs)))
}

// BatchMeans turns the sums of curves over B batches of seeds (batch b
// holding the seeds s = b, b + B, ... below seeds) into the pooled mean
// curve over all seeds and the mean curve of each batch.
func BatchMeans(sums [][]float64, seeds int) (pooled []float64, batches [][]float64) {
	B := len(sums)
	pooled = make([]float64, len(sums[0]))
	batches = make([][]float64, B)
	for b, s := range sums {
		nb := float64((seeds - b + B - 1) / B)
		batches[b] = make([]float64, len(s))
		for t, v := range s {
			pooled[t] += v / float64(seeds)
			batches[b][t] = v / nb
		}
	}
	return pooled, batches
}
