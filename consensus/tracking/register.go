package tracking

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// Algorithm describes gradient tracking (DIGing) to the registry.
func Algorithm() registry.Algorithm {
	return gossip.Algorithm("tracking", "gradient tracking (DIGing) over the round's present edges",
		func() registry.Params { p := DefaultParams(); return &p },
		func(p registry.Params, seed uint64) gossip.Method {
			m := method{*p.(*Params)}
			m.p.Seed = seed
			return m
		})
}

// method is gradient tracking's block resolved for a run.
type method struct{ p Params }

func (m method) CheckGraph(g *graph.Graph) error { return m.p.Mixing.CheckFor(g) }

func (m method) NewAgent(i int, g *graph.Graph, proc graph.EdgeProcess, f objective.Local, x0 []float64) (consensus.Agent, error) {
	return NewAgent(m.p, i, g, proc, f, x0)
}

func (m method) NewReference(g *graph.Graph, proc graph.EdgeProcess, locals []objective.Local, x0 [][]float64) (gossip.Reference, error) {
	return NewReference(m.p, g, proc, locals, x0)
}

func (m method) Resolved() []registry.Value {
	return []registry.Value{{Name: "alpha", Value: m.p.Step, Note: "step"}}
}
