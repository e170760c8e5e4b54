package slicing

import (
	"math"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	_, md := small(t)
	good := Practical(md, 1, 0.5, 0.1, 0)
	if err := good.Validate(); err != nil {
		t.Fatalf("practical config rejected: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(c *Config)
		part string
	}{
		{"p = 1", func(c *Config) { c.P = 1 }, "p: must be in (0, 1), got 1"},
		{"eps = 0", func(c *Config) { c.Eps = 0 }, "eps: must be a finite number > 0, got 0"},
		{"negative weight", func(c *Config) { c.RegWeight = -1 }, "reg_weight"},
		{"zero tau", func(c *Config) { c.Tau = 0 }, "step"},
		{"beta above 1", func(c *Config) { c.Beta = 2 }, "smoothing"},
		{"zero scale", func(c *Config) { c.Scale = 0 }, "scale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.edit(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.part) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.part)
			}
		})
	}
	// L_f = Scale sigma p (1-p) eps^(p-2): check against a finite
	// difference of the regularizer's gradient at x = 0.
	c := good
	var lmax float64
	for _, fl := range md.Inst.Flows {
		lmax = math.Max(lmax, fl.Rate)
	}
	h := 1e-6
	d1 := c.P * math.Pow(c.Eps, c.P-1)
	d2 := c.P * math.Pow(c.Eps+h, c.P-1)
	if fd := c.Scale * c.RegWeight * (d1 - d2) / h; math.Abs(fd-c.Lf()) > 1e-4*c.Lf() || c.Scale != 1/lmax {
		t.Errorf("L_f %v, finite difference %v, scale %v", c.Lf(), fd, c.Scale)
	}
}

// TestEvaluateDetects moves a feasible binary point off each constraint
// family and checks the violation and binary measures respond.
func TestEvaluateDetects(t *testing.T) {
	_, md := small(t)
	bin, err := BinaryOptimum(md, 100)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Evaluate(md, bin.W)
	if !base.Binary || base.Violation > 1e-9 || base.BinaryFrac != 1 {
		t.Fatalf("binary optimum: %+v", base)
	}
	// Half of a placement moved to the other host: conservation breaks by
	// 0.5, the point is no longer binary.
	w := append([]float64(nil), bin.W...)
	g := md.Group(0, 1)
	for _, c := range md.Groups[g] {
		w[c] = 0.5
	}
	ms, _ := Evaluate(md, w)
	if ms.Binary || math.Abs(ms.Violation-0.5) > 1e-12 {
		t.Errorf("split placement: %+v, want violation 0.5, not binary", ms)
	}
	// A link loaded to twice its capacity.
	w = append([]float64(nil), bin.W...)
	e := md.OutLink[0][0]
	cp := md.Inst.Links[e].Cap
	w[md.U(0, 0, 0, 0)] += 2 * cp / md.Inst.Flows[0].Rate
	ms, _ = Evaluate(md, w)
	if ms.Violation < 1 {
		t.Errorf("overloaded link: violation %v, want >= 1", ms.Violation)
	}
	// Regularizer: 0 at a binary assignment, positive at the centre.
	if p := Regularizer(md, bin.W, 0.5, 0.1); math.Abs(p) > 1e-12 {
		t.Errorf("P_eps at a binary point = %v, want 0", p)
	}
	if p := Regularizer(md, md.Initial(), 0.5, 0.1); !(p > 0) {
		t.Errorf("P_eps at the centre = %v, want > 0", p)
	}
}
