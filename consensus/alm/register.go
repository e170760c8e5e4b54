package alm

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// Algorithm describes the ALM (Algorithm 2 of the paper; Algorithm 1 when
// every p_ij = 1) to the registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:      "alm",
		Summary:   "stochastic smoothed linearized ALM with random edge-agent incidence (Algorithm 2)",
		New:       func() registry.Params { p := DefaultParams(); return &p },
		Build:     registry.BuildWith(build),
		SameDraw:  true,
		CanRejoin: true,
		Needs:     []string{registry.CapLocals},
		NeedsDoc:  "local objectives f_i with gradients and a box X",
		Renamed:   Renamed(true, map[string]string{"tau_schedule": "schedule"}),
	}
}

// run is the ALM resolved against one instance.
type run struct {
	cfg    Config
	env    *registry.Env
	locals []objective.Local
	box    objective.Box
	consts Constants
}

var (
	_ registry.Referencer = (*run)(nil)
	_ registry.Measurer   = (*run)(nil)
)

func build(p registry.Params, env *registry.Env, inst registry.Locals) (registry.Run, error) {
	locals := registry.AllLocals(inst, env.N)
	c, err := ConstantsFor(env.Graph, locals)
	if err != nil {
		return nil, err
	}
	return &run{cfg: p.(*Params).resolve(c, env), env: env, locals: locals, box: inst.Box(), consts: c}, nil
}

// Agent builds agent i.
func (r *run) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent("alm", i); err != nil {
		return nil, err
	}
	return NewAgent(r.cfg, i, r.env.Graph, r.env.Process, r.locals[i], r.box, r.env.Init(i))
}

// Resolved lists the parameters after the preset and overrides, and the
// constants the preset was computed from (in the units of f).
func (r *run) Resolved() []registry.Value {
	return append(append(r.cfg.StepValues(r.consts), r.consts.Values()...),
		registry.Value{Name: "||E[A^T A]||", Value: r.consts.SecondMoment, Note: "lambda_max(L_p)"},
		registry.Value{Name: "safeguard_every", Value: float64(r.cfg.SafeguardEvery)})
}

// StepValues lists the steps of cfg with sigma and L_K for the constants
// c (of f): the first resolved values of every run of the ALM family.
func (cfg Config) StepValues(c Constants) []registry.Value {
	p := cfg.Steps
	tau := "primal step"
	if p.TauSchedule == TauSqrt {
		tau = "primal step tau_0 of tau/sqrt(t+1)"
	}
	return []registry.Value{
		{Name: "eta", Value: p.Eta, Note: "dual step"},
		{Name: "tau", Value: p.Tau, Note: tau},
		{Name: "rho", Value: p.Rho, Note: "penalty"},
		{Name: "mu", Value: p.Mu, Note: "proximal weight"},
		{Name: "beta", Value: p.Beta, Note: "smoothing step"},
		{Name: "M_y", Value: p.My, Note: "dual safeguard radius, duals of f"},
		{Name: "sigma", Value: cfg.Scale, Note: "agents minimise sigma f"},
		{Name: "L_K", Value: float64(cfg.Scale*c.Lf) + float64(p.Rho*c.M2()) + p.Mu, Note: "sigma L_f + rho M_2 + mu"},
	}
}

// Values lists M_2, L_f and ||E[A]|| (of f).
func (c Constants) Values() []registry.Value {
	return []registry.Value{
		{Name: "M_2", Value: c.M2(), Note: "max{||E[A]||^2, ||E[A^T A]||}"},
		{Name: "L_f", Value: c.Lf, Note: "max_i L_i / N, of f"},
		{Name: "||E[A]||", Value: c.NormA, Note: "sqrt(lambda_max(L_{p^2}))"},
	}
}

// Measures are the ALM's own measures (see the package-level Measures).
func (r *run) Measures() []consensus.Measure { return Measures() }

// Reference runs the matrix-form Algorithm 2 on the same draws for rounds
// rounds and returns every agent's x_i.
func (r *run) Reference(rounds int) ([][]float64, error) {
	x0 := r.env.InitialPoints()
	ref, err := NewReference(r.cfg, r.env.Graph, r.env.Process, r.locals, r.box, x0)
	if err != nil {
		return nil, err
	}
	return registry.StepReference(r.env.N, rounds, ref.Step, ref.X)
}
