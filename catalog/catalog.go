// Package catalog lists the algorithms and problems that ship with consim.
// Adding an algorithm to consim is writing its package (which describes
// itself in a registry.Algorithm) and one line here; a user's program adds
// its own to the Registry that Default returns.
//
// catalog may import the algorithm and problem packages and registry; it
// must not import node, coordinator, scenarios or cmd.
package catalog

import (
	"github.com/consim/consim/consensus/adpsgd"
	"github.com/consim/consim/consensus/alm"
	"github.com/consim/consim/consensus/almstorm"
	"github.com/consim/consim/consensus/asyncadmm"
	"github.com/consim/consim/consensus/choco"
	"github.com/consim/consim/consensus/dadmm"
	"github.com/consim/consim/consensus/dgd"
	"github.com/consim/consim/consensus/fair"
	"github.com/consim/consim/consensus/null"
	"github.com/consim/consim/consensus/pairwise"
	"github.com/consim/consim/consensus/penalty"
	"github.com/consim/consim/consensus/penaltycons"
	"github.com/consim/consim/consensus/pushpull"
	"github.com/consim/consim/consensus/pushsum"
	"github.com/consim/consim/consensus/radmm"
	"github.com/consim/consim/consensus/registry"
	"github.com/consim/consim/consensus/slicing"
	"github.com/consim/consim/consensus/tracking"
	"github.com/consim/consim/consensus/tsp"
	"github.com/consim/consim/consensus/zosplm"
	"github.com/consim/consim/problems/bilevel"
	"github.com/consim/consim/problems/constrlogistic"
	"github.com/consim/consim/problems/fairness"
	"github.com/consim/consim/problems/hyperclean"
	"github.com/consim/consim/problems/portfolio"
	"github.com/consim/consim/problems/qcqp"
	"github.com/consim/consim/problems/regression"
	slicingproblem "github.com/consim/consim/problems/slicing"
)

// Algorithms are the shipped algorithms, one line each.
func Algorithms() []registry.Algorithm {
	return []registry.Algorithm{
		alm.Algorithm(),
		almstorm.Algorithm(),
		almstorm.NoDual(),
		penaltycons.Algorithm(),
		dadmm.Exact(),
		dadmm.Linearized(),
		dadmm.Composition(),
		null.Algorithm(),
		dgd.Algorithm(),
		choco.Gossip(),
		choco.Algorithm(),
		tracking.Algorithm(),
		radmm.Exact(),
		radmm.Linearized(),
		slicing.Algorithm(),
		zosplm.Algorithm(),
		tsp.Algorithm(),
		penalty.Algorithm(),
		fair.Algorithm(),
		pushsum.PushSum(),
		pushsum.SubgradientPush(),
		pushpull.Algorithm(),
		pairwise.Algorithm(),
		adpsgd.Algorithm(),
		asyncadmm.Algorithm(),
	}
}

// Problems are the shipped problem families, one line each.
func Problems() []registry.Problem {
	return []registry.Problem{
		regression.LeastSquares(),
		regression.Logistic(),
		regression.Nonconvex(),
		portfolio.Problem(),
		slicingproblem.Problem(),
		qcqp.Problem(),
		hyperclean.Problem(),
		bilevel.Problem(),
		constrlogistic.Problem(),
		fairness.Problem(),
	}
}

// Default returns a new registry holding Algorithms and Problems. The
// caller may register more; each call returns an independent registry.
func Default() *registry.Registry {
	r := new(registry.Registry)
	for _, a := range Algorithms() {
		if err := r.RegisterAlgorithm(a); err != nil {
			panic(err) // the shipped names are distinct; a test checks it
		}
	}
	for _, p := range Problems() {
		if err := r.RegisterProblem(p); err != nil {
			panic(err)
		}
	}
	return r
}
