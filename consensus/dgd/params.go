package dgd

import (
	"math"

	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/registry"
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

// The gradient oracles of Params.Gradient (see package gossip).
const (
	GradientStochastic = gossip.GradientStochastic
	GradientFull       = gossip.GradientFull
)

// DefaultStep is the default step alpha, for objectives scaled so that
// the smoothness constants L_i are about 1.
const DefaultStep = 0.01

// Params are DGD's parameters, with the keys of a scenario's algorithm
// block (each key's doc tag says what it is; empty words take the
// defaults: a constant step, stochastic gradients, Metropolis-Hastings
// weights). Seed is the run's, not a key.
type Params struct {
	Step     float64       `yaml:"step" doc:"step alpha > 0 (alpha_0 under schedule sqrt)"`
	Schedule string        `yaml:"schedule" doc:"step alpha_t: constant|sqrt (alpha, or alpha/sqrt(t+1))"`
	Gradient string        `yaml:"gradient" doc:"gradient oracle: stochastic|full (one minibatch per round, or grad f_i)"`
	Mixing   gossip.Mixing `yaml:"mixing"`
	Seed     uint64        `yaml:"-"`
}

// DefaultParams returns alpha = DefaultStep, a constant step, stochastic
// gradients and Metropolis-Hastings weights.
func DefaultParams() Params {
	return Params{Step: DefaultStep, Schedule: ScheduleConstant, Gradient: GradientStochastic,
		Mixing: gossip.Mixing{Rule: graph.MixMetropolis}}
}

// Validate checks every key against its allowed values.
func (p Params) Validate() error {
	var errs registry.FieldErrors
	gossip.Check(&errs, p.Step, p.Gradient, p.Mixing)
	if p.Schedule != "" {
		errs.OneOf("schedule", p.Schedule, ScheduleConstant, ScheduleSqrt)
	}
	return errs.Err()
}

// normalized returns p with the documented defaults of its empty keys.
func (p Params) normalized() Params {
	if p.Schedule == "" {
		p.Schedule = ScheduleConstant
	}
	if p.Gradient == "" {
		p.Gradient = GradientStochastic
	}
	if p.Mixing.Rule == "" {
		p.Mixing.Rule = graph.MixMetropolis
	}
	return p
}

// StepAt returns alpha_t, the step of round t.
func (p Params) StepAt(t int) float64 {
	if p.Schedule == ScheduleSqrt {
		return p.Step / math.Sqrt(float64(t+1))
	}
	return p.Step
}

// check validates p and the arguments of NewAgent, and returns p with its
// defaults filled in.
func (p Params) check(id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (Params, error) {
	p = p.normalized()
	if err := p.Validate(); err != nil {
		return p, err
	}
	return p, gossip.CheckAgent(p.Mixing, id, g, proc, f, x0)
}
