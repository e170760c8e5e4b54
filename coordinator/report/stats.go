package report

import (
	"math"

	"github.com/consim/consim/consensus/metrics"
)

// RunStats are the per-run quantities of a sweep's tables. Values that do
// not exist (a tolerance never reached, a rate without two points) are NaN.
type RunStats struct {
	Status     string
	FinalRound int
	// FinalConsensusErr is the consensus error of the last measured round.
	FinalConsensusErr float64
	// Tolerance is the threshold RoundsToTol counts up to (see
	// metrics.ToleranceFor).
	Tolerance float64
	// RoundsToTol is the first measured round whose consensus error is
	// <= Tolerance.
	RoundsToTol float64
	// Rate is the linear rate of the consensus error fitted over
	// metrics.DecayWindow (see metrics.LinearRate).
	Rate             float64
	FinalOptGap      float64
	FinalFeasibility float64
	// Msgs, Bytes and Dropouts are the run's traffic totals.
	Msgs, Bytes, Dropouts float64
	WallSeconds           float64
}

// StatsOf measures a run: its tolerance is absTol when > 0, else relTol
// times the first measured consensus error.
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
	rounds, errs := consensusSeries(r)
	st.Tolerance = metrics.ToleranceFor(errs, absTol, relTol)
	if len(r.Rows) == 0 {
		return st
	}
	last := r.Rows[len(r.Rows)-1]
	st.FinalRound = last.Round
	st.FinalConsensusErr = last.ConsensusErr
	st.FinalOptGap = last.OptGap
	st.FinalFeasibility = last.Feasibility
	if k, ok := metrics.RoundsToTolerance(errs, st.Tolerance); ok {
		st.RoundsToTol = float64(rounds[k])
	}
	from, to := metrics.DecayWindow(errs, st.Tolerance)
	if fit, err := metrics.LinearRate(rounds[from:to], errs[from:to]); err == nil {
		st.Rate = fit.Rate
	}
	return st
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
