package radmm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// Settings is the algorithm block of radmm and radmm_linearized.
type Settings struct {
	Params struct {
		// Rho is the penalty rho > 0 of the constraints x_i = z_e.
		Rho float64 `yaml:"rho" doc:"penalty rho > 0 of x_i = z_e"`
		// Tau is radmm_linearized's step tau > 0; nil selects N/L_i per
		// agent (linearized method only).
		Tau *float64 `yaml:"tau,omitempty" doc:"radmm_linearized only: step tau > 0" default:"N/L_i per agent"`
	} `yaml:"params"`
	method string
}

// Validate checks rho and tau and that tau is given only to the method
// that reads it.
func (s *Settings) Validate() error {
	var errs registry.FieldErrors
	p := s.Params
	if !(p.Rho > 0 && !math.IsInf(p.Rho, 0)) {
		errs.Add("params.rho", "must be a finite number > 0, got %s", registry.Num(p.Rho))
	}
	if p.Tau != nil {
		if s.method != MethodLinearized {
			errs.Add("params.tau", "only applies to radmm_linearized")
		} else if !(*p.Tau > 0 && !math.IsInf(*p.Tau, 0)) {
			errs.Add("params.tau", "must be a finite number > 0, got %s", registry.Num(*p.Tau))
		}
	}
	return errs.Err()
}

// Exact describes radmm, ADMM under random edge activation with per-edge
// duals and the exact prox of f_i, to the registry.
func Exact() registry.Algorithm { return algorithm("radmm", MethodExact) }

// Linearized describes radmm_linearized, the same method with one
// stochastic gradient step on the linearized subproblem, to the registry.
func Linearized() registry.Algorithm { return algorithm("radmm_linearized", MethodLinearized) }

func algorithm(name, method string) registry.Algorithm {
	summary := "ADMM under random edge activation, per-edge duals (Iutzeler et al., Wei-Ozdaglar), exact prox of f_i"
	if method == MethodLinearized {
		summary = "ADMM under random edge activation, per-edge duals, linearized: one stochastic gradient step per active round"
	}
	return registry.Algorithm{
		Name:    name,
		Summary: summary,
		New: func() registry.Params {
			s := &Settings{method: method}
			s.Params.Rho = DefaultRho
			return s
		},
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			return build(name, p.(*Settings), env)
		},
	}
}

type run struct {
	cfg    Config
	env    *registry.Env
	locals []objective.Local
}

// Measures are the radmm measures (see the package-level Measures).
func (r *run) Measures() []consensus.Measure { return Measures() }

func build(name string, s *Settings, env *registry.Env) (registry.Run, error) {
	inst, ok := env.Problem.(registry.Locals)
	if !ok {
		return nil, &registry.ProblemMismatch{Algorithm: name, Needs: "local objectives f_i", Capability: registry.CapLocals}
	}
	if err := registry.Unconstrained(name, inst.Box()); err != nil {
		return nil, err
	}
	cfg := Config{Method: s.method, Rho: s.Params.Rho, Seed: env.Seed, ReportDuals: env.Faulty}
	if s.Params.Tau != nil {
		cfg.Tau = *s.Params.Tau
	}
	r := &run{cfg: cfg, env: env, locals: make([]objective.Local, env.N)}
	for i := range r.locals {
		r.locals[i] = inst.Local(i)
		if s.method == MethodExact {
			if _, err := objective.ProxOf(r.locals[i]); err != nil {
				return nil, &registry.ProblemMismatch{Algorithm: name,
					Needs: "the exact prox of each f_i, which least_squares has (use radmm_linearized for the others)"}
			}
		} else if _, err := cfg.tauFor(r.locals[i], env.N); err != nil {
			return nil, registry.FieldErrors{{Key: "params.tau", Msg: fmt.Sprintf("agent %d: %v; give tau", i, err)}}
		}
	}
	return r, nil
}

func (r *run) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i >= r.env.N {
		return nil, fmt.Errorf("radmm: agent id %d is outside [0, %d)", i, r.env.N)
	}
	return NewAgent(r.cfg, i, r.env.Graph, r.env.Process, r.locals[i], r.env.Init(i))
}

func (r *run) Resolved() []registry.Value {
	v := []registry.Value{{Name: "rho", Value: r.cfg.Rho, Note: "penalty of x_i = z_e"}}
	if r.cfg.Method == MethodLinearized {
		for i, f := range r.locals {
			tau, err := r.cfg.tauFor(f, r.env.N)
			if err != nil {
				tau = math.NaN()
			}
			note := "given"
			if r.cfg.Tau == 0 {
				note = "N/L_i"
			}
			v = append(v, registry.Value{Name: fmt.Sprintf("tau_%d", i), Value: tau, Note: note})
		}
	}
	return v
}

func (r *run) Reference(rounds int) ([][]float64, error) {
	x0 := r.env.InitialPoints()
	ref, err := NewReference(r.cfg, r.env.Graph, r.env.Process, r.locals, x0)
	if err != nil {
		return nil, err
	}
	return registry.StepReference(r.env.N, rounds, ref.Step, ref.X)
}
