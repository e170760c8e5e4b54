package radmm

import (
	"fmt"
	"math"

	"github.com/consim/consim/objective"
)

// Methods of Config.Method.
const (
	// MethodExact solves each active agent's subproblem exactly with the
	// local prox. It needs objective.ProxOf(f_i) to succeed.
	MethodExact = "exact"
	// MethodLinearized takes one stochastic gradient step on the
	// linearized subproblem with proximal weight 1/tau.
	MethodLinearized = "linearized"
)

// DefaultRho is the penalty rho used when Config.Rho is zero. The
// subproblems weigh (1/N) f_i against rho d_i: a rho of the order of the
// curvature of f_i/N converges fastest, so set Rho for the problem at
// hand.
const DefaultRho = 1.0

// Config is the configuration shared by all agents of a run.
type Config struct {
	// Method is MethodExact (also when empty) or MethodLinearized.
	Method string
	// Rho is the penalty rho > 0 of the constraints x_i = z_e, common to
	// all agents (both endpoints of an edge apply the same dual step). 0
	// selects DefaultRho.
	Rho float64
	// Tau is the step tau > 0 of MethodLinearized (the proximal weight is
	// 1/tau). 0 selects tau_i = N / L_i per agent, with L_i =
	// f_i.Smoothness().
	Tau float64
	// Seed is the run seed of the stochastic gradient samples: agent i
	// samples round t through graph.SeedSample(seed, t, i).
	Seed uint64
	// ReportDuals makes Report include the agent's edge duals with their
	// versions (consensus.Report.EdgeDuals), to measure forks and delays
	// under loss.
	ReportDuals bool
}

// normalized returns cfg with the documented defaults filled in (except
// the per-agent tau), or an error naming the first invalid field.
func (cfg Config) normalized() (Config, error) {
	if cfg.Method == "" {
		cfg.Method = MethodExact
	}
	if cfg.Rho == 0 {
		cfg.Rho = DefaultRho
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case cfg.Method != MethodExact && cfg.Method != MethodLinearized:
		return cfg, fmt.Errorf("method %q: must be %q or %q", cfg.Method, MethodExact, MethodLinearized)
	case !finite(cfg.Rho) || cfg.Rho < 0:
		return cfg, fmt.Errorf("rho = %v: must be positive and finite", cfg.Rho)
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

// checkPoint validates an initial point against the objective.
func checkPoint(f objective.Local, x0 []float64) error {
	n := f.Dim()
	if n < 1 {
		return fmt.Errorf("objective dimension %d: must be at least 1", n)
	}
	if len(x0) != n {
		return fmt.Errorf("initial point has length %d, objective dimension is %d", len(x0), n)
	}
	return nil
}
