package alm

import (
	"fmt"
	"math"
)

// Dual safeguard modes of Config.Safeguard.
const (
	// SafeguardGlobal is the paper's rule: y_{t+1} = 0 if ||y_{t+1}||_2 >= M_y
	// over all edges. Agents learn ||y||^2 by an all-reduce of their DualSq
	// shares, in a second phase of the rounds on which it is checked.
	SafeguardGlobal = "global"
	// SafeguardEdge resets y_ij = 0 when ||y_ij||_2 >= M_y, edge by edge.
	// It is local (no reduce) but not covered by the paper's theory.
	SafeguardEdge = "edge"
	// SafeguardNone never resets y.
	SafeguardNone = "none"
)

// Config is the configuration shared by all agents of a run.
type Config struct {
	Steps

	// Safeguard is SafeguardGlobal (also when empty), SafeguardEdge or
	// SafeguardNone.
	Safeguard string
	// SafeguardEvery checks the global safeguard on rounds t with
	// t % SafeguardEvery == 0 only. 1 (also when 0) is the paper's rule;
	// larger values are an approximation that saves the reduce phase on
	// the other rounds.
	SafeguardEvery int
	// SameDraw uses one draw for zeta1 and zeta2 (zeta2 = zeta1). The
	// penalty term then estimates rho sum_j p_ij (x_i - x_j) instead of
	// rho sum_j p_ij^2 (x_i - x_j): a different, still consensus-preserving
	// penalty, not the analysed algorithm. Off by default.
	SameDraw bool
	// Seed is the run seed of the stochastic gradient samples xi: agent i
	// samples round t from PCG(Hash(Seed, t, DrawSample, i, 0),
	// Hash(Seed, t, DrawSample, i, 1)).
	Seed uint64
	// Rounds is the horizon T; rounds t >= T are rejected. 0 means no limit.
	Rounds int
	// ReportDuals adds the agent's edge duals to its reports
	// (consensus.Report.EdgeDuals): the owner's value and the reader's
	// copy, each with its version, to measure forks and delays under loss.
	ReportDuals bool
	// Scale is sigma > 0: the agents minimise sigma f, which has the
	// minimizers of f, so that a preset sized for L_f ~ 1 fits any f (the
	// implementation notes: "scale f so L_f ~ 1"). Duals, KKT residuals and
	// dual norms are reported for f itself (y / sigma). 0 means 1.
	Scale float64
}

// normalized returns cfg with the documented defaults filled in, or an
// error naming the first invalid field.
func (cfg Config) normalized() (Config, error) {
	if cfg.Safeguard == "" {
		cfg.Safeguard = SafeguardGlobal
	}
	if cfg.SafeguardEvery == 0 {
		cfg.SafeguardEvery = 1
	}
	if cfg.TauSchedule == "" {
		cfg.TauSchedule = TauConstant
	}
	if cfg.Scale == 0 {
		cfg.Scale = 1
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(cfg.Tau) || cfg.Tau <= 0:
		return cfg, fmt.Errorf("tau = %v: must be positive and finite", cfg.Tau)
	case !finite(cfg.Eta) || cfg.Eta < 0:
		return cfg, fmt.Errorf("eta = %v: must be non-negative and finite", cfg.Eta)
	case !finite(cfg.Rho) || cfg.Rho < 0:
		return cfg, fmt.Errorf("rho = %v: must be non-negative and finite", cfg.Rho)
	case !finite(cfg.Mu) || cfg.Mu < 0:
		return cfg, fmt.Errorf("mu = %v: must be non-negative and finite", cfg.Mu)
	case !finite(cfg.Beta) || cfg.Beta < 0 || cfg.Beta > 1:
		return cfg, fmt.Errorf("beta = %v: must be in [0, 1]", cfg.Beta)
	case math.IsNaN(cfg.My) || cfg.My <= 0:
		return cfg, fmt.Errorf("M_y = %v: must be positive (+Inf disables resets)", cfg.My)
	case cfg.TauSchedule != TauConstant && cfg.TauSchedule != TauSqrt:
		return cfg, fmt.Errorf("tau schedule %q: must be %q or %q", cfg.TauSchedule, TauConstant, TauSqrt)
	case cfg.Safeguard != SafeguardGlobal && cfg.Safeguard != SafeguardEdge && cfg.Safeguard != SafeguardNone:
		return cfg, fmt.Errorf("safeguard %q: must be %q, %q or %q", cfg.Safeguard, SafeguardGlobal, SafeguardEdge, SafeguardNone)
	case cfg.SafeguardEvery < 0:
		return cfg, fmt.Errorf("safeguard period %d: must be positive", cfg.SafeguardEvery)
	case cfg.Rounds < 0:
		return cfg, fmt.Errorf("rounds %d: must be non-negative", cfg.Rounds)
	case !finite(cfg.Scale) || cfg.Scale <= 0:
		return cfg, fmt.Errorf("scale = %v: must be positive and finite", cfg.Scale)
	}
	return cfg, nil
}

// checksGlobal reports whether round t runs the global safeguard check.
func (cfg Config) checksGlobal(t int) bool {
	return cfg.Safeguard == SafeguardGlobal && t%cfg.SafeguardEvery == 0
}
