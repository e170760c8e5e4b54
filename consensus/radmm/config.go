package radmm

import "github.com/consim/consim/consensus/edgeadmm"

// Methods of Config.Method.
const (
	// MethodExact solves each active agent's subproblem exactly with the
	// local prox. It needs objective.ProxOf(f_i) to succeed.
	MethodExact = edgeadmm.MethodExact
	// MethodLinearized takes one stochastic gradient step on the
	// linearized subproblem with proximal weight 1/tau.
	MethodLinearized = edgeadmm.MethodLinearized
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
	// Tau is the step of MethodLinearized, Seed the run seed of its
	// samples (edgeadmm.NewLocal; 0 selects tau_i = N/L_i).
	Tau  float64
	Seed uint64
	// ReportDuals makes Report include the agent's edge duals with their
	// versions (consensus.Report.EdgeDuals), to measure forks and delays
	// under loss.
	ReportDuals bool
}

// normalized returns cfg with the documented defaults filled in (except
// the per-agent tau), or an error naming the first invalid field.
func (cfg Config) normalized() (Config, error) {
	return cfg, edgeadmm.Normalize(&cfg.Method, &cfg.Rho, DefaultRho, "rho", cfg.Tau)
}
