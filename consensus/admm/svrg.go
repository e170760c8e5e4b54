package admm

import "math/rand/v2"

// snapshot is the reference point of an outer iteration: x~, g(x~) and
// grad F(x~).
type snapshot struct {
	x, g, grad []float64
}

func newSnapshot(d Dims) snapshot {
	return snapshot{x: make([]float64, d.D), g: make([]float64, d.R), grad: make([]float64, d.D)}
}

// take sets x~ = x and evaluates g(x~) (m queries) and grad F(x~)
// (m + n queries): the paper's steps 3-5, 2m + n queries in all.
func (s *snapshot) take(c *OracleCounter, x []float64) {
	copy(s.x, x)
	c.InnerMean(s.x, s.g)
	c.Gradient(s.x, s.g, s.grad)
}

// scratch holds per-step temporaries so the inner loop does not allocate.
type scratch struct {
	r1, r2, r3 []float64 // length r
	d1, d2     []float64 // length d
}

func newScratch(d Dims) scratch {
	return scratch{
		r1: make([]float64, d.R), r2: make([]float64, d.R), r3: make([]float64, d.R),
		d1: make([]float64, d.D), d2: make([]float64, d.D),
	}
}

// estimateInner writes the mini-batch estimate (the paper's eq. 9)
//
//	g_hat(x) = g(x~) - (1/N) sum_{b=1}^N [ g_{j_b}(x~) - g_{j_b}(x) ],
//
// j_b uniform on {1..m} with replacement, into dst (2N queries).
func estimateInner(c *OracleCounter, rng *rand.Rand, batch int, x []float64, s *snapshot, w *scratch, dst []float64) {
	m := c.P.Dims().M
	copy(dst, s.g)
	inv := 1 / float64(batch)
	for range batch {
		j := rng.IntN(m)
		c.Inner(j, s.x, w.r1)
		c.Inner(j, x, w.r2)
		for k := range dst {
			dst[k] -= inv * (w.r1[k] - w.r2[k])
		}
	}
}

// direction1 writes the com-SVRG-1 / com-SVR-ADMM estimate (the paper's
// eq. 8)
//
//	v = (dg_j(x))^T grad f_i(g_hat) - (dg_j(x~))^T grad f_i(g(x~)) + grad F(x~),
//
// i uniform on {1..n}, j uniform on {1..m}, into dst (4 queries).
func direction1(c *OracleCounter, rng *rand.Rand, x, ghat []float64, s *snapshot, w *scratch, dst []float64) {
	d := c.P.Dims()
	i := rng.IntN(d.N)
	j := rng.IntN(d.M)
	c.OuterGrad(i, ghat, w.r1)
	c.InnerJacT(j, x, w.r1, w.d1)
	c.OuterGrad(i, s.g, w.r2)
	c.InnerJacT(j, s.x, w.r2, w.d2)
	for k := range dst {
		dst[k] = w.d1[k] - w.d2[k] + s.grad[k]
	}
}
