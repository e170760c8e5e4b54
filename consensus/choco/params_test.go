package choco

import (
	"math"
	"strings"
	"testing"

	"github.com/consim/consim/consensus/compress"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
)

// TestParamsValidate: every bad key is a FieldError at its own key, with
// the allowed values.
func TestParamsValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Params)
		key  string
		want string
	}{
		{"defaults", func(*Params) {}, "", ""},
		{"sqrt full uniform top_k", func(p *Params) {
			p.Schedule, p.Gradient = ScheduleSqrt, GradientFull
			p.Mixing = gossip.Mixing{Rule: graph.MixUniform, Weight: 0.2}
			p.Compression = compress.Spec{Operator: compress.NameTopK, Fraction: 0.05}
		}, "", ""},
		{"zero step", func(p *Params) { p.Step = 0 }, "step", "must be a finite number > 0, got 0"},
		{"NaN step", func(p *Params) { p.Step = math.NaN() }, "step", "got NaN"},
		{"schedule", func(p *Params) { p.Schedule = "cosine" }, "schedule", `"cosine" is not one of constant, sqrt`},
		{"gradient", func(p *Params) { p.Gradient = "exact" }, "gradient", `"exact" is not one of stochastic, full`},
		{"zero gamma", func(p *Params) { p.Gamma = 0 }, "gamma", "must be in (0, 1], got 0"},
		{"large gamma", func(p *Params) { p.Gamma = 1.5 }, "gamma", "must be in (0, 1], got 1.5"},
		{"operator", func(p *Params) { p.Compression.Operator = "top10" }, "compression.operator", `"top10" is not one of top_k, rand_k, qsgd, none`},
		{"bits", func(p *Params) { p.Compression.Bits = 20 }, "compression.bits", "qsgd needs bits in 1..16, got 20"},
		{"fraction for qsgd", func(p *Params) { p.Compression.Fraction = 0.1 }, "compression.fraction", "only applies to top_k and rand_k"},
		{"mixing rule", func(p *Params) { p.Mixing.Rule = "max" }, "mixing.rule", `"max" is not one of metropolis, uniform`},
		{"mixing weight", func(p *Params) { p.Mixing.Weight = 0.1 }, "mixing.weight", "only used by rule uniform"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			tc.edit(&p)
			err := p.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			var fe registry.FieldErrors
			if !asFieldErrors(err, &fe) || len(fe) != 1 || fe[0].Key != tc.key || !strings.Contains(fe[0].Msg, tc.want) {
				t.Fatalf("Validate = %v, want one error at %s containing %q", err, tc.key, tc.want)
			}
			// The same keys of choco_gossip's block say the same.
			if tc.key == "gamma" || strings.HasPrefix(tc.key, "compression.") || strings.HasPrefix(tc.key, "mixing.") {
				g := p.GossipParams
				if err := g.Validate(); err == nil || !strings.Contains(err.Error(), tc.key+": ") {
					t.Errorf("GossipParams.Validate = %v, want an error at %s", err, tc.key)
				}
			}
		})
	}
	if err := DefaultGossipParams().Validate(); err != nil {
		t.Errorf("DefaultGossipParams: %v", err)
	}
}

func asFieldErrors(err error, fe *registry.FieldErrors) bool {
	v, ok := err.(registry.FieldErrors)
	*fe = v
	return ok
}

// TestAgentArguments: an agent refuses a bad id, a dimension that does not
// match its objective, and a uniform weight too large for the graph.
func TestAgentArguments(t *testing.T) {
	g := randomGraph(t, 5, 0.5, 1, 1)
	proc := graph.Bernoulli{G: g, Seed: 1}
	ls := problem(t, "least_squares", 5, 3, 10, 2, 1)
	x0 := []float64{1, 2, 3}
	if _, err := NewAgent(DefaultParams(), 5, g, proc, ls.Locals[0], x0); err == nil || !strings.Contains(err.Error(), "id must be in [0, 5)") {
		t.Errorf("id 5: %v", err)
	}
	if _, err := NewAgent(DefaultParams(), 0, g, proc, ls.Locals[0], x0[:2]); err == nil || !strings.Contains(err.Error(), "objective dimension is 3") {
		t.Errorf("dimension: %v", err)
	}
	p := DefaultGossipParams()
	p.Mixing = gossip.Mixing{Rule: graph.MixUniform, Weight: 0.9}
	if _, err := NewGossipAgent(p, 0, g, proc, x0); err == nil || !strings.Contains(err.Error(), "1/d_max") {
		t.Errorf("uniform weight 0.9: %v", err)
	}
}
