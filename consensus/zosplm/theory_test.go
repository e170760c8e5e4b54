package zosplm

import (
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/problems/qcqp"
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

// TestPresetTheory: the theory preset resolves to TheorySPLMParams with
// the instance's L_f = ||Q||_2 (beta = 1/48 < 1/24), the keys override
// it, and an unknown preset is an error at the key preset.
func TestPresetTheory(t *testing.T) {
	q, err := qcqp.New(12, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultParams()
	p.Preset = PresetTheory
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := p.params(q)
	if err != nil {
		t.Fatal(err)
	}
	want := TheorySPLMParams(q.LipF())
	if got.C != want.C || got.P != want.P || got.Beta != want.Beta || math.Abs(got.Beta-1.0/48) > 1e-15 || got.Alpha != want.Alpha || got.B != want.B {
		t.Errorf("theory preset: %+v, want %+v", got, want)
	}
	if want.P != 2*q.LipF() || math.Abs(want.C*3*q.LipF()-1) > 1e-15 {
		t.Errorf("TheorySPLMParams(%g) = %+v", q.LipF(), want)
	}
	beta := 0.01
	p.Smoothing = &beta
	if got, _ := p.params(q); got.Beta != beta {
		t.Errorf("smoothing override ignored: beta = %g", got.Beta)
	}
	p.Preset = "fast"
	err = p.Validate()
	if err == nil || !strings.Contains(err.Error(), "preset") {
		t.Errorf("unknown preset: %v", err)
	}
}
