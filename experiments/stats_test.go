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
