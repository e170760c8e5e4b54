package coordinator

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/consim/consim/observe"
)

// series feeds the consensus errors errs, measured at rounds 0, every,
// 2 every, ..., and the optimality gaps gaps through peakOf and reduction
// as a run does, and returns the Reduction.
func series(errs, gaps []float64, every int) Reduction {
	var initial, final *Row
	var peak *Peak
	for k, e := range errs {
		row := Row{Metrics: observe.Metrics{Round: k * every, ConsensusErr: e, OptGap: gaps[k]}}
		if initial == nil {
			first := row
			initial = &first
		}
		final = &row
		peak = peakOf(peak, row.Round, e)
	}
	return reduction(initial, final, peak)
}

func ptr(x float64) *float64 { return &x }

// TestReductionFromRoundZeroAndPeak: every ratio is counted from the first
// measured row; a consensus error that first rises (the zero start) has no
// ratio from round 0 and reports its peak, the peak's round and the fall
// from it instead. Expected values are the hand-computed quotients.
func TestReductionFromRoundZeroAndPeak(t *testing.T) {
	tests := []struct {
		name       string
		errs, gaps []float64
		wantErr    *float64
		wantGap    *float64
		wantPeak   *Peak
	}{
		{
			name:    "falls from a spread",
			errs:    []float64{8, 2, 1, 0.5},
			gaps:    []float64{4, 2, 1, 1},
			wantErr: ptr(16), wantGap: ptr(4),
		},
		{
			name:    "zero start rises then falls",
			errs:    []float64{0, 0.1, 0.2, 0.05, 0.002},
			gaps:    []float64{6, 3, 1, 0.5, 0.25},
			wantErr: nil, wantGap: ptr(24),
			wantPeak: &Peak{Round: 20, Value: 0.2, Reduction: ptr(100)},
		},
		{
			name:    "spread, rises above the start, falls",
			errs:    []float64{1, 3, 0.3},
			gaps:    []float64{1, 1, 1},
			wantErr: ptr(1 / 0.3), wantGap: ptr(1),
			wantPeak: &Peak{Round: 10, Value: 3, Reduction: ptr(10)},
		},
		{
			name:    "NaN rows are no peak",
			errs:    []float64{0, math.NaN(), 0.4, 0.1},
			gaps:    []float64{math.NaN(), 1, 1, 1},
			wantErr: nil, wantGap: nil,
			wantPeak: &Peak{Round: 20, Value: 0.4, Reduction: ptr(4)},
		},
	}
	near := func(a, b *float64) bool {
		if a == nil || b == nil {
			return a == nil && b == nil
		}
		return math.Abs(*a-*b) <= 1e-12*math.Abs(*b)
	}
	str := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			red := series(tt.errs, tt.gaps, 10)
			if red.FromRound != 0 || red.ToRound != 10*(len(tt.errs)-1) {
				t.Errorf("from round %d to %d, want 0 to %d", red.FromRound, red.ToRound, 10*(len(tt.errs)-1))
			}
			if !near(red.ConsensusErr, tt.wantErr) {
				t.Errorf("consensus_err reduction %v, want %v", str(red.ConsensusErr), str(tt.wantErr))
			}
			if !near(red.OptGap, tt.wantGap) {
				t.Errorf("opt_gap reduction %v, want %v", str(red.OptGap), str(tt.wantGap))
			}
			got, want := red.ConsensusPeak, tt.wantPeak
			switch {
			case want == nil && got != nil:
				t.Errorf("consensus peak %+v, want none", *got)
			case want != nil && got == nil:
				t.Errorf("no consensus peak, want %+v", *want)
			case want != nil && (got.Round != want.Round || got.Value != want.Value || !near(got.Reduction, want.Reduction)):
				t.Errorf("consensus peak round %d value %v fall %v, want %d %v %v",
					got.Round, got.Value, str(got.Reduction), want.Round, want.Value, str(want.Reduction))
			}
		})
	}
}

// TestReductionJSON: the peak and the counted rounds are in summary.json
// under the names docs/results.md gives.
func TestReductionJSON(t *testing.T) {
	red := series([]float64{0, 0.2, 0.002}, []float64{1, 1, 1}, 100)
	b, err := json.Marshal(red)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"from_round":0,"to_round":200,"opt_gap":1,"consensus_peak":{"round":100,"value":0.2,"reduction":100}}`
	if string(b) != want {
		t.Errorf("reduction JSON\n%s\nwant\n%s", b, want)
	}
}
