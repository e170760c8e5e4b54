package penalty

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-14*math.Max(1, math.Abs(b)) }

func TestParams1Printed(t *testing.T) {
	const lf, lc2 = 0.25, 2.0
	for _, tc := range []struct {
		rule       Rule1
		bigK, k    int
		rho, beta  float64
		gammaTimes float64 // gamma * (lf + rho lc2)
	}{
		{Thm1, 100, 1, 1000, 1, 2.0 / 4}, // rho = 100^{3/2}, beta = 2/2, gamma = 2/(4 L)
		{Thm1, 100, 3, 1000, 2, 4.0 / 4}, // beta = 4/2
		{Thm1, 5000, 4999, math.Pow(5000, 1.5), 2500, 5000.0 / 4},
		{Thm2, 0, 1, math.Pow(5, 1.5), 1, 5.0 / 10}, // rho = 5^{3/2}, beta = 5/5
		{Thm2, 0, 5, 27, 9.0 / 5, 9.0 / 10},
		{Thm2, 0, 96, 1000, 20, 100.0 / 10},
	} {
		st, err := Params1(tc.rule, tc.bigK, tc.k, lf, lc2)
		if err != nil {
			t.Fatal(err)
		}
		if !near(st.Rho, tc.rho) || !near(st.Beta, tc.beta) || !near(st.Gamma, tc.gammaTimes/(lf+tc.rho*lc2)) {
			t.Errorf("%v K=%d k=%d: got %+v, want rho %g beta %g gamma %g", tc.rule, tc.bigK, tc.k, st, tc.rho, tc.beta, tc.gammaTimes/(lf+tc.rho*lc2))
		}
	}
	if _, err := Params1(Thm1, 1, 1, lf, lc2); err == nil {
		t.Error("Theorem 1 with K = 1 accepted")
	}
	if _, err := Params1(Thm2, 10, 0, lf, lc2); err == nil {
		t.Error("k = 0 accepted")
	}
}

func TestK0(t *testing.T) {
	for _, tc := range []struct {
		s, k0, k0i int
	}{
		{1, 1, 1}, {2, 2, 2}, // (4/3) log2 2 = 1.33
		{7, 3, 4},       // log2 7 = 2.81; (4/3) 2.81 = 3.74
		{8, 4, 5},       // exact: log2 8 = 3, (4/3) 3 = 4
		{100, 7, 9},     // 6.64; 8.86
		{32561, 15, 20}, // a9a: log2 = 14.99; 19.99
		{32768, 16, 21}, // 2^15: 15; 20 exactly
	} {
		if got := K0(Thm3ii, tc.s); got != tc.k0 {
			t.Errorf("k0(Thm 3, s=%d) = %d, want %d", tc.s, got, tc.k0)
		}
		if got := K0(Thm4ii, tc.s); got != tc.k0 {
			t.Errorf("k0((34), s=%d) = %d, want %d", tc.s, got, tc.k0)
		}
		if got := K0(Thm4i, tc.s); got != tc.k0i {
			t.Errorf("k0((28), s=%d) = %d, want %d", tc.s, got, tc.k0i)
		}
	}
}

func TestParams2Printed(t *testing.T) {
	const s, bigK, lf, lc2 = 100, 50, 3.0, 7.0
	// s = 100: k0 = 7 for Theorem 3 and (34), 9 for (28).
	for _, tc := range []struct {
		rule     Rule2
		k, T     int
		alpha, p float64
		rho      float64
		gden     float64 // gamma = 1/(gden (lf + rho lc2) alpha)
	}{
		{Thm3i, 1, 1, 0.5, 0.5, math.Pow(100, 2.0/3) * math.Pow(50, 4.0/3), 3},
		{Thm3i, 7, 64, 0.5, 0.5, math.Pow(100, 2.0/3) * math.Pow(50, 4.0/3), 3},
		{Thm3ii, 3, 4, 0.5, 0.5, 10 * 50, 3},
		{Thm3ii, 8, 64, 2.0 / 5, 0.5, 500, 3},   // 2/(8-7+4)
		{Thm3ii, 20, 64, 2.0 / 17, 0.5, 500, 3}, // 2/(20-7+4)
		{Thm4ii, 1, 1, 6.0 / 7, 1.0 / 7, math.Sqrt2, 8},
		{Thm4ii, 7, 64, 6.0 / 7, 1.0 / 7, math.Exp2(3.5), 8},
		{Thm4ii, 8, 64, 6.0 / 8, 1.0 / 7, 3 * 10 * 8.0 / 16, 8},    // 3 sqrt(s)(k-k0+7)/16
		{Thm4ii, 30, 64, 6.0 / 30, 1.0 / 7, 3 * 10 * 30.0 / 16, 8}, // k-k0+7 = 30
		{Thm4i, 2, 2, 6.0 / 7, 1.0 / 7, 2, 8},                      // ceil(2^{3/4}) = 2, rho = 2^{2/2}
		{Thm4i, 3, 3, 6.0 / 7, 1.0 / 7, math.Exp2(1.5), 8},         // ceil(2^{1.5}) = 3
		{Thm4i, 5, 8, 6.0 / 7, 1.0 / 7, math.Exp2(2.5), 8},         // 2^{3} exactly
		{Thm4i, 9, 64, 6.0 / 7, 1.0 / 7, math.Exp2(4.5), 8},        // 2^{6}
		{Thm4i, 12, 64, 6.0 / 10, 1.0 / 7, 3 * math.Pow(100, 2.0/3) * math.Pow(10, 4.0/3) / 32, 8},
		// The Sqrt reading: rho = sqrt(s K) = sqrt(5000); (34) read the
		// same way, 3 sqrt(s (k-k0+7))/16, the same as (34) up to k0.
		{Thm3iiSqrt, 3, 4, 0.5, 0.5, math.Sqrt(5000), 3},
		{Thm3iiSqrt, 20, 64, 2.0 / 17, 0.5, math.Sqrt(5000), 3},
		{Thm4iiSqrt, 7, 64, 6.0 / 7, 1.0 / 7, math.Exp2(3.5), 8},
		{Thm4iiSqrt, 8, 64, 6.0 / 8, 1.0 / 7, 3 * math.Sqrt(100*8) / 16, 8},
		{Thm4iiSqrt, 30, 64, 6.0 / 30, 1.0 / 7, 3 * math.Sqrt(100*30) / 16, 8},
	} {
		st, err := Params2(tc.rule, s, bigK, tc.k, lf, lc2)
		if err != nil {
			t.Fatal(err)
		}
		gamma := 1 / (tc.gden * (lf + tc.rho*lc2) * tc.alpha)
		if st.T != tc.T || !near(st.Alpha, tc.alpha) || !near(st.P, tc.p) || !near(st.Rho, tc.rho) || !near(st.Gamma, gamma) {
			t.Errorf("%v k=%d: got %+v, want T %d alpha %g p %g rho %g gamma %g", tc.rule, tc.k, st, tc.T, tc.alpha, tc.p, tc.rho, gamma)
		}
		if !near(st.ThetaInner(), gamma/tc.alpha*(tc.alpha+tc.p)) || !near(st.ThetaLast(), gamma/tc.alpha) {
			t.Errorf("%v k=%d: theta %g, %g", tc.rule, tc.k, st.ThetaInner(), st.ThetaLast())
		}
	}
	if got := MinK(Thm3ii, 32561); got != 24 { // k0 = 15: max(16, 2(15-3))
		t.Errorf("MinK(Thm 3, a9a) = %d, want 24", got)
	}
	if got := MinK(Thm4ii, 32561); got != 16 { // k0 = 15: max(16, 2(15-7))
		t.Errorf("MinK(Thm 4(ii), a9a) = %d, want 16", got)
	}
	if got := MinK(Thm3iiSqrt, 32561); got != 24 {
		t.Errorf("MinK(Thm 3(ii) sqrt, a9a) = %d, want 24", got)
	}
}

// TestRule2Names: every name parses to its rule and back, the readings
// pair the (ii) rules, and the (i) rules have no reading.
func TestRule2Names(t *testing.T) {
	for _, name := range Rule2Names() {
		r, ok := ParseRule2(name)
		if !ok || r.Name() != name {
			t.Errorf("%q: %v %v, name %q", name, r, ok, r.Name())
		}
	}
	if _, ok := ParseRule2("3ii-printed"); ok {
		t.Error("unknown rule accepted")
	}
	for _, rd := range Readings {
		c, d := rd.Rules()
		if c.Dynamic() || !d.Dynamic() {
			t.Errorf("%v: rules %v, %v", rd, c, d)
		}
		for _, r := range []Rule2{c, d} {
			if got, ok := r.Reading(); !ok || got != rd {
				t.Errorf("%v: reading %v %v, want %v", r, got, ok, rd)
			}
		}
		if back, ok := ParseReading(rd.String()); !ok || back != rd {
			t.Errorf("reading %v does not parse back", rd)
		}
	}
	for _, r := range []Rule2{Thm3i, Thm4i} {
		if _, ok := r.Reading(); ok {
			t.Errorf("%v has a reading", r)
		}
	}
}
