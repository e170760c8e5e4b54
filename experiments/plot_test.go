package experiments

import (
	"strings"
	"testing"
)

func TestLogTicksLabels(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0.001, 1000, []string{"0.001", "1", "1000"}},
		{0.7, 20, []string{"1", "2", "5", "10", "20"}},
		{1e-12, 1, []string{"1e-12", "1e-10", "0.01"}},
		{1e4, 3e7, []string{"10000", "100000", "10000000"}},
		{1, 1e12, []string{"1", "100", "1e10", "1e12"}},
	} {
		var got []string
		for _, tk := range (LogTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		all := strings.Join(got, " ")
		for _, w := range tc.want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("[%g, %g]: labels %q lack %q", tc.lo, tc.hi, all, w)
			}
		}
		if strings.Contains(all, "e+") {
			t.Errorf("[%g, %g]: labels %q in exponent form", tc.lo, tc.hi, all)
		}
	}
	for v, want := range map[float64]string{0.30000000000000004: "0.3", 12000: "12000", -0.05: "-0.05", 0: "0"} {
		if got := PlainNumber(v); got != want {
			t.Errorf("PlainNumber(%v) = %q, want %q", v, got, want)
		}
	}
}
