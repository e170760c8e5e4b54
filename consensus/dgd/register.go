package dgd

import (
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/registry"
)

// Algorithm describes DGD to the registry: its name, its parameters (the
// algorithm block of a scenario decodes into Params over DefaultParams)
// and how to build its agents for a run.
func Algorithm() registry.Algorithm {
	return gossip.Algorithm[Params]("dgd", "decentralized gradient descent over the round's present edges (gossip when the gradient is zero)",
		DefaultParams, NewAgent, NewReference)
}

// Shared returns the keys every gossip method has.
func (p *Params) Shared() gossip.Shared {
	return gossip.Shared{Step: p.Step, Mixing: p.Mixing, Seed: &p.Seed}
}
