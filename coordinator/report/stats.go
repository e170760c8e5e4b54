package report

import (
	"math"

	"github.com/consim/consim/observe"
)

// RunStats are the per-run quantities of a sweep's tables. Values that do
// not exist (a tolerance never reached, a rate without two points) are NaN.
type RunStats struct {
	Status     string
	FinalRound int
	// FinalConsensusErr is the consensus error of the last measured round.
	FinalConsensusErr float64
	// Tolerance is the threshold RoundsToTol counts up to (see
	// observe.ToleranceFor); a relative one is taken of the consensus
	// error of the row counting starts from (see RoundsToTol).
	Tolerance float64
	// RoundsToTol is the first measured round whose consensus error is
	// <= Tolerance, counting from round 0 when its consensus error is
	// positive (a random spread) and from the peak of the consensus error
	// when it is 0 (the zero start, where the error first rises).
	RoundsToTol float64
	// Rate is the linear rate of the consensus error fitted over
	// observe.DecayWindow (see observe.LinearRate).
	Rate             float64
	FinalOptGap      float64
	FinalFeasibility float64
	// Msgs, Bytes and Dropouts are the run's traffic totals.
	Msgs, Bytes, Dropouts float64
	WallSeconds           float64
}

// StatsOf measures a run: its tolerance is absTol when > 0, else relTol
// times the consensus error of the row counting starts from (round 0, or
// the peak after a zero start; see RunStats.RoundsToTol). For an
// incomplete run (no summary.json) Status is empty and the traffic totals
// and wall time, which only the summary holds, are NaN.
func StatsOf(r *Run, absTol, relTol float64) RunStats {
	s := r.Summary
	st := RunStats{
		Status:            s.Status,
		FinalConsensusErr: math.NaN(),
		RoundsToTol:       math.NaN(),
		Rate:              math.NaN(),
		FinalOptGap:       math.NaN(),
		FinalFeasibility:  math.NaN(),
		Msgs:              float64(s.Traffic.MsgsSent),
		Bytes:             float64(s.Traffic.BytesSent),
		Dropouts:          float64(s.Traffic.Dropouts),
		WallSeconds:       s.WallSeconds,
	}
	if r.Incomplete {
		st.Msgs, st.Bytes, st.Dropouts, st.WallSeconds = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	rounds, errs := consensusSeries(r)
	// The tolerance, the rounds to it and the decay window are counted
	// from the first row, or from the peak when the first row holds no
	// disagreement (the zero start: 0 at round 0, which no tolerance
	// should count as reached).
	k0 := countFrom(errs)
	rounds, errs = rounds[k0:], errs[k0:]
	st.Tolerance = observe.ToleranceFor(errs, absTol, relTol)
	if len(r.Rows) == 0 {
		return st
	}
	last := r.Rows[len(r.Rows)-1]
	st.FinalRound = last.Round
	st.FinalConsensusErr = last.ConsensusErr
	st.FinalOptGap = last.OptGap
	st.FinalFeasibility = last.Feasibility
	if k, ok := observe.RoundsToTolerance(errs, st.Tolerance); ok {
		st.RoundsToTol = float64(rounds[k])
	}
	from, to := observe.DecayWindow(errs, st.Tolerance)
	if fit, err := observe.LinearRate(rounds[from:to], errs[from:to]); err == nil {
		st.Rate = fit.Rate
	}
	return st
}

// countFrom returns the row a consensus series is measured from: 0 when
// errs[0] is positive and finite, else the index of the largest finite
// value (the first of equal ones), 0 when there is none.
func countFrom(errs []float64) int {
	k0 := 0
	if len(errs) == 0 || errs[0] > 0 && !math.IsInf(errs[0], 0) {
		return 0
	}
	for k, e := range errs {
		if !math.IsNaN(e) && !math.IsInf(e, 0) && (math.IsNaN(errs[k0]) || math.IsInf(errs[k0], 0) || e > errs[k0]) {
			k0 = k
		}
	}
	return k0
}

// consensusSeries returns the measured rounds and consensus errors of r.
func consensusSeries(r *Run) ([]int, []float64) {
	rounds := make([]int, len(r.Rows))
	errs := make([]float64, len(r.Rows))
	for k, row := range r.Rows {
		rounds[k] = row.Round
		errs[k] = row.ConsensusErr
	}
	return rounds, errs
}
