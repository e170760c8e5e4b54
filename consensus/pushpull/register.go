package pushpull

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
)

// Algorithm describes the push-pull gradient method to the registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:     "push_pull",
		Summary:  "push-pull gradient tracking (row-stochastic pull of x, column-stochastic push of y) over the round's present arcs (directed graphs)",
		New:      func() registry.Params { p := DefaultParams(); return &p },
		Directed: true,
		Build: registry.BuildWith(func(p registry.Params, env *registry.Env, inst registry.Locals) (registry.Run, error) {
			d, arcs := env.Directed()
			return &run{p: *p.(*Params), env: env, inst: inst, d: d, arcs: arcs}, nil
		}),
		Needs:    []string{registry.CapLocals},
		NeedsDoc: "local objectives f_i",
		Renamed:  map[string]string{"alpha": "step"},
	}
}

var _ registry.Referencer = (*run)(nil)

// run is the push-pull method resolved against one instance.
type run struct {
	p    Params
	env  *registry.Env
	inst registry.Locals
	d    *graph.Digraph
	arcs graph.ArcProcess
}

func (r *run) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent("push_pull", i); err != nil {
		return nil, err
	}
	return NewAgent(r.p, i, r.d, r.arcs, r.inst.Local(i), r.env.Init(i))
}

func (r *run) Resolved() []registry.Value {
	return []registry.Value{{Name: "alpha", Value: r.p.Step, Note: "constant step, form " + r.p.Form}}
}

// Reference runs the matrix-form method on the same draws.
func (r *run) Reference(rounds int) ([][]float64, error) {
	ref, err := NewReference(r.p, r.d, r.arcs, registry.AllLocals(r.inst, r.env.N), r.env.InitialPoints())
	if err != nil {
		return nil, err
	}
	step := func(k int) error { ref.Step(k); return nil }
	return registry.StepReference(r.env.N, rounds, step, ref.X)
}
