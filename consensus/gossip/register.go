package gossip

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Shared are the keys every gossip method's block has, and where its run
// seed goes: what the shared registration (Algorithm) reads of a block.
type Shared struct {
	Step   float64
	Mixing Mixing
	// Seed points at the block's run seed.
	Seed *uint64
}

// Block is a gossip method's block type P, held by pointer.
type Block[P any] interface {
	*P
	registry.Params
	// Shared returns the block's shared keys.
	Shared() Shared
}

// Reference is a matrix-form reference of a gossip method: Step performs
// round t, X returns a copy of x_i.
type Reference interface {
	Step(t int)
	X(i int) []float64
}

// Algorithm describes the gossip method name to the registry: its block
// is a P holding defaults(), newAgent builds its agents and newReference
// its matrix form from a block that holds the run seed. The method needs
// local objectives (registry.Locals) and lists the old keys of Renamed.
func Algorithm[P any, B Block[P], A consensus.Agent, R Reference](name, summary string, defaults func() P,
	newAgent func(P, int, *graph.Graph, graph.EdgeProcess, objective.Local, []float64) (A, error),
	newReference func(P, *graph.Graph, graph.EdgeProcess, []objective.Local, [][]float64) (R, error)) registry.Algorithm {
	return registry.Algorithm{
		Name:     name,
		Summary:  summary,
		New:      func() registry.Params { p := defaults(); return B(&p) },
		Needs:    []string{registry.CapLocals},
		NeedsDoc: "local objectives f_i",
		Renamed:  Renamed,
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst registry.Locals) (registry.Run, error) {
			q := *(*P)(p.(B))
			sh := B(&q).Shared()
			*sh.Seed = env.Seed
			if err := sh.Mixing.CheckFor(env.Graph); err != nil {
				return nil, err
			}
			return &run[P, A, R]{name: name, p: q, step: sh.Step, env: env, inst: inst, newAgent: newAgent, newReference: newReference}, nil
		}),
	}
}

var _ registry.Referencer = (*run[struct{}, consensus.Agent, Reference])(nil)

// run is a gossip method resolved against one instance.
type run[P any, A consensus.Agent, R Reference] struct {
	name         string
	p            P
	step         float64
	env          *registry.Env
	inst         registry.Locals
	newAgent     func(P, int, *graph.Graph, graph.EdgeProcess, objective.Local, []float64) (A, error)
	newReference func(P, *graph.Graph, graph.EdgeProcess, []objective.Local, [][]float64) (R, error)
}

func (r *run[P, A, R]) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent(r.name, i); err != nil {
		return nil, err
	}
	return r.newAgent(r.p, i, r.env.Graph, r.env.Process, r.inst.Local(i), r.env.Init(i))
}

func (r *run[P, A, R]) Resolved() []registry.Value {
	return []registry.Value{{Name: "alpha", Value: r.step, Note: "step"}}
}

// Reference runs the method's matrix form on the same draws.
func (r *run[P, A, R]) Reference(rounds int) ([][]float64, error) {
	ref, err := r.newReference(r.p, r.env.Graph, r.env.Process, registry.AllLocals(r.inst, r.env.N), r.env.InitialPoints())
	if err != nil {
		return nil, err
	}
	step := func(t int) error { ref.Step(t); return nil }
	return registry.StepReference(r.env.N, rounds, step, ref.X)
}
