package zosplm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
)

// DefaultChunk is the default number of directions per chunk request: 250
// directions make 40 requests for k = 10,000, enough to keep 8 workers busy,
// while the per-request overhead (one header, one pool round trip, one
// result of (2 + m) n values) stays below 1% of the chunk's work.
const DefaultChunk = 250

// Estimator configures the mini-batch two-point estimator of eq. (3),
//
//	grad_hat phi(x) = (n/(r k)) sum_{i=1..k} [phi(x + r D_i) - phi(x)] D_i,
//
// and its split into requests. Its zero value is not valid; see
// DefaultEstimator.
type Estimator struct {
	// K is the mini-batch size k, the number of directions per iteration.
	K int
	// R is the smoothing radius r (the paper uses 1e-5).
	R float64
	// Dist is the distribution of the directions (Sphere by default).
	Dist Dist
	// Chunk is the number of directions per chunk request (DefaultChunk
	// when 0). It changes the order in which the k terms are summed (per
	// chunk, then chunks in order), never a direction; the number of
	// workers changes nothing.
	Chunk int
	// ExactProx, if true, adds the gradient p (x - z) of the known
	// proximal term exactly instead of estimating it from the same
	// directions. The paper estimates the whole proximal Lagrangian
	// (eq. 3 applied to L); the proof of Theorem 1 (appendix C) writes the
	// step with the exact proximal gradient. Default false (estimated).
	ExactProx bool
}

// DefaultEstimator is the paper's setting: k = 10,000 sphere directions,
// r = 1e-5, chunks of DefaultChunk, estimated proximal term.
func DefaultEstimator() Estimator {
	return Estimator{K: 10000, R: 1e-5, Dist: Sphere, Chunk: DefaultChunk}
}

// Validate checks k >= 1, r > 0 finite, a known distribution and chunk >= 0.
func (e Estimator) Validate() error {
	switch {
	case e.K < 1:
		return fmt.Errorf("zosplm: estimator: k = %d, want >= 1", e.K)
	case !(e.R > 0) || math.IsInf(e.R, 0):
		return fmt.Errorf("zosplm: estimator: r = %g, want 0 < r < inf", e.R)
	case e.Dist != Sphere && e.Dist != Gaussian:
		return fmt.Errorf("zosplm: estimator: %v, want sphere or gaussian", e.Dist)
	case e.Chunk < 0:
		return fmt.Errorf("zosplm: estimator: chunk = %d, want >= 0", e.Chunk)
	}
	return nil
}

func (e Estimator) chunk() int {
	if e.Chunk == 0 {
		return DefaultChunk
	}
	return e.Chunk
}

// Chunks is the number of chunk requests per iteration, ceil(k / chunk).
func (e Estimator) Chunks() int { c := e.chunk(); return (e.K + c - 1) / c }

// requests builds an iteration's requests and reduces their results. It
// reuses its buffers from iteration to iteration.
type requests struct {
	est  Estimator
	n, m int
	val  [1]consensus.EvalRequest
	reqs []consensus.EvalRequest
	args [][]float64
	sums []float64
}

func newRequests(est Estimator, n, m int) *requests {
	c := est.Chunks()
	return &requests{est: est, n: n, m: m, reqs: make([]consensus.EvalRequest, c), args: make([][]float64, c)}
}

// value is the iteration's base request: OpValue at x.
func (q *requests) value(x []float64) []consensus.EvalRequest {
	q.val[0] = consensus.EvalRequest{Op: OpValue, Arg: x}
	return q.val[:]
}

// chunks returns the chunk requests of op at x for the directions of key,
// with the base values v0 = [f0, h0], the composite parameters yrho
// (y then rho, only for OpComposite) and w = x - z (nil for none).
func (q *requests) chunks(op int, key uint64, v0, yrho, x, w []float64) []consensus.EvalRequest {
	size := q.est.chunk()
	for c := range q.reqs {
		first := c * size
		count := min(size, q.est.K-first)
		a := q.args[c][:0]
		a = append(a, q.est.R, float64(q.est.Dist), float64(first), float64(count))
		a = append(a, v0...)
		a = append(a, yrho...)
		a = append(a, x...)
		a = append(a, w...)
		q.args[c] = a
		q.reqs[c] = consensus.EvalRequest{Op: op, Key: key, Arg: a}
	}
	return q.reqs
}

// reduce sums the chunk results in request order, each of the given
// width, and scales the sum by n/(r k): the estimates of eq. (3), one per
// block of n values.
func (q *requests) reduce(res [][]float64, width int) ([]float64, error) {
	if len(res) != len(q.reqs) {
		return nil, fmt.Errorf("%d chunk results, want %d", len(res), len(q.reqs))
	}
	if cap(q.sums) < width {
		q.sums = make([]float64, width)
	}
	s := q.sums[:width]
	clear(s)
	for c, r := range res {
		if len(r) != width {
			return nil, fmt.Errorf("chunk %d has %d values, want %d", c, len(r), width)
		}
		for i, v := range r {
			s[i] += v
		}
	}
	scale := float64(q.n) / (q.est.R * float64(q.est.K))
	for i := range s {
		s[i] *= scale
	}
	return s, nil
}

// baseValues checks the phase-0 result and returns [f(x), h(x)].
func baseValues(in consensus.Inbox, m int) ([]float64, error) {
	if len(in.Evals) != 1 || len(in.Evals[0]) != 1+m {
		return nil, fmt.Errorf("value phase: want one result of %d values, got %d results", 1+m, len(in.Evals))
	}
	for _, v := range in.Evals[0] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("value phase: non-finite value %g", v)
		}
	}
	return in.Evals[0], nil
}
