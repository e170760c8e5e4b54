package experiments

import (
	"math"
	"math/rand/v2"
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

// MedianInterval is a distribution-free confidence interval of a median:
// the order statistics x_(j) <= x_(k) (1-based, of the sorted sample)
// with P(x_(j) <= median < x_(k)) = Coverage, the binomial(n, 1/2)
// probability of j <= #{x_i < median} < k.
type MedianInterval struct {
	Lo, Hi   float64
	J, K     int
	Coverage float64
}

// MedianCI returns the narrowest symmetric order-statistic interval
// [x_(j), x_(n+1-j)] of the median of xs whose coverage is at least
// level (e.g. 0.95): the largest j with
//
//	sum_{i=j}^{n-j} C(n, i) 2^{-n} >= level.
//
// With too few values for the level (n = 10 reaches 0.979 at j = 2; n < 6
// cannot reach 0.95) it returns the range [x_(1), x_(n)] with its
// coverage 1 - 2^{1-n}. NaN fields for an empty xs.
func MedianCI(xs []float64, level float64) MedianInterval {
	n := len(xs)
	if n == 0 {
		nan := math.NaN()
		return MedianInterval{Lo: nan, Hi: nan, Coverage: nan}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	b := distuv.Binomial{N: float64(n), P: 0.5}
	cover := func(j int) float64 { return b.CDF(float64(n-j)) - b.CDF(float64(j-1)) }
	j := 1
	for j+1 <= n+1-(j+1) && cover(j+1) >= level {
		j++
	}
	return MedianInterval{Lo: s[j-1], Hi: s[n-j], J: j, K: n + 1 - j, Coverage: cover(j)}
}

// RatioInterval is a ratio of two means with a confidence interval.
type RatioInterval struct {
	Ratio, Lo, Hi float64
}

// PairedRatioCI returns mean(a) / mean(b) for paired samples (a_i and b_i
// measured on the same instance i) and its percentile bootstrap interval
// at level: resamples draws of n pairs with replacement, from a PCG with
// the given seed, so the interval is reproducible. len(a) = len(b) >= 2.
func PairedRatioCI(a, b []float64, level float64, resamples int, seed uint64) RatioInterval {
	n := len(a)
	mean := func(v []float64, idx []int) float64 {
		var s float64
		for _, i := range idx {
			s += v[i]
		}
		return s
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	r := RatioInterval{Ratio: mean(a, all) / mean(b, all)}
	rng := rand.New(rand.NewPCG(seed, 0x5ee0d))
	boot := make([]float64, resamples)
	idx := make([]int, n)
	for k := range boot {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		boot[k] = mean(a, idx) / mean(b, idx)
	}
	slices.Sort(boot)
	alpha := (1 - level) / 2
	r.Lo = stat.Quantile(alpha, stat.Empirical, boot, nil)
	r.Hi = stat.Quantile(1-alpha, stat.Empirical, boot, nil)
	return r
}
