package tracking

import (
	"github.com/consim/consim/consensus/gossip"
	"github.com/consim/consim/consensus/registry"
)

// Algorithm describes gradient tracking (DIGing) to the registry.
func Algorithm() registry.Algorithm {
	return gossip.Algorithm[Params]("tracking", "gradient tracking (DIGing) over the round's present edges",
		DefaultParams, NewAgent, NewReference)
}

// Shared returns the keys every gossip method has.
func (p *Params) Shared() gossip.Shared {
	return gossip.Shared{Step: p.Step, Mixing: p.Mixing, Seed: &p.Seed}
}
