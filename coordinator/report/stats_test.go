package report

import (
	"math"
	"testing"

	"github.com/consim/consim/coordinator"
	"github.com/consim/consim/observe"
)

// runOf is a run whose rows, at rounds 0, 10, 20, ..., carry errs.
func runOf(errs []float64) *Run {
	r := &Run{Summary: coordinator.Summary{Status: coordinator.StatusOK}}
	for k, e := range errs {
		r.Rows = append(r.Rows, coordinator.Row{Metrics: observe.Metrics{Round: 10 * k, ConsensusErr: e}})
	}
	return r
}

// TestStatsOfZeroStart: from the zero start (consensus error 0 at round 0)
// the rounds to tolerance and the decay are counted from the peak, so a
// relative tolerance is a fraction of the peak and round 0 never counts
// as reached; from a random spread they are counted from round 0 as
// before. Expected values are worked by hand from the series.
func TestStatsOfZeroStart(t *testing.T) {
	// Rises to 1 at round 20, then halves every 10 rounds.
	zero := []float64{0, 0.5, 1, 0.5, 0.25, 0.125, 0.0625}
	st := StatsOf(runOf(zero), 0, 0.1)
	if st.Tolerance != 0.1 {
		t.Errorf("zero start: tolerance %v, want 0.1 x the peak 1 = 0.1", st.Tolerance)
	}
	if st.RoundsToTol != 60 {
		t.Errorf("zero start: rounds to tolerance %v, want 60 (0.0625 <= 0.1; 0 at round 0 does not count)", st.RoundsToTol)
	}
	if want := math.Pow(0.5, 0.1); math.Abs(st.Rate-want) > 1e-12 {
		t.Errorf("zero start: rate %v, want 0.5^(1/10) = %v fitted from the peak", st.Rate, want)
	}

	// A spread at round 0 that rises above itself later (a partition):
	// counting starts at round 0 all the same.
	spread := []float64{2, 0.5, 4, 1, 0.1}
	st = StatsOf(runOf(spread), 0, 0.25)
	if st.Tolerance != 0.5 || st.RoundsToTol != 10 {
		t.Errorf("spread: tolerance %v rounds %v, want 0.25 x 2 = 0.5 first reached at round 10", st.Tolerance, st.RoundsToTol)
	}

	// An absolute tolerance from the zero start is reached only after
	// the peak.
	st = StatsOf(runOf(zero), 0.3, 0)
	if st.Tolerance != 0.3 || st.RoundsToTol != 40 {
		t.Errorf("zero start, absolute: tolerance %v rounds %v, want 0.3 first reached after the peak at round 40", st.Tolerance, st.RoundsToTol)
	}
}
