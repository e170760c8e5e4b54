package report

import (
	"math"

	"github.com/consim/consim/observe"
)

// SeriesRate is the rate StatsOf fits to a run's consensus series,
// applied to any series (rounds[k], errs[k]): the least-squares factor of
// log errs from the peak to the first row at the tolerance (absTol, or
// relTol times the first value, or the peak's when the first is 0). A
// sweep applies it to the algorithm's predicted consensus curve, so that
// the prediction and the observation are fitted by the same rule. It is
// NaN when there is nothing to fit.
func SeriesRate(rounds []int, errs []float64, absTol, relTol float64) float64 {
	k0 := countFrom(errs)
	rounds, errs = rounds[k0:], errs[k0:]
	tol := observe.ToleranceFor(errs, absTol, relTol)
	from, to := observe.DecayWindow(errs, tol)
	fit, err := observe.LinearRate(rounds[from:to], errs[from:to])
	if err != nil {
		return math.NaN()
	}
	return fit.Rate
}

// PastTolerance reports whether a consensus series, measured so far, has
// reached the tolerance of SeriesRate after its peak: its fit window is
// then complete.
func PastTolerance(errs []float64, absTol, relTol float64) bool {
	if len(errs) < 2 {
		return false
	}
	k0 := countFrom(errs)
	tol := observe.ToleranceFor(errs[k0:], absTol, relTol)
	_, ok := observe.RoundsToTolerance(errs[k0:], tol)
	return ok && k0 < len(errs)-1
}
