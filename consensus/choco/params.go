package choco

import (
	"math"

	"github.com/consim/consim/consensus/compress"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Step-size schedules of Params.Schedule.
const (
	// ScheduleConstant keeps eta_t = eta.
	ScheduleConstant = "constant"
	// ScheduleSqrt decays the step as eta_t = eta / sqrt(t+1).
	ScheduleSqrt = "sqrt"
)

// Gradient oracles of Params.Gradient.
const (
	// GradientStochastic uses G_i(x_i, xi_i^t), one call of
	// objective.Local.StochGrad per round.
	GradientStochastic = gossip.GradientStochastic
	// GradientFull uses grad f_i(x_i).
	GradientFull = gossip.GradientFull
)

// Defaults of the consensus step gamma and of the SGD step eta.
const (
	DefaultGamma = 0.5
	DefaultStep  = 0.01
)

// DefaultCompression is the default operator: qsgd with
// compress.DefaultBits-bit levels.
var DefaultCompression = compress.Spec{Operator: compress.NameQSGD}

// GossipParams are CHOCO-gossip's parameters, with the keys of a
// scenario's algorithm block (name: choco_gossip): the keys of CHOCO's
// consensus step, which CHOCO-SGD's block has too.
type GossipParams struct {
	// Gamma is the consensus step gamma in (0, 1].
	Gamma float64 `yaml:"gamma" doc:"consensus step gamma in (0, 1]"`
	// Compression selects the operator Q.
	Compression compress.Spec `yaml:"compression"`
	// Mixing is the rule of W(zeta); Metropolis-Hastings when empty.
	Mixing gossip.Mixing `yaml:"mixing"`
	// Seed is the run seed of the samples and of Q's randomness; it comes
	// from the run.
	Seed uint64 `yaml:"-"`
}

// DefaultGossipParams returns gamma = DefaultGamma, DefaultCompression and
// Metropolis-Hastings weights.
func DefaultGossipParams() GossipParams {
	return GossipParams{Gamma: DefaultGamma, Compression: DefaultCompression, Mixing: gossip.Mixing{Rule: graph.MixMetropolis}}
}

// Validate checks every key against its allowed values.
func (p GossipParams) Validate() error {
	var errs registry.FieldErrors
	// CHOCO-gossip has no step or gradient: gossip.Check gets a valid
	// placeholder step and the default gradient, and checks mixing.
	gossip.Check(&errs, 1, "", p.Mixing)
	checkConsensus(&errs, p.Gamma, p.Compression)
	return errs.Err()
}

// Params are CHOCO-SGD's parameters, with the keys of a scenario's
// algorithm block (name: choco_sgd): its step and gradient, and the keys
// of the consensus step.
type Params struct {
	// Step is eta > 0 (eta_0 under ScheduleSqrt).
	Step float64 `yaml:"step" doc:"SGD step eta > 0 (eta_0 under schedule sqrt)"`
	// Schedule is ScheduleConstant (also when empty) or ScheduleSqrt.
	Schedule string `yaml:"schedule" doc:"step eta_t: constant|sqrt (eta, or eta/sqrt(t+1))"`
	// Gradient is GradientStochastic (also when empty) or GradientFull.
	Gradient     string `yaml:"gradient" doc:"gradient oracle: stochastic|full (one minibatch per round, or grad f_i)"`
	GossipParams `yaml:",inline"`
}

// DefaultParams returns eta = DefaultStep (constant), stochastic
// gradients, gamma = DefaultGamma, DefaultCompression and
// Metropolis-Hastings weights.
func DefaultParams() Params {
	return Params{Step: DefaultStep, Schedule: ScheduleConstant, Gradient: GradientStochastic, GossipParams: DefaultGossipParams()}
}

// Validate checks every key against its allowed values.
func (p Params) Validate() error {
	var errs registry.FieldErrors
	gossip.Check(&errs, p.Step, p.Gradient, p.Mixing)
	if p.Schedule != "" {
		errs.OneOf("schedule", p.Schedule, ScheduleConstant, ScheduleSqrt)
	}
	checkConsensus(&errs, p.Gamma, p.Compression)
	return errs.Err()
}

// StepAt returns eta_t, the step of round t.
func (p Params) StepAt(t int) float64 {
	if p.Schedule == ScheduleSqrt {
		return p.Step / math.Sqrt(float64(t+1))
	}
	return p.Step
}

// checkConsensus adds the errors of gamma and compression, the keys of
// CHOCO's consensus step.
func checkConsensus(errs *registry.FieldErrors, gamma float64, c compress.Spec) {
	errs.Check("gamma", &gamma, registry.UnitInterval)
	c.Check(func(key, msg string) { errs.Add("compression."+key, "%s", msg) })
}

// check validates p and the arguments of an agent or reference.
func (p GossipParams) check(id int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return gossip.CheckAgent(p.Mixing, id, g, proc, f, x0)
}
