package zosplm

import (
	"math"
	"testing"
)

// TestTheory checks Lemma 8's bounds on numbers worked by hand: L_f = 1,
// p = 2 (mu_L = 1, kappa_1 = 2, beta <= 1/48), K_h = 2 (kappa_2 = 2), L_L
// = 10, c = 0.5 (kappa_3 = 3): c <= min{1/16, 2/(32*2*4), 1/20} = 1/128,
// alpha <= min{3/(4*2*(9-2)), 1/(8*0.5*4*9)} = 1/144.
func TestTheory(t *testing.T) {
	th, err := NewTheory(1, 2, 2, 10, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := Theory{MuL: 1, Kappa1: 2, Kappa2: 2, Kappa3: 3, C: 1.0 / 128, Alpha: 1.0 / 144, Beta: 1.0 / 48}
	for _, f := range []struct {
		name      string
		got, want float64
	}{{"mu_L", th.MuL, want.MuL}, {"kappa_1", th.Kappa1, want.Kappa1}, {"kappa_2", th.Kappa2, want.Kappa2},
		{"kappa_3", th.Kappa3, want.Kappa3}, {"c", th.C, want.C}, {"alpha", th.Alpha, want.Alpha}, {"beta", th.Beta, want.Beta}} {
		if math.Abs(f.got-f.want) > 1e-15 {
			t.Errorf("%s = %g, want %g", f.name, f.got, f.want)
		}
	}
	if _, err := NewTheory(2, 2, 1, 1, 1); err == nil {
		t.Error("p = L_f accepted")
	}
	if b := BetaBound(3, 2); b != 0 {
		t.Errorf("BetaBound with p < L_f = %g, want 0", b)
	}
	if b := BetaBound(0, 5); b != 1.0/24 {
		t.Errorf("BetaBound(0, p) = %g, want 1/24", b)
	}
}
