package choco

// The arithmetic of a round, shared by the agents and the reference so
// that both compute the same bits.

import (
	"math/rand/v2"

	"github.com/consim/consim/consensus/compress"
	"github.com/consim/consim/graph"
)

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
