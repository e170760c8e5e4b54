package asyncadmm

import (
	"fmt"
	"math"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/objective"
)

// Params are the keys of the algorithm block of async_admm.
type Params struct {
	// Rho is the penalty rho > 0 of the constraints x_i = z_e. Default
	// DefaultRho.
	Rho float64 `yaml:"rho" doc:"penalty rho > 0 of x_i = z_e"`
}

// DefaultParams returns rho = DefaultRho.
func DefaultParams() Params { return Params{Rho: DefaultRho} }

// Validate checks rho.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	if !(p.Rho > 0) || math.IsInf(p.Rho, 0) {
		errs.Add("rho", "must be a finite number > 0, got %s", registry.Num(p.Rho))
	}
	return errs.Err()
}

// Algorithm describes async_admm to the registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "async_admm",
		Summary: "asynchronous randomized ADMM, per-edge duals, one edge per tick (Wei-Ozdaglar, Iutzeler et al. 2013), exact prox of f_i",
		New:     func() registry.Params { p := DefaultParams(); return &p },
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			inst, ok := env.Problem.(registry.Locals)
			if !ok {
				return nil, &registry.ProblemMismatch{Algorithm: "async_admm", Needs: "local objectives f_i", Capability: registry.CapLocals}
			}
			if err := registry.Unconstrained("async_admm", inst.Box()); err != nil {
				return nil, err
			}
			for i := range env.N {
				if _, err := objective.ProxOf(inst.Local(i)); err != nil {
					return nil, &registry.ProblemMismatch{Algorithm: "async_admm", Needs: "the exact prox of each f_i, which least_squares has"}
				}
			}
			return &run{p: *p.(*Params), env: env, inst: inst}, nil
		},
	}
}

type run struct {
	p    Params
	env  *registry.Env
	inst registry.Locals
}

func (r *run) Agent(int) (consensus.Agent, error) {
	return nil, fmt.Errorf("async_admm: %w", registry.ErrAsyncOnly)
}

func (r *run) AsyncAgent(i int) (consensus.AsyncAgent, error) {
	if i < 0 || i >= r.env.N {
		return nil, fmt.Errorf("async_admm: agent id %d is outside [0, %d)", i, r.env.N)
	}
	return NewAgent(i, r.env.Graph, r.env.Seed, r.p.Rho, r.inst.Local(i), r.env.Init(i))
}

func (r *run) Resolved() []registry.Value {
	return []registry.Value{{Name: "rho", Value: r.p.Rho, Note: "penalty of x_i = z_e"}}
}

func (r *run) Measures() []consensus.Measure { return exchange.Measures() }
