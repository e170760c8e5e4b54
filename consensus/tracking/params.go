package tracking

import (
	"fmt"

	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// The gradient oracles of Params.Gradient (see package gossip):
// GradientFull is DIGing as published.
const (
	GradientFull       = gossip.GradientFull
	GradientStochastic = gossip.GradientStochastic
)

// DefaultStep is the default step alpha, for objectives scaled so that
// the smoothness constants L_i are about 1. Gradient tracking needs a
// smaller step than DGD: its bound scales with the spectral gap of the
// mixing.
const DefaultStep = 0.01

// Params are the parameters of gradient tracking, with the keys of a
// scenario's algorithm block (each key's doc tag says what it is; empty
// words take the defaults: full gradients, Metropolis-Hastings weights).
// Seed is the run's, not a key.
type Params struct {
	Step     float64       `yaml:"step" doc:"constant step alpha > 0"`
	Gradient string        `yaml:"gradient" doc:"gradient oracle: stochastic|full (one minibatch per round, or grad f_i)"`
	Mixing   gossip.Mixing `yaml:"mixing"`
	Seed     uint64        `yaml:"-"`
}

// DefaultParams returns alpha = DefaultStep, full gradients and
// Metropolis-Hastings weights.
func DefaultParams() Params {
	return Params{Step: DefaultStep, Gradient: GradientFull, Mixing: gossip.Mixing{Rule: graph.MixMetropolis}}
}

// Validate checks every key against its allowed values.
func (p Params) Validate() error {
	var errs registry.FieldErrors
	gossip.Check(&errs, p.Step, p.Gradient, p.Mixing)
	return errs.Err()
}

// normalized returns p with the documented defaults of its empty keys.
func (p Params) normalized() Params {
	if p.Gradient == "" {
		p.Gradient = GradientFull
	}
	if p.Mixing.Rule == "" {
		p.Mixing.Rule = graph.MixMetropolis
	}
	return p
}

// check validates p and the arguments of NewAgent, and returns p with its
// defaults filled in.
func (p Params) check(id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (Params, error) {
	p = p.normalized()
	if f == nil {
		return p, fmt.Errorf("an objective is required")
	}
	if err := p.Validate(); err != nil {
		return p, err
	}
	return p, gossip.CheckAgent(p.Mixing, id, g, proc, f, x0)
}
