package dataset

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestSignLabels(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want []float64 // nil: an error containing err
		err  string
	}{
		{"plus minus", []float64{1, -1, -1, 1}, []float64{1, -1, -1, 1}, ""},
		{"zero one", []float64{0, 1, 1, 0}, []float64{-1, 1, 1, -1}, ""},
		{"all ones", []float64{1, 1}, []float64{1, 1}, ""},
		{"all zeros", []float64{0, 0}, []float64{-1, -1}, ""},
		{"all minus ones", []float64{-1}, []float64{-1}, ""},
		{"negative zero", []float64{math.Copysign(0, -1), 1}, []float64{-1, 1}, ""},
		{"three classes", []float64{0, 1, 2}, nil, "row 2: label 2 is not a binary class label; want -1/+1 or 0/1"},
		{"fraction", []float64{0.5}, nil, "row 0: label 0.5 is not a binary class label"},
		{"mixed conventions", []float64{-1, 1, 0}, nil, "row 2: label 0 mixes the label conventions {-1, +1} and {0, 1}"},
		{"mixed conventions the other way", []float64{0, 1, -1}, nil, "row 2: label -1 mixes the label conventions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.in...)
			got, err := SignLabels(in)
			if !reflect.DeepEqual(in, tc.in) {
				t.Errorf("input modified: %v", in)
			}
			if tc.want == nil {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SignLabels(%v) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
	d := &Dataset{X: []float64{1, 2}, Y: []float64{3, 1}, Dim: 1, Source: "f.csv"}
	if err := d.SignLabels(); err == nil || !strings.HasPrefix(err.Error(), "f.csv: dataset: row 0: label 3") {
		t.Errorf("Dataset.SignLabels: error %v, want it to name f.csv and row 0", err)
	}
}
