package observe

import (
	"math"

	"github.com/consim/consim/consensus"
)

// Chunk is the number of agents, or of edges, whose terms every sum over
// agents or edges adds up in one partial sum: a sum over the agents is
//
//	sum_{chunks c, ascending} ( sum_{i in c, ascending} v_i ),
//
// every partial sum and the total accumulated from zero. For a run of at
// most Chunk agents that is the plain sum in ascending order; for a
// larger one it is the same sum whether one goroutine computes the chunks
// in turn or several compute them at once (package stepped).
const Chunk = 1024

// chunks is the number of chunks of n terms.
func chunks(n int) int { return (n + Chunk - 1) / Chunk }

// span is the index range [lo, hi) of chunk c of n terms.
func span(c, n int) (lo, hi int) { return c * Chunk, min((c+1)*Chunk, n) }

// addTo adds x to sum component by component: one agent's term of
// sum_i x_i.
func addTo(sum, x []float64) {
	for k, v := range x {
		sum[k] += v
	}
}

// spreadTerms returns ||x - xbar||^2 and ||x||^2, accumulated into d2 and
// m2 component by component: one agent's terms of the consensus error and
// of its normalisation.
func spreadTerms(d2, m2 float64, x, xbar []float64) (float64, float64) {
	for k, v := range x {
		d := v - xbar[k]
		d2 += float64(d * d)
		m2 += float64(v * v)
	}
	return d2, m2
}

// sqDist returns ||a - b||^2 for slices of equal length.
func sqDist(a, b []float64) float64 {
	var s float64
	for k := range a {
		d := a[k] - b[k]
		s += float64(d * d)
	}
	return s
}

// Spread is the disagreement of iterates x_1..x_N (those given, in the
// order given) around their mean xbar = (1/N) sum_i x_i.
type Spread struct {
	// N is the number of iterates.
	N int
	// Sq is sum_i ||x_i - xbar||^2 = ||X - 1 xbar^T||_F^2, Mass is
	// sum_i ||x_i||^2.
	Sq, Mass float64
}

// SpreadOf returns the Spread of xs, which must all have one length;
// nil entries (departed agents) are left out. It is the computation
// behind every consensus error of the package: Measure's, and that of
// Disagreement, ConsensusError and Replicas.
func SpreadOf(xs [][]float64) Spread {
	var s Spread
	var xbar []float64
	for c := range chunks(len(xs)) {
		lo, hi := span(c, len(xs))
		var part []float64
		for _, x := range xs[lo:hi] {
			if x == nil {
				continue
			}
			if part == nil {
				part = make([]float64, len(x))
			}
			addTo(part, x)
			s.N++
		}
		if part == nil {
			continue
		}
		if xbar == nil {
			xbar = make([]float64, len(part))
		}
		addTo(xbar, part)
	}
	if s.N == 0 {
		return s
	}
	inv := 1 / float64(s.N)
	for k := range xbar {
		xbar[k] *= inv
	}
	for c := range chunks(len(xs)) {
		lo, hi := span(c, len(xs))
		var d2, m2 float64
		for _, x := range xs[lo:hi] {
			if x != nil {
				d2, m2 = spreadTerms(d2, m2, x, xbar)
			}
		}
		s.Sq += d2
		s.Mass += m2
	}
	return s
}

// ConsensusErr is (1/N) Sq, the consensus error (1/N) sum_i ||x_i - xbar||^2;
// 0 without iterates.
func (s Spread) ConsensusErr() float64 {
	if s.N == 0 {
		return 0
	}
	return s.Sq * (1 / float64(s.N))
}

// Disagreement returns sum_i ||x_i - xbar||^2 = ||X - 1 xbar^T||_F^2 of
// the iterates xs: N times their consensus error.
func Disagreement(xs [][]float64) float64 { return SpreadOf(xs).Sq }

// ConsensusError returns (1/N) sum_i ||x_i - xbar||^2 of the iterates xs
// (nil entries left out), 0 without any.
func ConsensusError(xs [][]float64) float64 { return SpreadOf(xs).ConsensusErr() }

// Replicas returns the consensus error of the reports of the agents in
// ids (those with a nil X are left out), in the order given; 0 when fewer
// than two remain, NaN when their lengths differ. It is what an
// Evaluator of data-parallel agents, each holding a replica of the whole
// iterate, reports as ConsensusErr.
func Replicas(reps []consensus.Report, ids []int) float64 {
	var xs [][]float64
	for _, i := range ids {
		if reps[i].X != nil {
			xs = append(xs, reps[i].X)
		}
	}
	if len(xs) < 2 {
		return 0
	}
	for _, x := range xs {
		if len(x) != len(xs[0]) {
			return math.NaN() // not replicas of one iterate
		}
	}
	return ConsensusError(xs)
}
