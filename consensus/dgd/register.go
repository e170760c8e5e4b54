package dgd

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
)

// Algorithm describes DGD to the registry: its name, its parameters (the
// algorithm block of a scenario decodes into Params over DefaultParams)
// and how to build its agents for a run.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "dgd",
		Summary: "decentralized gradient descent over the round's present edges (gossip when the gradient is zero)",
		New:     func() registry.Params { p := DefaultParams(); return &p },
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			inst, ok := env.Problem.(registry.Locals)
			if !ok {
				return nil, &registry.ProblemMismatch{Algorithm: "dgd", Needs: "local objectives f_i", Capability: registry.CapLocals}
			}
			params := *p.(*Params)
			params.Seed = env.Seed
			if err := params.Weights.ValidateFor(env.Graph); err != nil {
				return nil, registry.FieldErrors{{Key: "weights.alpha", Msg: err.Error()}}
			}
			return &run{p: params, env: env, inst: inst}, nil
		},
	}
}

// run is DGD resolved against one instance.
type run struct {
	p    Params
	env  *registry.Env
	inst registry.Locals
}

func (r *run) Agent(i int) (consensus.Agent, error) {
	if i < 0 || i >= r.env.N {
		return nil, fmt.Errorf("dgd: agent id %d is outside [0, %d)", i, r.env.N)
	}
	return NewAgent(r.p, i, r.env.Graph, r.env.Process, r.inst.Local(i), r.env.Init(i))
}

func (r *run) Resolved() []registry.Value {
	return []registry.Value{{Name: "alpha", Value: r.p.Alpha, Note: "step (alpha_0 under schedule sqrt)"}}
}

// Reference runs the matrix-form DGD on the same draws.
func (r *run) Reference(rounds int) ([][]float64, error) {
	ref, err := NewReference(r.p, r.env.Graph, r.env.Process, registry.AllLocals(r.inst, r.env.N), r.env.InitialPoints())
	if err != nil {
		return nil, err
	}
	step := func(t int) error { ref.Step(t); return nil }
	return registry.StepReference(r.env.N, rounds, step, ref.X)
}
