package null

import (
	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/registry"
)

// Params is the (empty) algorithm block of the null algorithm.
type Params struct{}

// Validate accepts every Params.
func (*Params) Validate() error { return nil }

// Algorithm describes the null algorithm to the registry: the exchange of
// the problem's dimension n with no optimization, to measure the runtime
// alone.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "exchange",
		Summary: "pure exchange: agents average their neighbours' iterates (no optimization; measures the runtime)",
		New:     func() registry.Params { return &Params{} },
		Build: func(_ registry.Params, env *registry.Env) (registry.Run, error) {
			return run{env}, nil
		},
	}
}

type run struct{ env *registry.Env }

func (r run) Agent(i int) (consensus.Agent, error) {
	if err := r.env.CheckAgent("null", i); err != nil {
		return nil, err
	}
	return NewAgent(i, r.env.Graph, r.env.Problem.Dim(), r.env.Init(i))
}

func (run) Resolved() []registry.Value { return nil }
