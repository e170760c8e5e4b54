package dadmm

import (
	"fmt"
	"math"

	"github.com/consim/consim/objective"
)

// Methods of Config.Method.
const (
	// MethodExact solves each agent's subproblem exactly with the local
	// prox (Shi et al. 2014). It needs objective.ProxOf(f_i) to succeed.
	MethodExact = "exact"
	// MethodLinearized takes one stochastic gradient step on the
	// linearized subproblem with proximal weight 1/tau.
	MethodLinearized = "linearized"
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
	// Tau is the step tau > 0 of MethodLinearized (the proximal weight is
	// 1/tau). 0 selects tau_i = N / L_i per agent, with L_i =
	// f_i.Smoothness(), so that the proximal weight 1/tau_i = L_i/N
	// dominates the curvature of the linearized term (1/N) f_i.
	Tau float64
	// Seed is the run seed of the stochastic gradient samples: agent i
	// samples round t from PCG(Hash(Seed, t, DrawSample, i, 0),
	// Hash(Seed, t, DrawSample, i, 1)).
	Seed uint64
}

// normalized returns cfg with the documented defaults filled in (except
// the per-agent tau), or an error naming the first invalid field.
func (cfg Config) normalized() (Config, error) {
	if cfg.Method == "" {
		cfg.Method = MethodExact
	}
	if cfg.C == 0 {
		cfg.C = DefaultC
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case cfg.Method != MethodExact && cfg.Method != MethodLinearized:
		return cfg, fmt.Errorf("method %q: must be %q or %q", cfg.Method, MethodExact, MethodLinearized)
	case !finite(cfg.C) || cfg.C < 0:
		return cfg, fmt.Errorf("c = %v: must be positive and finite", cfg.C)
	case !finite(cfg.Gamma) || cfg.Gamma < 0:
		return cfg, fmt.Errorf("gamma = %v: must be non-negative and finite", cfg.Gamma)
	case !finite(cfg.Tau) || cfg.Tau < 0:
		return cfg, fmt.Errorf("tau = %v: must be positive and finite (0 for the default)", cfg.Tau)
	}
	return cfg, nil
}

// tauFor returns tau_i of agent objective f among N agents: cfg.Tau, or
// N / L_i by default.
func (cfg Config) tauFor(f objective.Local, N int) (float64, error) {
	if cfg.Tau > 0 {
		return cfg.Tau, nil
	}
	l := f.Smoothness()
	if !(l > 0) || math.IsInf(l, 0) {
		return 0, fmt.Errorf("default tau = N/L_i needs a positive finite L_i, objective has %v", l)
	}
	return float64(N) / l, nil
}
