package adpsgd

import (
	"math"

	"github.com/consim/consim/consensus/dgd"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/registry"
)

// Params are AD-PSGD's parameters, the keys of a scenario's algorithm
// block: DGD's step, schedule and gradient, with DGD's names, rules and
// defaults (package dgd), over the agent's own steps. Seed is the run's,
// not a key.
type Params struct {
	Step     float64 `yaml:"step" doc:"step alpha > 0 (gamma of the paper; alpha_0 under schedule sqrt)"`
	Schedule string  `yaml:"schedule" doc:"step alpha_u over the agent's own steps u: constant|sqrt (alpha, or alpha/sqrt(u+1))"`
	Gradient string  `yaml:"gradient" doc:"gradient oracle: stochastic|full (one minibatch per step, or grad f_i)"`
	Seed     uint64  `yaml:"-"`
}

// DefaultParams returns DGD's defaults: alpha = dgd.DefaultStep, a
// constant step and stochastic gradients.
func DefaultParams() Params {
	return Params{Step: dgd.DefaultStep, Schedule: dgd.ScheduleConstant, Gradient: gossip.GradientStochastic}
}

// Validate checks every key against its allowed values.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	errs.Check("step", &p.Step, registry.Positive)
	errs.OneOf("schedule", p.Schedule, dgd.ScheduleConstant, dgd.ScheduleSqrt)
	errs.OneOf("gradient", p.Gradient, gossip.GradientStochastic, gossip.GradientFull)
	return errs.Err()
}

// stepAt returns alpha_u, the step of the agent's u-th step.
func (p *Params) stepAt(u int64) float64 {
	if p.Schedule == dgd.ScheduleSqrt {
		return p.Step / math.Sqrt(float64(u+1))
	}
	return p.Step
}
