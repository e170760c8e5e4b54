package adpsgd

import (
	"math"

	"github.com/consim/consim/consensus/dgd"
	"github.com/consim/consim/consensus/registry"
)

// Params are AD-PSGD's parameters, the keys of a scenario's algorithm
// block. They are named and ruled as DGD's (package dgd).
type Params struct {
	// Alpha is the step alpha > 0 (gamma in the paper; alpha_0 under
	// schedule sqrt). Default dgd.DefaultAlpha.
	Alpha float64 `yaml:"alpha" doc:"step alpha > 0 (alpha_0 under schedule sqrt)"`
	// Schedule is dgd.ScheduleConstant or dgd.ScheduleSqrt, over the
	// agent's own steps.
	Schedule string `yaml:"schedule" doc:"step alpha_u over the agent's own steps u: constant or sqrt (alpha/sqrt(u+1))"`
	// Gradient is dgd.GradientStochastic or dgd.GradientFull.
	Gradient string `yaml:"gradient" doc:"gradient oracle: stochastic (one minibatch per step) or full"`
	// Seed is the run seed of the samples; it comes from the run.
	Seed uint64 `yaml:"-"`
}

// DefaultParams returns DGD's defaults: alpha = dgd.DefaultAlpha, a
// constant step and stochastic gradients.
func DefaultParams() Params {
	return Params{Alpha: dgd.DefaultAlpha, Schedule: dgd.ScheduleConstant, Gradient: dgd.GradientStochastic}
}

// Validate checks every key against its allowed values.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if !(p.Alpha > 0) || math.IsInf(p.Alpha, 0) {
		errs.Add("alpha", "must be a finite number > 0, got %s", registry.Num(p.Alpha))
	}
	errs.OneOf("schedule", p.Schedule, dgd.ScheduleConstant, dgd.ScheduleSqrt)
	errs.OneOf("gradient", p.Gradient, dgd.GradientStochastic, dgd.GradientFull)
	return errs.Err()
}

// stepAt returns alpha_u, the step of the agent's u-th step.
func (p *Params) stepAt(u int64) float64 {
	if p.Schedule == dgd.ScheduleSqrt {
		return p.Alpha / math.Sqrt(float64(u+1))
	}
	return p.Alpha
}
