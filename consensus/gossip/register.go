package gossip

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Method is a gossip method's block resolved for a run: what the shared
// registration (Algorithm) needs of dgd and tracking.
type Method interface {
	// CheckGraph returns the error of the block on graph g (the uniform
	// mixing weight against the largest degree), keyed as a FieldErrors.
	CheckGraph(g *graph.Graph) error
	// NewAgent builds agent i over g and proc with objective f and initial
	// point x0.
	NewAgent(i int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (consensus.Agent, error)
	// NewReference builds the matrix form of the run of the agents.
	NewReference(g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (Reference, error)
	// Resolved lists the values the agents run with.
	Resolved() []registry.Value
}

// Reference is a matrix-form reference of a gossip method: Step performs
// round t, X returns a copy of x_i.
type Reference interface {
	Step(t int)
	X(i int) []float64
}

// Algorithm describes the gossip method name to the registry: its block
// is what newParams returns, and method resolves a decoded block for the
// run seed. The method needs local objectives (registry.Locals) and
// accepts the old keys of Renamed with an error naming the new ones.
func Algorithm(name, summary string, newParams func() registry.Params, method func(p registry.Params, seed uint64) Method) registry.Algorithm {
	return registry.Algorithm{
		Name:     name,
		Summary:  summary,
		New:      newParams,
		Needs:    []string{registry.CapLocals},
		NeedsDoc: "local objectives f_i",
		Renamed:  Renamed,
		Build: func(p registry.Params, env *registry.Env) (registry.Run, error) {
			inst, err := registry.As[registry.Locals](env)
			if err != nil {
				return nil, err
			}
			m := method(p, env.Seed)
			if err := m.CheckGraph(env.Graph); err != nil {
				return nil, err
			}
			return &run{name: name, m: m, env: env, inst: inst}, nil
		},
	}
}

// run is a gossip method resolved against one instance.
type run struct {
	name string
	m    Method
	env  *registry.Env
	inst registry.Locals
}

var _ registry.Referencer = (*run)(nil)

func (r *run) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent(r.name, i); err != nil {
		return nil, err
	}
	return r.m.NewAgent(i, r.env.Graph, r.env.Process, r.inst.Local(i), r.env.Init(i))
}

func (r *run) Resolved() []registry.Value { return r.m.Resolved() }

// Reference runs the method's matrix form on the same draws.
func (r *run) Reference(rounds int) ([][]float64, error) {
	ref, err := r.m.NewReference(r.env.Graph, r.env.Process, registry.AllLocals(r.inst, r.env.N), r.env.InitialPoints())
	if err != nil {
		return nil, err
	}
	step := func(t int) error { ref.Step(t); return nil }
	return registry.StepReference(r.env.N, rounds, step, ref.X)
}
