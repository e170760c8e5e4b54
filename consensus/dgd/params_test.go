package dgd

import (
	"math"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/consim/consim/consensus/gossip"
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
			p.Schedule, p.Gradient, p.Mixing = ScheduleSqrt, GradientFull, gossip.Mixing{Rule: graph.MixUniform, Weight: 0.2}
		}, ""},
		{"zero step", func(p *Params) { p.Step = 0 }, "step: must be a finite number > 0, got 0"},
		{"negative step", func(p *Params) { p.Step = -1 }, "step: must be a finite number > 0, got -1"},
		{"NaN step", func(p *Params) { p.Step = math.NaN() }, "step: must be a finite number > 0, got NaN"},
		{"infinite step", func(p *Params) { p.Step = math.Inf(1) }, "step: must be a finite number > 0, got .inf"},
		{"schedule", func(p *Params) { p.Schedule = "cosine" }, `schedule: "cosine" is not one of constant, sqrt`},
		{"gradient", func(p *Params) { p.Gradient = "exact" }, `gradient: "exact" is not one of stochastic, full`},
		{"mixing rule", func(p *Params) { p.Mixing.Rule = "max" }, `mixing.rule: "max" is not one of metropolis, uniform`},
		{"mixing weight", func(p *Params) { p.Mixing = gossip.Mixing{Rule: graph.MixUniform, Weight: 1.5} }, "mixing.weight: rule uniform needs 0 < weight < 1/d_max, got 1.5"},
		{"mixing weight for metropolis", func(p *Params) { p.Mixing.Weight = 0.1 }, "mixing.weight: is only used by rule uniform"},
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
	// weight < 1/d_max is checked against the graph.
	g, _ := graph.Ring(5)
	p := DefaultParams()
	p.Mixing = gossip.Mixing{Rule: graph.MixUniform, Weight: 0.5}
	if _, err := NewAgent(p, 0, g, graph.Bernoulli{G: g}, nil, []float64{1}); err == nil || !strings.Contains(err.Error(), "1/d_max = 1/2") {
		t.Errorf("uniform alpha 0.5 on a ring: error %v", err)
	}
}

// TestParamsYAML decodes an algorithm block over the defaults, the way a
// scenario does, and checks the keys.
func TestParamsYAML(t *testing.T) {
	p := DefaultParams()
	src := "step: 0.05\nschedule: sqrt\nmixing: {rule: uniform, weight: 0.2}\n"
	if err := yaml.Unmarshal([]byte(src), &p); err != nil {
		t.Fatal(err)
	}
	want := Params{Step: 0.05, Schedule: ScheduleSqrt, Gradient: GradientStochastic, Mixing: gossip.Mixing{Rule: graph.MixUniform, Weight: 0.2}}
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
