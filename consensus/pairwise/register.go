package pairwise

import (
	"fmt"

	"github.com/consim/consim/consensus"
	"github.com/consim/consim/consensus/exchange"
	"github.com/consim/consim/consensus/registry"
)

// Params are the keys of the algorithm block of pairwise_gossip: none.
// The clock, the links and the seed come from the scenario's async
// section and the run.
type Params struct{}

// DefaultParams returns the (empty) parameters.
func DefaultParams() Params { return Params{} }

// Validate accepts every Params.
func (*Params) Validate() error { return nil }

// Algorithm describes pairwise_gossip to the registry.
func Algorithm() registry.Algorithm {
	return registry.Algorithm{
		Name:    "pairwise_gossip",
		Summary: "asynchronous randomized pairwise gossip (Boyd et al. 2006): on a tick, average with a random neighbour",
		New:     func() registry.Params { p := DefaultParams(); return &p },
		Async:   true,
		Build: func(_ registry.Params, env *registry.Env) (registry.Run, error) {
			if env.Problem.Dim() < 1 {
				return nil, &registry.ProblemMismatch{Algorithm: "pairwise_gossip", Needs: "a common dimension n of the agents' blocks"}
			}
			return &run{env: env}, nil
		},
	}
}

type run struct{ env *registry.Env }

func (r *run) Agent(int) (consensus.Agent, error) {
	return nil, fmt.Errorf("pairwise_gossip: %w", registry.ErrAsyncOnly)
}

func (r *run) AsyncAgent(i int) (consensus.AsyncAgent, error) {
	if i < 0 || i >= r.env.N {
		return nil, fmt.Errorf("pairwise_gossip: agent id %d is outside [0, %d)", i, r.env.N)
	}
	return NewAgent(i, r.env.Graph, r.env.Seed, r.env.Init(i))
}

func (r *run) Resolved() []registry.Value { return nil }

func (r *run) Measures() []consensus.Measure { return exchange.Measures() }
