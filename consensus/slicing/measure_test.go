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
