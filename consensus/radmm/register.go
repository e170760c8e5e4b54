package radmm

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/edgeadmm"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// Params is the algorithm block of radmm and radmm_linearized.
type Params struct {
	// Penalty is the penalty rho > 0 of the constraints x_i = z_e.
	Penalty float64 `yaml:"penalty" doc:"penalty rho > 0 of x_i = z_e"`
	// Step is radmm_linearized's step tau > 0; nil selects N/L_i per
	// agent (linearized method only).
	Step *float64 `yaml:"step,omitempty" doc:"radmm_linearized only: step tau > 0" default:"N/L_i per agent"`
	pair edgeadmm.Pair
}

// Validate checks penalty and step and that step is given only to the
// method that reads it.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	p.pair.Check(&errs, p.Penalty, p.Step)
	return errs.Err()
}

// Exact describes radmm, ADMM under random edge activation with per-edge
// duals and the exact prox of f_i, to the registry.
func Exact() registry.Algorithm {
	return algorithm(edgeadmm.Pair{Name: "radmm", Linearized: "radmm_linearized", Method: MethodExact},
		"ADMM under random edge activation, per-edge duals (Iutzeler et al., Wei-Ozdaglar), exact prox of f_i")
}

// Linearized describes radmm_linearized, the same method with one
// stochastic gradient step on the linearized subproblem, to the registry.
func Linearized() registry.Algorithm {
	return algorithm(edgeadmm.Pair{Name: "radmm_linearized", Linearized: "radmm_linearized", Method: MethodLinearized},
		"ADMM under random edge activation, per-edge duals, linearized: one stochastic gradient step per active round")
}

func algorithm(pair edgeadmm.Pair, summary string) registry.Algorithm {
	return pair.Entry(summary,
		func() registry.Params { return &Params{Penalty: DefaultRho, pair: pair} },
		func(p registry.Params, env *registry.Env) (registry.Run, error) { return build(p.(*Params), env) },
		edgeadmm.Renamed(map[string]string{"params.rho": "penalty"}))
}

type run struct {
	pair   edgeadmm.Pair
	cfg    Config
	env    *registry.Env
	locals []objective.Local
}

var (
	_ registry.Referencer = (*run)(nil)
	_ registry.Measurer   = (*run)(nil)
)

// Measures are the radmm measures (see the package-level Measures).
func (r *run) Measures() []consensus.Measure { return Measures() }

func build(p *Params, env *registry.Env) (registry.Run, error) {
	cfg := Config{Method: p.pair.Method, Rho: p.Penalty, Seed: env.Seed, ReportDuals: env.Faulty}
	if p.Step != nil {
		cfg.Tau = *p.Step
	}
	locals, err := p.pair.Locals(cfg.Tau, env)
	if err != nil {
		return nil, err
	}
	return &run{pair: p.pair, cfg: cfg, env: env, locals: locals}, nil
}

func (r *run) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent("radmm", i); err != nil {
		return nil, err
	}
	return NewAgent(r.cfg, i, r.env.Graph, r.env.Process, r.locals[i], r.env.Init(i))
}

func (r *run) Resolved() []registry.Value {
	v := []registry.Value{{Name: "rho", Value: r.cfg.Rho, Note: "penalty of x_i = z_e"}}
	return append(v, r.pair.TauValues(r.cfg.Tau, r.locals)...)
}

func (r *run) Reference(rounds int) ([][]float64, error) {
	x0 := r.env.InitialPoints()
	ref, err := NewReference(r.cfg, r.env.Graph, r.env.Process, r.locals, x0)
	if err != nil {
		return nil, err
	}
	return registry.StepReference(r.env.N, rounds, ref.Step, ref.X)
}
