package observe

import (
	"errors"
	"fmt"
	"math"
)

// Stats summarises a sample x_1..x_n over repeated runs (seeds).
type Stats struct {
	// N counts the finite values; NaN and infinite values are skipped.
	N int
	// Mean is (1/N) sum_k x_k.
	Mean float64
	// Std is the sample standard deviation
	// sqrt(sum_k (x_k - Mean)^2 / (N - 1)), and 0 for N = 1.
	Std float64
	// Min and Max are the extremes.
	Min, Max float64
}

// Summarize returns the Stats of the finite values of xs. Without any,
// every field but N is NaN.
func Summarize(xs []float64) Stats {
	s := Stats{Mean: math.NaN(), Std: math.NaN(), Min: math.Inf(1), Max: math.Inf(-1)}
	var sum float64
	for _, x := range xs {
		if !finite(x) {
			continue
		}
		s.N++
		sum += x
		s.Min = math.Min(s.Min, x)
		s.Max = math.Max(s.Max, x)
	}
	if s.N == 0 {
		s.Min, s.Max = math.NaN(), math.NaN()
		return s
	}
	s.Mean = sum / float64(s.N)
	s.Std = 0
	if s.N > 1 {
		var ss float64
		for _, x := range xs {
			if finite(x) {
				d := x - s.Mean
				ss += float64(d * d)
			}
		}
		s.Std = math.Sqrt(ss / float64(s.N-1))
	}
	return s
}

// RoundsToTolerance returns the first index k with errs[k] <= tol, the
// row at which a measured series (rounds[k], errs[k]) first reaches the
// tolerance, and false when no row does. A NaN never reaches it.
func RoundsToTolerance(errs []float64, tol float64) (int, bool) {
	for k, e := range errs {
		if e <= tol {
			return k, true
		}
	}
	return 0, false
}

// ToleranceFor is the threshold a series is measured against: abs when
// abs > 0, else rel * errs[0], the given fraction of the first measured
// value. It is NaN when neither applies (abs <= 0 and no finite first
// value).
func ToleranceFor(errs []float64, abs, rel float64) float64 {
	if abs > 0 {
		return abs
	}
	if len(errs) == 0 || !finite(errs[0]) {
		return math.NaN()
	}
	return rel * errs[0]
}

// DecayWindow returns the half-open index range [start, end) of a series
// over which its linear decay is fitted: it ends at the first row that
// reaches tol (inclusive), or at the last row when none does, and starts
// at the row of largest finite value before that, so that an initial rise
// (agents drifting towards their local models before they agree) is not
// fitted as decay.
func DecayWindow(errs []float64, tol float64) (start, end int) {
	end = len(errs)
	if k, ok := RoundsToTolerance(errs, tol); ok {
		end = k + 1
	}
	peak := math.Inf(-1)
	for k := 0; k < end; k++ {
		if finite(errs[k]) && errs[k] > peak {
			peak, start = errs[k], k
		}
	}
	return start, end
}

// RateFit is a least-squares fit of log e_t = a + t log r to a series
// e_t measured at rounds t.
type RateFit struct {
	// Rate is r = exp(slope): the factor by which e shrinks per round
	// (r < 1 for a decaying series).
	Rate float64
	// LogIntercept is a, the fitted log e at round 0.
	LogIntercept float64
	// Points is the number of rows fitted (those with e > 0 and finite).
	Points int
}

// ErrTooFewPoints is returned by LinearRate when fewer than two rows with
// distinct rounds and positive finite values remain.
var ErrTooFewPoints = errors.New("observe: fewer than two points to fit")

// LinearRate fits the linear (geometric) rate of a series: with
// u_k = rounds[k] and v_k = log errs[k] over the rows with errs[k] > 0
// finite, the least-squares slope
//
//	s = sum_k (u_k - ubar)(v_k - vbar) / sum_k (u_k - ubar)^2
//
// gives Rate = exp(s), and LogIntercept = vbar - s ubar.
func LinearRate(rounds []int, errs []float64) (RateFit, error) {
	if len(rounds) != len(errs) {
		return RateFit{}, fmt.Errorf("observe: linear rate: %d rounds for %d values", len(rounds), len(errs))
	}
	var us, vs []float64
	for k, e := range errs {
		if e > 0 && finite(e) {
			us = append(us, float64(rounds[k]))
			vs = append(vs, math.Log(e))
		}
	}
	n := float64(len(us))
	if len(us) < 2 {
		return RateFit{}, ErrTooFewPoints
	}
	var ubar, vbar float64
	for k := range us {
		ubar += us[k]
		vbar += vs[k]
	}
	ubar /= n
	vbar /= n
	var suv, suu float64
	for k := range us {
		du := us[k] - ubar
		suv += float64(du * (vs[k] - vbar))
		suu += float64(du * du)
	}
	if suu == 0 {
		return RateFit{}, ErrTooFewPoints
	}
	s := suv / suu
	return RateFit{Rate: math.Exp(s), LogIntercept: vbar - float64(s*ubar), Points: len(us)}, nil
}

// SpectralRatio is a heuristic consensus speed of a graph,
//
//	s = lambda_2(L_{p^2}) / lambda_max(L_1),
//
// where L_{p^2} is the Laplacian of the expected graph with edge weights
// p_ij^2 (the weights under which the penalty rho ||A x||^2 of two
// independent draws couples the agents, E[A^T A] ~ L_{p^2}) and L_1 the
// unit-weight Laplacian of the topology. s is not a contraction factor:
// it is the fraction of the slowest disagreement mode removed per round
// by the deterministic iteration x <- x - L_{p^2} x / lambda_max(L_1),
// which contracts that mode by 1 - s per round. That iteration is a
// heuristic stand-in (the p^2 weights and the topology-fixed step), not
// the random iteration of any algorithm here, so s is no prediction of an
// observed rate; it falls like p^2 as links drop out. It is 0 when
// lambdaMax1 <= 0.
func SpectralRatio(lambda2P2, lambdaMax1 float64) float64 {
	if !(lambdaMax1 > 0) {
		return 0
	}
	return lambda2P2 / lambdaMax1
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
