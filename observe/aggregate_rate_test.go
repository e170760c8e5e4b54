package observe

import (
	"math"
	"testing"
)

// synth is 3 r^t + 40 (r/3)^t, floored at about 1e-30 (with a wiggle),
// over n rounds.
func synth(r float64, n int) []float64 {
	m := make([]float64, n)
	for t := range m {
		v := 3*math.Pow(r, float64(t)) + 40*math.Pow(r/3, float64(t))
		m[t] = math.Max(v, 1e-30*(1+0.5*math.Sin(float64(t))))
	}
	return m
}

// TestFitBeforeFloor recovers the slow rate of synthetic curves with a
// transient and a floor, detects where the floor starts, covers the true
// rate by the batch interval, and handles a curve without a floor, a
// curve that never falls and a ceiling.
func TestFitBeforeFloor(t *testing.T) {
	for _, r := range []float64{0.5, 0.9, 0.99} {
		n := int(math.Log(1e-40)/math.Log(r)) + 10
		m := synth(r, n)
		var batches [][]float64
		for k := range 10 {
			batches = append(batches, synth(r*(1+1e-6*float64(k-5)), n))
		}
		f, err := FitBeforeFloor(m, batches, FloorOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cross := int(math.Ceil(math.Log(100*f.FloorLevel/3) / math.Log(r))) // where 3 r^t meets 100 x the floor level
		t.Logf("r %v: %.10f [%.10f, %.10f] on %d..%d, floor from %d (level %.2g), crossing near %d", r, f.Rate, f.Lo, f.Hi, f.From, f.To, f.FloorStart, f.FloorLevel, cross)
		if math.Abs(f.Rate-r) > 2e-5*r || !(f.Lo <= f.Rate && f.Rate <= f.Hi) || f.Hi-f.Lo > 1e-4 {
			t.Errorf("r %v: fitted %.10f in [%.10f, %.10f]", r, f.Rate, f.Lo, f.Hi)
		}
		if !f.Floor || abs(f.FloorStart-cross) > 1 || math.Abs(math.Log(f.FloorLevel/1e-30)) > 0.2 || f.To != f.FloorStart-1 || m[f.From] > 1e-3*m[0] || m[f.From-1] <= 1e-3*m[0] {
			t.Errorf("r %v: floor %v from %d (want near %d), window %d..%d", r, f.Floor, f.FloorStart, cross, f.From, f.To)
		}
	}
	// No floor: the curve decays to its end.
	m := synth(0.9, 300)
	f, err := FitBeforeFloor(m, nil, FloorOptions{})
	if err != nil || f.Floor || f.To != 299 || math.Abs(f.Rate-0.9) > 1e-4 || !math.IsNaN(f.Lo) {
		t.Errorf("no floor: %+v, %v", f, err)
	}
	// A ceiling at 1e-12 closes the window where m falls below 100 x it.
	ceil := make([]float64, len(m))
	for k := range ceil {
		ceil[k] = 1e-12
	}
	f, err = FitBeforeFloor(m, nil, FloorOptions{Ceiling: ceil})
	if err != nil || m[f.To] < 1e-10 || m[f.To+1] > 1e-10 {
		t.Errorf("ceiling: window %d..%d, %v", f.From, f.To, err)
	}
	// A curve that levels off at once has no window, and says so.
	flat := make([]float64, 100)
	for k := range flat {
		flat[k] = 1 + 1e-3*float64(k)
	}
	if f, err := FitBeforeFloor(flat, nil, FloorOptions{}); err == nil || !f.Floor || f.TailRate <= 1 {
		t.Errorf("rising curve: %+v, %v: want an error, a floor and a tail factor above 1", f, err)
	}
	for name, bad := range map[string][]float64{"short": {1, 0.1}, "zero start": make([]float64, 30)} {
		if _, err := FitBeforeFloor(bad, nil, FloorOptions{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func abs(k int) int { return max(k, -k) }
