package async

import (
	"math"
	"slices"
)

// Summary describes a sample of non-negative values.
type Summary struct {
	Mean, P50, P99, Max float64
}

// Staleness summarises the ages of the received values the agents used
// in their updates over an interval: the age of a value is the time from
// its sending to its use, and the number of updates its sender made in
// between.
type Staleness struct {
	// Count is the number of values used; the summaries are NaN when 0.
	Count int64
	// Time summarises the ages in time, Updates those in the sender's
	// updates.
	Time, Updates Summary
}

// Ages collects the ages of used values between two calls of Take.
type Ages struct {
	time, updates []float64
}

// Add records one used value of the given ages.
func (a *Ages) Add(age float64, updates int64) {
	a.time = append(a.time, age)
	a.updates = append(a.updates, float64(updates))
}

// Merge adds the ages collected in b.
func (a *Ages) Merge(b *Ages) {
	a.time = append(a.time, b.time...)
	a.updates = append(a.updates, b.updates...)
}

// Reset discards the ages collected.
func (a *Ages) Reset() { a.time, a.updates = a.time[:0], a.updates[:0] }

// Take returns the staleness of the ages collected since the last Take
// and starts a new collection.
func (a *Ages) Take() Staleness {
	s := Staleness{Count: int64(len(a.time)), Time: Summarize(a.time), Updates: Summarize(a.updates)}
	a.time, a.updates = a.time[:0], a.updates[:0]
	return s
}

// Summarize returns the mean, the nearest-rank quantiles p50 and p99
// (the smallest value with at least that fraction of the sample at or
// below it) and the maximum of xs, NaN for an empty sample. It sorts xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		nan := math.NaN()
		return Summary{nan, nan, nan, nan}
	}
	slices.Sort(xs)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	rank := func(q float64) float64 {
		k := int(math.Ceil(q*float64(len(xs)))) - 1
		return xs[max(k, 0)]
	}
	return Summary{Mean: sum / float64(len(xs)), P50: rank(0.5), P99: rank(0.99), Max: xs[len(xs)-1]}
}
