package dgd

import (
	"fmt"
	"math"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Step-size schedules of Params.Schedule.
const (
	// ScheduleConstant keeps alpha_t = alpha.
	ScheduleConstant = "constant"
	// ScheduleSqrt decays the step as alpha_t = alpha / sqrt(t+1).
	ScheduleSqrt = "sqrt"
)

// Gradient oracles of Params.Gradient.
const (
	// GradientStochastic uses G_i(x_i, xi_i^t), one call of
	// objective.Local.StochGrad per round.
	GradientStochastic = "stochastic"
	// GradientFull uses grad f_i(x_i).
	GradientFull = "full"
)

// DefaultAlpha is the default step alpha, for objectives scaled so that
// the smoothness constants L_i are about 1.
const DefaultAlpha = 0.01

// Params are DGD's parameters, with the keys of a scenario's algorithm
// block. DefaultParams gives the defaults.
type Params struct {
	// Alpha is the step alpha > 0 (alpha_0 under ScheduleSqrt). Default
	// DefaultAlpha.
	Alpha float64 `yaml:"alpha" doc:"step alpha > 0 (alpha_0 under schedule sqrt)"`
	// Schedule is ScheduleConstant (the default, also when empty) or
	// ScheduleSqrt.
	Schedule string `yaml:"schedule" doc:"step alpha_t: constant (alpha) or sqrt (alpha/sqrt(t+1))"`
	// Gradient is GradientStochastic (the default, also when empty) or
	// GradientFull.
	Gradient string `yaml:"gradient" doc:"gradient oracle: stochastic (one minibatch per round) or full"`
	// Weights is the mixing rule of W(zeta). Default Metropolis-Hastings.
	Weights graph.Mixing `yaml:"weights"`
	// Seed is the run seed of the stochastic samples; it comes from the
	// run, not from the algorithm block.
	Seed uint64 `yaml:"-"`
}

// DefaultParams returns alpha = DefaultAlpha, a constant step, stochastic
// gradients and Metropolis-Hastings weights.
func DefaultParams() Params {
	return Params{Alpha: DefaultAlpha, Schedule: ScheduleConstant, Gradient: GradientStochastic,
		Weights: graph.Mixing{Rule: graph.MixMetropolis}}
}

// Validate checks every key against its allowed values.
func (p Params) Validate() error {
	switch {
	case !(p.Alpha > 0) || math.IsInf(p.Alpha, 1):
		return fmt.Errorf("alpha = %v: must be positive and finite", p.Alpha)
	case p.Schedule != "" && p.Schedule != ScheduleConstant && p.Schedule != ScheduleSqrt:
		return fmt.Errorf("schedule %q: must be %q or %q", p.Schedule, ScheduleConstant, ScheduleSqrt)
	case p.Gradient != "" && p.Gradient != GradientStochastic && p.Gradient != GradientFull:
		return fmt.Errorf("gradient %q: must be %q or %q", p.Gradient, GradientStochastic, GradientFull)
	}
	if err := p.Weights.Validate(); err != nil {
		return fmt.Errorf("weights: %w", err)
	}
	return nil
}

// StepAt returns alpha_t, the step of round t.
func (p Params) StepAt(t int) float64 {
	if p.Schedule == ScheduleSqrt {
		return p.Alpha / math.Sqrt(float64(t+1))
	}
	return p.Alpha
}

// edgeDraw is the draw index of the round's edges zeta_t.
const edgeDraw = int(graph.StreamDual)

// check validates p and the arguments of NewAgent.
func (p Params) check(id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) error {
	switch {
	case g == nil || proc == nil:
		return fmt.Errorf("graph and edge process are required")
	case id < 0 || id >= g.N:
		return fmt.Errorf("id must be in [0, %d)", g.N)
	case len(x0) == 0:
		return fmt.Errorf("empty initial point")
	case f != nil && f.Dim() != len(x0):
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
