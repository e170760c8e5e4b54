package adpsgd

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/consensus/registry"
)

// Algorithm describes AD-PSGD to the registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:     "adpsgd",
		Summary:  "asynchronous decentralized parallel SGD (Lian et al. 2018): gradient at a stale iterate, pairwise average with a random neighbour",
		New:      func() registry.Params { p := DefaultParams(); return &p },
		Needs:    []string{registry.CapLocals},
		NeedsDoc: "local objectives f_i",
		Async:    true,
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst registry.Locals) (registry.Run, error) {
			if err := registry.Unconstrained("adpsgd", inst.Box()); err != nil {
				return nil, err
			}
			params := *p.(*Params)
			params.Seed = env.Seed
			return &run{p: params, env: env, inst: inst}, nil
		}),
	}
}

type run struct {
	p    Params
	env  *registry.Env
	inst registry.Locals
}

func (r *run) Agent(int) (consensus.Agent, error) {
	return nil, fmt.Errorf("adpsgd: %w", registry.ErrAsyncOnly)
}

func (r *run) AsyncAgent(i int) (consensus.AsyncAgent, error) {
	if i < 0 || i >= r.env.N {
		return nil, fmt.Errorf("adpsgd: agent id %d is outside [0, %d)", i, r.env.N)
	}
	return NewAgent(r.p, i, r.env.Graph, r.inst.Local(i), r.env.Init(i))
}

func (r *run) Resolved() []registry.Value {
	return []registry.Value{{Name: "alpha", Value: r.p.Step, Note: "step (alpha_0 under schedule sqrt)"}}
}

func (r *run) Measures() []consensus.Measure { return exchange.Measures() }
