package dadmm

import (
	"math/rand/v2"

	"github.com/consim/consim/consensus/admm"
)

// estimator is com-SVR-ADMM's variance-reduced estimate of the gradient
// of a composition F(x) = (1/n) sum_i f_i((1/m) sum_j g_j(x)) around a
// snapshot x~, with the draws and queries in the order of
// admm.ComSVRADMM.Epoch so that a run replays it on the same generator.
type estimator struct {
	x, g, grad []float64 // x~, g(x~), grad F(x~)
	ghat, v    []float64
	r1, r2     []float64 // length r
	d1, d2     []float64 // length d; d1 is also free scratch between calls
}

func newEstimator(d admm.Dims) estimator {
	vd := func() []float64 { return make([]float64, d.D) }
	vr := func() []float64 { return make([]float64, d.R) }
	return estimator{x: vd(), g: vr(), grad: vd(), ghat: vr(), v: vd(), r1: vr(), r2: vr(), d1: vd(), d2: vd()}
}

// snapshot sets x~ = x and evaluates g(x~) (m queries) and grad F(x~)
// (m + n queries).
func (e *estimator) snapshot(c *admm.OracleCounter, x []float64) {
	copy(e.x, x)
	c.InnerMean(e.x, e.g)
	c.Gradient(e.x, e.g, e.grad)
}

// direction returns (in a buffer valid until the next call)
//
//	g_hat = g(x~) - (1/B) sum_{b=1}^B [ g_{j_b}(x~) - g_{j_b}(x) ]          (2B queries)
//	v     = (dg_j(x))^T grad f_i(g_hat) - (dg_j(x~))^T grad f_i(g(x~)) + grad F(x~)   (4 queries)
//
// with j_b, j uniform on {1..m} and i uniform on {1..n}, drawn in this
// order from rng.
func (e *estimator) direction(c *admm.OracleCounter, rng *rand.Rand, batch int, x []float64) []float64 {
	d := c.P.Dims()
	copy(e.ghat, e.g)
	inv := 1 / float64(batch)
	for range batch {
		j := rng.IntN(d.M)
		c.Inner(j, e.x, e.r1)
		c.Inner(j, x, e.r2)
		for k := range e.ghat {
			e.ghat[k] -= inv * (e.r1[k] - e.r2[k])
		}
	}
	i := rng.IntN(d.N)
	j := rng.IntN(d.M)
	c.OuterGrad(i, e.ghat, e.r1)
	c.InnerJacT(j, x, e.r1, e.d1)
	c.OuterGrad(i, e.g, e.r2)
	c.InnerJacT(j, e.x, e.r2, e.d2)
	for k := range e.v {
		e.v[k] = e.d1[k] - e.d2[k] + e.grad[k]
	}
	return e.v
}
