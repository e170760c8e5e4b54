package tracking

import (
	"math/rand/v2"

	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// oracle is the gradient g_i^t of an agent's objective f under
// Params.Gradient, counting its calls.
type oracle struct {
	stoch bool
	seed  uint64
	f     objective.Local
	pcg   *rand.PCG
	rng   *rand.Rand
	evals int64 // full gradients, or stochastic samples
}

func newOracle(p Params, f objective.Local) *oracle {
	o := &oracle{stoch: p.Gradient == GradientStochastic, seed: p.Seed, f: f, pcg: rand.NewPCG(0, 0)}
	o.rng = rand.New(o.pcg)
	return o
}

// grad writes g_i^t at x into d: grad f_i(x), or G_i(x, xi_i^t) with the
// samples of agent i's stream of round t.
func (o *oracle) grad(t, i int, x, d []float64) {
	if !o.stoch {
		o.f.Grad(x, d)
		o.evals++
		return
	}
	graph.SeedSample(o.pcg, o.seed, t, i)
	o.evals += int64(o.f.StochGrad(x, d, o.rng))
}
