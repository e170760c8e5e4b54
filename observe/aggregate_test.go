package observe

import (
	"errors"
	"math"
	"testing"
)

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func TestSummarize(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		xs   []float64
		want Stats
	}{
		// mean 5, squared deviations 9+1+1+9 = 20, std sqrt(20/3).
		{"four", []float64{2, 4, 6, 8}, Stats{N: 4, Mean: 5, Std: math.Sqrt(20.0 / 3), Min: 2, Max: 8}},
		{"one", []float64{-3}, Stats{N: 1, Mean: -3, Std: 0, Min: -3, Max: -3}},
		{"skips non-finite", []float64{nan, 1, math.Inf(1), 3}, Stats{N: 2, Mean: 2, Std: math.Sqrt2, Min: 1, Max: 3}},
		{"empty", nil, Stats{N: 0, Mean: nan, Std: nan, Min: nan, Max: nan}},
		{"all NaN", []float64{nan}, Stats{N: 0, Mean: nan, Std: nan, Min: nan, Max: nan}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.xs)
			if got.N != tt.want.N || !near(got.Mean, tt.want.Mean, 1e-14) || !near(got.Std, tt.want.Std, 1e-14) ||
				!near(got.Min, tt.want.Min, 0) || !near(got.Max, tt.want.Max, 0) {
				t.Errorf("Summarize(%v) = %+v, want %+v", tt.xs, got, tt.want)
			}
		})
	}
}

func TestRoundsToTolerance(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		errs []float64
		tol  float64
		k    int
		ok   bool
	}{
		{"first below", []float64{1, 0.5, 0.1, 0.01, 0.2}, 0.1, 2, true},
		{"equal counts", []float64{1, 0.1}, 0.1, 1, true},
		{"never", []float64{1, 0.5}, 0.1, 0, false},
		{"NaN never reaches", []float64{nan, 0.05}, 0.1, 1, true},
		{"empty", nil, 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, ok := RoundsToTolerance(tt.errs, tt.tol)
			if k != tt.k || ok != tt.ok {
				t.Errorf("RoundsToTolerance(%v, %v) = %d, %v; want %d, %v", tt.errs, tt.tol, k, ok, tt.k, tt.ok)
			}
		})
	}
}

func TestToleranceFor(t *testing.T) {
	tests := []struct {
		errs     []float64
		abs, rel float64
		want     float64
	}{
		{[]float64{4, 1}, 0.5, 1e-3, 0.5},
		{[]float64{4, 1}, 0, 1e-3, 4e-3},
		{nil, 0, 1e-3, math.NaN()},
		{[]float64{math.NaN()}, 0, 1e-3, math.NaN()},
	}
	for _, tt := range tests {
		if got := ToleranceFor(tt.errs, tt.abs, tt.rel); !near(got, tt.want, 1e-15) {
			t.Errorf("ToleranceFor(%v, %v, %v) = %v, want %v", tt.errs, tt.abs, tt.rel, got, tt.want)
		}
	}
}

func TestDecayWindow(t *testing.T) {
	tests := []struct {
		name       string
		errs       []float64
		tol        float64
		start, end int
	}{
		{"rise then fall", []float64{1, 3, 2, 0.5, 0.01, 0.02}, 0.1, 1, 5},
		{"never reached", []float64{5, 2, 1}, 0.1, 0, 3},
		{"NaN skipped", []float64{math.NaN(), 2, 1}, 0.1, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e := DecayWindow(tt.errs, tt.tol)
			if s != tt.start || e != tt.end {
				t.Errorf("DecayWindow = [%d, %d), want [%d, %d)", s, e, tt.start, tt.end)
			}
		})
	}
}

func TestLinearRateRecoversGeometricSeries(t *testing.T) {
	tests := []struct {
		name string
		r, a float64
	}{
		{"fast", 0.9, 2},
		{"slow", 0.999, -1},
		{"growing", 1.01, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rounds []int
			var errs []float64
			for k := 0; k < 20; k++ {
				tr := 10 + 25*k
				rounds = append(rounds, tr)
				errs = append(errs, math.Exp(tt.a)*math.Pow(tt.r, float64(tr)))
			}
			// Non-positive and NaN values are left out of the fit.
			rounds = append(rounds, 1000, 2000)
			errs = append(errs, 0, math.NaN())
			fit, err := LinearRate(rounds, errs)
			if err != nil {
				t.Fatal(err)
			}
			if !near(fit.Rate, tt.r, 1e-12) || !near(fit.LogIntercept, tt.a, 1e-9) || fit.Points != 20 {
				t.Errorf("fit = %+v, want rate %v, intercept %v over 20 points", fit, tt.r, tt.a)
			}
		})
	}
}

// A noisy series is fitted in least squares: for the points (0, 1),
// (1, e^{-1}), (2, e^{-3}) the log values are 0, -1, -3, whose slope is
// ((-1)(0 - -4/3) + 0 + (1)(-3 - -4/3)) / 2 = (-4/3 - 5/3)/2 = -3/2.
func TestLinearRateLeastSquares(t *testing.T) {
	fit, err := LinearRate([]int{0, 1, 2}, []float64{1, math.Exp(-1), math.Exp(-3)})
	if err != nil {
		t.Fatal(err)
	}
	if !near(fit.Rate, math.Exp(-1.5), 1e-12) || !near(fit.LogIntercept, -4.0/3+1.5, 1e-12) {
		t.Errorf("fit = %+v, want rate e^-1.5, intercept 1/6", fit)
	}
}

func TestLinearRateErrors(t *testing.T) {
	if _, err := LinearRate([]int{1}, []float64{1, 2}); err == nil {
		t.Error("mismatched lengths accepted")
	}
	for _, errs := range [][]float64{{1}, {0, -1}, {1, 2}} {
		rounds := []int{5, 5}[:len(errs)]
		if _, err := LinearRate(rounds, errs); !errors.Is(err, ErrTooFewPoints) {
			t.Errorf("LinearRate(%v, %v) error = %v, want ErrTooFewPoints", rounds, errs, err)
		}
	}
}

func TestSpectralRatio(t *testing.T) {
	// Complete graph on 4 agents: L_1 has lambda_max = 4, and with p = 0.5
	// L_{p^2} = L_1 / 4 has lambda_2 = 1, so s = 1/4.
	if got := SpectralRatio(1, 4); got != 0.25 {
		t.Errorf("SpectralRatio(1, 4) = %v, want 0.25", got)
	}
	if got := SpectralRatio(1, 0); got != 0 {
		t.Errorf("SpectralRatio(1, 0) = %v, want 0", got)
	}
}
