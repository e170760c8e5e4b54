package dgd

import (
	"math"
	"testing"
)

// TestContraction fits synthetic sequences: a geometric decay with a fast
// transient and a float noise floor, where the window rule must skip both.
func TestContraction(t *testing.T) {
	for _, rate := range []float64{0.5, 0.9, 0.99} {
		sq := make([]float64, 0, 20000)
		for k := 0; len(sq) < cap(sq); k++ {
			v := 3*math.Pow(rate, float64(k)) + 40*math.Pow(rate/3, float64(k)) // slow mode + transient
			sq = append(sq, math.Max(v, 1e-30*(1+0.5*math.Sin(float64(k)))))    // noise floor
		}
		fit, err := Contraction(sq, DefaultWindow)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(fit.Rate-rate) > 2e-5*rate { // what is left of the transient
			t.Errorf("rate %v: fitted %.12f on [%d, %d]", rate, fit.Rate, fit.From, fit.To)
		}
		if sq[fit.From] > DefaultWindow.Start*sq[0] || sq[fit.To] < DefaultWindow.Floor*sq[0] || sq[fit.To+1] >= DefaultWindow.Floor*sq[0] {
			t.Errorf("rate %v: window [%d, %d] does not follow the rule", rate, fit.From, fit.To)
		}
	}
	for name, sq := range map[string][]float64{
		"empty":     nil,
		"zero":      {0, 0, 0},
		"too short": {1, 1e-4, 1e-5, 1e-25},
		"flat":      {1, 1, 1, 1},
		"negative":  {1, 1e-4, -1e-5, 1e-6, 1e-7},
	} {
		if _, err := Contraction(sq, DefaultWindow); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Contraction([]float64{1, 0.5}, Window{Start: 1e-20, Floor: 1e-3}); err == nil {
		t.Error("floor above start: no error")
	}
}
