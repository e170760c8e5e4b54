package report

import (
	"math"
	"testing"
)

// TestSeriesRateIsStatsOfRate checks that a series fitted by SeriesRate
// gets the rate StatsOf fits to the run with the same rows (zero start,
// random start, absolute and relative tolerances), and that PastTolerance
// turns true at the row where the fit window closes, not before.
func TestSeriesRateIsStatsOfRate(t *testing.T) {
	for name, errs := range map[string][]float64{
		"zero start": {0, 0.5, 1, 0.6, 0.3, 0.1, 0.04, 0.01, 0.004},
		"spread":     {2, 1.1, 0.7, 0.3, 0.2, 0.05, 0.02},
	} {
		rounds := make([]int, len(errs))
		for k := range rounds {
			rounds[k] = 10 * k
		}
		for _, tol := range [][2]float64{{0.05, 0}, {0, 0.1}} {
			want := StatsOf(runOf(errs), tol[0], tol[1]).Rate
			if got := SeriesRate(rounds, errs, tol[0], tol[1]); math.IsNaN(want) || got != want {
				t.Errorf("%s, tolerance %v: SeriesRate %v, StatsOf %v", name, tol, got, want)
			}
			reached := StatsOf(runOf(errs), tol[0], tol[1]).RoundsToTol
			for k := 1; k <= len(errs); k++ {
				past := PastTolerance(errs[:k], tol[0], tol[1])
				if want := !math.IsNaN(reached) && rounds[k-1] >= int(reached); past != want {
					t.Errorf("%s, tolerance %v: PastTolerance after %d rows = %v, want %v (tolerance reached at round %v)", name, tol, k, past, want, reached)
				}
			}
		}
	}
}
