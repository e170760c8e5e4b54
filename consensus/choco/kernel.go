package choco

// The arithmetic of a round, shared by the agents and the reference so
// that both compute the same bits.

import (
	"math/rand/v2"

	"github.com/consim/consim/consensus/compress"
	"github.com/consim/consim/graph"
	"github.com/consim/consim/objective"
)

// oracle is agent i's gradient g_i^t under Params.Gradient (none for
// CHOCO-gossip), counting its calls.
type oracle struct {
	full  bool
	seed  uint64
	f     objective.Local
	pcg   *rand.PCG
	rng   *rand.Rand
	evals int64 // full gradients, or stochastic samples
}

func newOracle(p Params, f objective.Local) *oracle {
	o := &oracle{full: p.Gradient == GradientFull, seed: p.Seed, f: f, pcg: rand.NewPCG(0, 0)}
	o.rng = rand.New(o.pcg)
	return o
}

// grad writes agent i's gradient of round t at x into d: grad f_i(x), or
// G_i(x, xi_i^t) with the samples of agent i's stream of round t.
func (o *oracle) grad(t, i int, x, d []float64) {
	switch {
	case o.f == nil:
		clear(d)
	case o.full:
		o.f.Grad(x, d)
		o.evals++
	default:
		graph.SeedSample(o.pcg, o.seed, t, i)
		o.evals += int64(o.f.StochGrad(x, d, o.rng))
	}
}

// compressor is agent i's operator Q with its generator, seeded per round
// from graph.StreamCompress.
type compressor struct {
	op   compress.Operator
	seed uint64
	pcg  *rand.PCG
	rng  *rand.Rand
}

func newCompressor(p GossipParams) (*compressor, error) {
	op, err := p.Compression.New()
	if err != nil {
		return nil, err
	}
	c := &compressor{op: op, seed: p.Seed, pcg: rand.NewPCG(0, 0)}
	c.rng = rand.New(c.pcg)
	return c, nil
}

// compress writes q = Q(v) of agent i in round t into q.
func (c *compressor) compress(t, i int, v, q []float64) compress.Encoding {
	graph.StreamCompress.Seed(c.pcg, c.seed, uint64(t), uint64(i))
	return c.op.Compress(v, q, c.rng)
}

// halfStep writes x^{t+1/2} = x - eta g into half, each product rounded
// before the subtraction so that no platform fuses them.
func halfStep(x, g []float64, eta float64, half []float64) {
	for l, v := range x {
		half[l] = v - float64(eta*g[l])
	}
}

// publish computes q = Q(half - xhat) of agent i in round t into q, using
// diff as scratch, adds it to xhat and returns q's encoding.
func publish(c *compressor, t, i int, half, xhat, diff, q []float64) compress.Encoding {
	for l, v := range half {
		diff[l] = v - xhat[l]
	}
	enc := c.compress(t, i, diff, q)
	for l, v := range q {
		xhat[l] += v
	}
	return enc
}

// addEdge adds w (hat_j - hat_i), the term of one present edge of the
// modified gossip step, to acc.
func addEdge(acc []float64, w float64, hatJ, hatI []float64) {
	for l, v := range hatJ {
		acc[l] += float64(w * float64(v-hatI[l]))
	}
}

// gossipStep writes x = half + gamma acc.
func gossipStep(x, half, acc []float64, gamma float64) {
	for l, v := range half {
		x[l] = v + float64(gamma*acc[l])
	}
}
