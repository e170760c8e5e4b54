package dgd

import (
	"math"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/graph"
)

func TestParamsValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Params)
		want string // substring of the error, "" for none
	}{
		{"defaults", func(*Params) {}, ""},
		{"empty schedule and gradient", func(p *Params) { p.Schedule, p.Gradient = "", "" }, ""},
		{"sqrt full uniform", func(p *Params) {
			p.Schedule, p.Gradient, p.Weights = ScheduleSqrt, GradientFull, graph.Mixing{Rule: graph.MixUniform, Alpha: 0.2}
		}, ""},
		{"zero alpha", func(p *Params) { p.Alpha = 0 }, "alpha = 0: must be positive and finite"},
		{"negative alpha", func(p *Params) { p.Alpha = -1 }, "alpha = -1: must be positive"},
		{"NaN alpha", func(p *Params) { p.Alpha = math.NaN() }, "alpha = NaN"},
		{"infinite alpha", func(p *Params) { p.Alpha = math.Inf(1) }, "alpha = +Inf"},
		{"schedule", func(p *Params) { p.Schedule = "cosine" }, `schedule "cosine": must be "constant" or "sqrt"`},
		{"gradient", func(p *Params) { p.Gradient = "exact" }, `gradient "exact": must be "stochastic" or "full"`},
		{"weights rule", func(p *Params) { p.Weights.Rule = "max" }, `weights: mixing: rule "max"`},
		{"weights alpha", func(p *Params) { p.Weights = graph.Mixing{Rule: graph.MixUniform, Alpha: 1.5} }, "weights: mixing: alpha = 1.5"},
	}
	for _, tc := range tests {
		p := DefaultParams()
		tc.edit(&p)
		err := p.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// alpha < 1/d_max is checked against the graph.
	g, _ := graph.Ring(5)
	p := DefaultParams()
	p.Weights = graph.Mixing{Rule: graph.MixUniform, Alpha: 0.5}
	if _, err := NewAgent(p, 0, g, graph.Bernoulli{G: g}, nil, []float64{1}); err == nil || !strings.Contains(err.Error(), "1/d_max = 1/2") {
		t.Errorf("uniform alpha 0.5 on a ring: error %v", err)
	}
}

// TestParamsYAML decodes an algorithm block over the defaults, the way a
// scenario does, and checks the keys.
func TestParamsYAML(t *testing.T) {
	p := DefaultParams()
	src := "alpha: 0.05\nschedule: sqrt\nweights: {rule: uniform, alpha: 0.2}\n"
	if err := yaml.Unmarshal([]byte(src), &p); err != nil {
		t.Fatal(err)
	}
	want := Params{Alpha: 0.05, Schedule: ScheduleSqrt, Gradient: GradientStochastic, Weights: graph.Mixing{Rule: graph.MixUniform, Alpha: 0.2}}
	if p != want {
		t.Errorf("decoded %+v, want %+v", p, want)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
	if got, want := p.StepAt(3), 0.05/2; got != want {
		t.Errorf("sqrt step of round 3: %v, want %v", got, want)
	}
}
