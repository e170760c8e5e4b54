package choco

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
)

// Algorithm describes CHOCO-SGD to the registry (name choco_sgd): its
// block decodes into Params over DefaultParams, and it runs on problems
// with local objectives f_i.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:        "choco_sgd",
		Summary:     "CHOCO-SGD: decentralized SGD with compressed messages (top_k, rand_k, qsgd) and public copies xhat",
		New:         func() registry.Params { p := DefaultParams(); return &p },
		Needs:       []string{registry.CapLocals},
		NeedsDoc:    "local objectives f_i",
		SendsDeltas: true,
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst registry.Locals) (registry.Run, error) {
			params := *p.(*Params)
			params.Seed = env.Seed
			if err := params.Mixing.CheckFor(env.Graph); err != nil {
				return nil, err
			}
			return &run{name: "choco_sgd", sgd: &params, p: params.GossipParams, env: env, inst: inst}, nil
		}),
	}
}

// Gossip describes CHOCO-gossip to the registry (name choco_gossip): it
// averages the agents' initial points (problem.init) and takes no
// gradient, on any problem of the run.
func Gossip() registry.Algorithm {
	return registry.Algorithm{
		Name:        "choco_gossip",
		Summary:     "CHOCO-gossip: average consensus of the initial points with compressed messages (no gradient)",
		New:         func() registry.Params { p := DefaultGossipParams(); return &p },
		SendsDeltas: true,
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			params := *p.(*GossipParams)
			params.Seed = env.Seed
			if err := params.Mixing.CheckFor(env.Graph); err != nil {
				return nil, err
			}
			return &run{name: "choco_gossip", p: params, env: env}, nil
		},
	}
}

// run is CHOCO-gossip or CHOCO-SGD (sgd set) resolved against one
// instance.
type run struct {
	name string
	p    GossipParams
	sgd  *Params
	env  *registry.Env
	inst registry.Locals // nil for CHOCO-gossip
}

var _ registry.Referencer = (*run)(nil)

func (r *run) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent(r.name, i); err != nil {
		return nil, err
	}
	if r.sgd == nil {
		return NewGossipAgent(r.p, i, r.env.Graph, r.env.Process, r.env.Init(i))
	}
	return NewAgent(*r.sgd, i, r.env.Graph, r.env.Process, r.inst.Local(i), r.env.Init(i))
}

// Resolved lists eta (CHOCO-SGD), gamma and delta, the contraction
// parameter of Q for the dimension of the run.
func (r *run) Resolved() []registry.Value {
	var vs []registry.Value
	if r.sgd != nil {
		vs = append(vs, registry.Value{Name: "eta", Value: r.sgd.Step, Note: "SGD step (eta_0 under schedule sqrt)"})
	}
	vs = append(vs, registry.Value{Name: "gamma", Value: r.p.Gamma, Note: "consensus step"})
	if op, err := r.p.Compression.New(); err == nil {
		n := len(r.env.Init(0))
		vs = append(vs, registry.Value{Name: "delta", Value: op.Delta(n), Note: fmt.Sprintf("contraction of %v at n = %d", op, n)})
	}
	return vs
}

// Reference runs the matrix form on the same draws.
func (r *run) Reference(rounds int) ([][]float64, error) {
	var ref *Reference
	var err error
	if r.sgd == nil {
		ref, err = NewGossipReference(r.p, r.env.Graph, r.env.Process, r.env.InitialPoints())
	} else {
		ref, err = NewReference(*r.sgd, r.env.Graph, r.env.Process, registry.AllLocals(r.inst, r.env.N), r.env.InitialPoints())
	}
	if err != nil {
		return nil, err
	}
	step := func(t int) error { ref.Step(t); return nil }
	return registry.StepReference(r.env.N, rounds, step, ref.X)
}
