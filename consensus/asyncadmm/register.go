package asyncadmm

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/consensus/registry"
)

// Params are the keys of the algorithm block of async_admm.
type Params struct {
	// Penalty is rho > 0 of the constraints x_i = z_e (radmm's key).
	// Default DefaultRho.
	Penalty float64 `yaml:"penalty" doc:"penalty rho > 0 of x_i = z_e"`
}

// DefaultParams returns penalty = DefaultRho.
func DefaultParams() Params { return Params{Penalty: DefaultRho} }

// Validate checks the penalty.
func (p *Params) Validate() error {
	var errs registry.FieldErrors
	errs.Check("penalty", &p.Penalty, registry.Positive)
	return errs.Err()
}

// Algorithm describes async_admm to the registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:     "async_admm",
		Summary:  "asynchronous randomized ADMM, per-edge duals, one edge per tick (Wei-Ozdaglar, Iutzeler et al. 2013), exact prox of f_i",
		New:      func() registry.Params { p := DefaultParams(); return &p },
		Needs:    []string{registry.CapLocals, registry.CapProx},
		NeedsDoc: "local objectives f_i with an exact prox (least_squares)",
		Async:    true,
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst registry.Locals) (registry.Run, error) {
			if err := registry.Unconstrained("async_admm", inst.Box()); err != nil {
				return nil, err
			}
			return &run{p: *p.(*Params), env: env, inst: inst}, nil
		}),
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
	return NewAgent(i, r.env.Graph, r.env.Seed, r.p.Penalty, r.inst.Local(i), r.env.Init(i))
}

func (r *run) Resolved() []registry.Value {
	return []registry.Value{{Name: "rho", Value: r.p.Penalty, Note: "penalty of x_i = z_e"}}
}

func (r *run) Measures() []consensus.Measure { return exchange.Measures() }
