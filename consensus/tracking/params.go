package tracking

import (
	"fmt"
	"math"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Gradient oracles of Params.Gradient.
const (
	// GradientFull uses grad f_i(x_i): DIGing as published.
	GradientFull = "full"
	// GradientStochastic uses G_i(x_i, xi_i^t), one call of
	// objective.Local.StochGrad per round.
	GradientStochastic = "stochastic"
)

// DefaultAlpha is the default step alpha, for objectives scaled so that
// the smoothness constants L_i are about 1. Gradient tracking needs a
// smaller step than DGD: its bound scales with the spectral gap of the
// mixing.
const DefaultAlpha = 0.01

// Params are the parameters of gradient tracking, with the keys of a
// scenario's algorithm block. DefaultParams gives the defaults.
type Params struct {
	// Alpha is the constant step alpha > 0. Default DefaultAlpha.
	Alpha float64 `yaml:"alpha" doc:"step alpha > 0"`
	// Gradient is GradientFull (the default, also when empty) or
	// GradientStochastic.
	Gradient string `yaml:"gradient" doc:"gradient oracle: full or stochastic (one minibatch per round)"`
	// Weights is the mixing rule of W(zeta). Default Metropolis-Hastings.
	Weights graph.Mixing `yaml:"weights"`
	// Seed is the run seed of the stochastic samples; it comes from the
	// run, not from the algorithm block.
	Seed uint64 `yaml:"-"`
}

// DefaultParams returns alpha = DefaultAlpha, full gradients and
// Metropolis-Hastings weights.
func DefaultParams() Params {
	return Params{Alpha: DefaultAlpha, Gradient: GradientFull, Weights: graph.Mixing{Rule: graph.MixMetropolis}}
}

// Validate checks every key against its allowed values.
func (p Params) Validate() error {
	switch {
	case !(p.Alpha > 0) || math.IsInf(p.Alpha, 1):
		return fmt.Errorf("alpha = %v: must be positive and finite", p.Alpha)
	case p.Gradient != "" && p.Gradient != GradientFull && p.Gradient != GradientStochastic:
		return fmt.Errorf("gradient %q: must be %q or %q", p.Gradient, GradientFull, GradientStochastic)
	}
	if err := p.Weights.Validate(); err != nil {
		return fmt.Errorf("weights: %w", err)
	}
	return nil
}

// edgeDraw is the draw index of the round's edges zeta_t.
const edgeDraw = int(graph.StreamDual)

// check validates p and the arguments of NewAgent.
func (p Params) check(id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) error {
	switch {
	case g == nil || proc == nil || f == nil:
		return fmt.Errorf("graph, edge process and objective are required")
	case id < 0 || id >= g.N:
		return fmt.Errorf("id must be in [0, %d)", g.N)
	case len(x0) == 0 || f.Dim() != len(x0):
		return fmt.Errorf("initial point has length %d, objective dimension is %d", len(x0), f.Dim())
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if err := p.Weights.ValidateFor(g); err != nil {
		return fmt.Errorf("weights: %w", err)
	}
	return nil
}
