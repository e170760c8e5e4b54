package experiments

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want Stats
	}{
		{[]float64{10, 2, 4, 1, 3}, Stats{Count: 5, Mean: 4, Median: 3, Q1: 1.5, Q3: 7, Min: 1, Max: 10}},
		{[]float64{4, 1, 3, 2}, Stats{Count: 4, Mean: 2.5, Median: 2.5, Q1: 1.5, Q3: 3.5, Min: 1, Max: 4}},
		{[]float64{7}, Stats{Count: 1, Mean: 7, Median: 7, Q1: 7, Q3: 7, Min: 7, Max: 7}},
	} {
		if got := Summarize(tc.in); got != tc.want {
			t.Errorf("Summarize(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if s := Summarize(nil); s.Count != 0 || !math.IsNaN(s.Median) {
		t.Errorf("Summarize(nil) = %+v", s)
	}
}

func TestMeanStd(t *testing.T) {
	s := MeanStd([]float64{1, 2, 3, 6})
	if s.Mean != 3 || math.Abs(s.Std-math.Sqrt(14.0/3)) > 1e-15 {
		t.Fatalf("MeanStd %+v", s)
	}
	if s := MeanStd([]float64{5}); s.Mean != 5 || s.Std != 0 {
		t.Fatalf("single %+v", s)
	}
}

// TestMedianCI checks the order statistics and coverages of the binomial
// table: n = 10 gives [x_(2), x_(9)] at 1 - 2 (1 + 10)/1024 = 0.9785, n =
// 20 gives [x_(6), x_(15)] at 0.9586, and n = 5 cannot reach 0.95.
func TestMedianCI(t *testing.T) {
	ten := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	ci := MedianCI(ten, 0.95)
	if ci.J != 2 || ci.K != 9 || ci.Lo != 2 || ci.Hi != 9 || math.Abs(ci.Coverage-(1-22.0/1024)) > 1e-12 {
		t.Errorf("n = 10: %+v", ci)
	}
	twenty := make([]float64, 20)
	for i := range twenty {
		twenty[i] = float64(i + 1)
	}
	if ci := MedianCI(twenty, 0.95); ci.J != 6 || ci.K != 15 || math.Abs(ci.Coverage-0.958610) > 1e-6 {
		t.Errorf("n = 20: %+v", ci)
	}
	if ci := MedianCI([]float64{3, 1, 2, 5, 4}, 0.95); ci.J != 1 || ci.Lo != 1 || ci.Hi != 5 || math.Abs(ci.Coverage-(1-2.0/32)) > 1e-12 {
		t.Errorf("n = 5: %+v", ci)
	}
	if ci := MedianCI(nil, 0.95); !math.IsNaN(ci.Lo) {
		t.Errorf("empty: %+v", ci)
	}
}

// TestPairedRatioCI checks the ratio of means, that the interval holds
// it, that the same seed gives the same interval, and that a constant
// ratio gives a degenerate interval.
func TestPairedRatioCI(t *testing.T) {
	a := []float64{40, 38, 45, 50, 39, 41, 60, 42, 44, 43}
	b := []float64{30, 28, 31, 29, 30, 32, 28, 29, 30, 31}
	r := PairedRatioCI(a, b, 0.95, 4000, 1)
	if math.Abs(r.Ratio-442.0/298) > 1e-12 || !(r.Lo < r.Ratio && r.Ratio < r.Hi) || r.Lo < 1.3 || r.Hi > 1.7 {
		t.Errorf("ratio %+v", r)
	}
	if r2 := PairedRatioCI(a, b, 0.95, 4000, 1); r2 != r {
		t.Errorf("not reproducible: %+v vs %+v", r2, r)
	}
	c := PairedRatioCI([]float64{2, 4, 6}, []float64{1, 2, 3}, 0.95, 500, 2)
	if c.Ratio != 2 || c.Lo != 2 || c.Hi != 2 {
		t.Errorf("constant ratio %+v", c)
	}
}
