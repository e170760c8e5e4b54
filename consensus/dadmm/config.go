package dadmm

import (
	"fmt"

	"github.com/consim/consim/consensus/edgeadmm"
)

// Methods of Config.Method.
const (
	// MethodExact solves each agent's subproblem exactly with the local
	// prox (Shi et al. 2014). It needs objective.ProxOf(f_i) to succeed.
	MethodExact = edgeadmm.MethodExact
	// MethodLinearized takes one stochastic gradient step on the
	// linearized subproblem with proximal weight 1/tau.
	MethodLinearized = edgeadmm.MethodLinearized
)

// DefaultC is the penalty c used when Config.C is zero. The subproblems
// weigh (1/N) f_i against c: a c of the order of the curvature of f_i/N
// converges fastest, so set C for the problem at hand.
const DefaultC = 1.0

// Config is the configuration shared by all agents of a run.
type Config struct {
	// Method is MethodExact (also when empty) or MethodLinearized.
	Method string
	// C is the penalty c > 0 of the edge terms, common to all agents
	// (sum_i a_i = 0 relies on it). 0 selects DefaultC.
	C float64
	// Gamma >= 0 adds (gamma/2)||x - x_i^k||^2 to MethodExact's
	// subproblem (0, the default, is Shi et al.'s method). It keeps
	// agents without live edges moving, and with N = 1 turns the method
	// into the proximal point method.
	Gamma float64
	// Tau is the step of MethodLinearized, Seed the run seed of its
	// samples (edgeadmm.NewLocal; 0 selects tau_i = N/L_i).
	Tau  float64
	Seed uint64
}

// normalized returns cfg with the documented defaults filled in (except
// the per-agent tau), or an error naming the first invalid field.
func (cfg Config) normalized() (Config, error) {
	if err := edgeadmm.Normalize(&cfg.Method, &cfg.C, DefaultC, "c", cfg.Tau); err != nil {
		return cfg, err
	}
	if !edgeadmm.Finite(cfg.Gamma) || cfg.Gamma < 0 {
		return cfg, fmt.Errorf("gamma = %v: must be non-negative and finite", cfg.Gamma)
	}
	return cfg, nil
}
