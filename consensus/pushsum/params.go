package pushsum

import (
	"math"

	"github.com/consim/consim/consensus/registry"
)

// Step-size schedules of Params.Schedule: the step alpha(t) of the update
// that produces x(t), t >= 1.
const (
	// ScheduleSqrt is alpha(t) = alpha / sqrt(t), the schedule of
	// Nedic and Olshevsky's O(ln t / sqrt t) rate for convex f_i.
	ScheduleSqrt = "sqrt"
	// ScheduleInverse is alpha(t) = alpha / t, their schedule for strongly
	// convex f_i (stochastic gradient-push).
	ScheduleInverse = "inverse"
	// ScheduleConstant is alpha(t) = alpha: converges to a neighbourhood
	// of the minimizer of size O(alpha).
	ScheduleConstant = "constant"
)

// DefaultStep is the default step alpha, for objectives scaled so that
// the smoothness constants L_i are about 1.
const DefaultStep = 1

// Params are subgradient-push's parameters, with the keys of a scenario's
// algorithm block. DefaultParams gives the defaults.
type Params struct {
	// Step is the step alpha > 0 of the schedule.
	Step float64 `yaml:"step" doc:"step alpha > 0 of the schedule alpha(t)"`
	// Schedule is ScheduleSqrt (the default), ScheduleInverse or
	// ScheduleConstant.
	Schedule string `yaml:"schedule" doc:"step alpha(t) of round t >= 1: sqrt|inverse|constant (alpha/sqrt(t), alpha/t, alpha)"`
}

// DefaultParams returns alpha = DefaultStep with the schedule
// alpha/sqrt(t).
func DefaultParams() Params { return Params{Step: DefaultStep, Schedule: ScheduleSqrt} }

// Validate checks every key against its allowed values.
func (p Params) Validate() error {
	var errs registry.FieldErrors
	errs.Check("step", &p.Step, registry.Positive)
	errs.OneOf("schedule", p.Schedule, ScheduleSqrt, ScheduleInverse, ScheduleConstant)
	return errs.Err()
}

// StepAt returns alpha(t), the step of the update that produces x(t),
// t >= 1.
func (p Params) StepAt(t int) float64 {
	switch p.Schedule {
	case ScheduleSqrt:
		return p.Step / math.Sqrt(float64(t))
	case ScheduleInverse:
		return p.Step / float64(t)
	}
	return p.Step
}

// AverageParams is the algorithm block of push_sum, which has no keys of
// its own: it averages the initial points of the problem's dimension.
type AverageParams struct{}

// Validate accepts the empty block.
func (AverageParams) Validate() error { return nil }
