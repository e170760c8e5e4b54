package admm

import (
	"math/rand/v2"

	"github.com/consim/consim/problems/portfolio"
)

// Estimator is the variance-reduced gradient estimator of com-SVRG-1 and
// com-SVR-ADMM for a composition F(x) = (1/n) sum_i f_i(g(x)) around a
// snapshot x~ (the paper's eqs. 8 and 9). Snapshot fixes x~ once per outer
// iteration; every inner iteration then calls Estimate (or only
// InnerEstimate). Every query goes through the counter it was built with,
// and every random index is drawn from the caller's generator in a fixed
// order, so two runs on generators in the same state draw the same
// samples.
type Estimator struct {
	c *OracleCounter
	// X, G and Grad are the snapshot: x~, g(x~) and grad F(x~), set by
	// Snapshot (or, for a method with its own gradient rule such as
	// com-SVRG-2, X and G by SnapshotInner and Grad by the method). They
	// are read-only otherwise: InnerEstimate reuses the g_j(x~) that the
	// snapshot computed.
	X, G, Grad []float64
	// GHat is the last inner estimate g_hat and V the last direction v;
	// both are overwritten by the next call.
	GHat, V []float64
	// ExactInner makes Estimate use the exact inner value g(x) (m queries)
	// in place of the mini-batch g_hat: the unbiased estimator of eq. 10,
	// the one of Algorithm 2. Its batch argument is then ignored.
	ExactInner bool

	r1, r2 []float64 // length r
	d1, d2 []float64 // length d

	// stacked is the composition as StackedInner (nil if it is not one);
	// then tailsX holds h_j(x~) for every j, as the snapshot computed
	// them, and js and tailsx are InnerEstimate's draws and their h_j(x).
	stacked portfolio.StackedInner
	tailsX  []float64
	js      []int
	tailsx  []float64
}

// NewEstimator returns an estimator for c's composition, its snapshot at
// zero (call Snapshot before estimating).
func NewEstimator(c *OracleCounter) *Estimator {
	d := c.P.Dims()
	vd := func() []float64 { return make([]float64, d.D) }
	vr := func() []float64 { return make([]float64, d.R) }
	e := &Estimator{
		c: c,
		X: vd(), G: vr(), Grad: vd(),
		GHat: vr(), V: vd(),
		r1: vr(), r2: vr(), d1: vd(), d2: vd(),
	}
	if s, ok := c.P.(portfolio.StackedInner); ok && d.R >= d.D {
		e.stacked = s
		e.tailsX = make([]float64, d.M*(d.R-d.D))
	}
	return e
}

// Snapshot sets x~ = x and evaluates g(x~) (m queries) and grad F(x~)
// (m + n queries): the paper's steps 3-5, 2m + n queries in all.
func (e *Estimator) Snapshot(x []float64) {
	e.SnapshotInner(x)
	e.c.Gradient(e.X, e.G, e.Grad)
}

// SnapshotInner sets x~ = x and evaluates g(x~) (m queries), leaving Grad
// to the caller: the snapshot of a method that computes grad F(x~) its
// own way. For a StackedInner composition it keeps every g_j(x~) for
// InnerEstimate.
func (e *Estimator) SnapshotInner(x []float64) {
	copy(e.X, x)
	if e.stacked != nil {
		e.c.innerMeanStacked(e.stacked, e.X, e.G, e.tailsX)
		return
	}
	e.c.InnerMean(e.X, e.G)
}

// InnerEstimate computes the mini-batch estimate of g(x) (the paper's
// eq. 9)
//
//	g_hat(x) = g(x~) - (1/B) sum_{b=1}^B [ g_{j_b}(x~) - g_{j_b}(x) ],
//
// j_b uniform on {1..m} with replacement drawn in order from rng
// (2B queries), stores it in GHat and returns GHat. For a StackedInner
// composition the g_{j_b}(x~) are the snapshot's values, charged as
// queries but not recomputed (innerEstimateStacked).
func (e *Estimator) InnerEstimate(rng *rand.Rand, batch int, x []float64) []float64 {
	if e.stacked != nil {
		return e.innerEstimateStacked(rng, batch, x)
	}
	m := e.c.P.Dims().M
	copy(e.GHat, e.G)
	inv := 1 / float64(batch)
	for range batch {
		j := rng.IntN(m)
		e.c.Inner(j, e.X, e.r1)
		e.c.Inner(j, x, e.r2)
		for k := range e.GHat {
			e.GHat[k] -= float64(inv * (e.r1[k] - e.r2[k]))
		}
	}
	return e.GHat
}

// innerEstimateStacked is InnerEstimate for g_j(x) = [x; h_j(x)]: the
// same draws and the same operations on every entry of GHat, in the same
// order. The head entries subtract inv (x~[k] - x[k]) once per draw, as
// the general form does with g_j(x~) - g_j(x); the tail entries take
// h_j(x~) from the snapshot and the h_j(x) of all draws from one
// InnerTails call.
func (e *Estimator) innerEstimateStacked(rng *rand.Rand, batch int, x []float64) []float64 {
	d := e.c.P.Dims()
	if cap(e.js) < batch {
		e.js = make([]int, batch)
	}
	js := e.js[:batch]
	for b := range js {
		js[b] = rng.IntN(d.M)
	}
	e.c.G += 2 * int64(batch) // g_j(x~) and g_j(x) for every draw
	rd := d.R - d.D
	if len(e.tailsx) < batch*rd {
		e.tailsx = make([]float64, batch*rd)
	}
	e.stacked.InnerTails(x, js, e.tailsx[:batch*rd])
	inv := 1 / float64(batch)
	head, xt, x := e.GHat[:d.D], e.X[:d.D], x[:d.D]
	for k, g := range e.G[:d.D] {
		t := float64(inv * (xt[k] - x[k]))
		for range batch {
			g -= t
		}
		head[k] = g
	}
	tail := e.GHat[d.D:d.R]
	copy(tail, e.G[d.D:d.R])
	for b, j := range js {
		at, ax := e.tailsX[j*rd:(j+1)*rd], e.tailsx[b*rd:(b+1)*rd]
		for k := range tail {
			tail[k] -= float64(inv * (at[k] - ax[k]))
		}
	}
	return e.GHat
}

// Estimate computes g_hat (InnerEstimate, 2B queries) and then the
// direction (the paper's eq. 8)
//
//	v = (dg_j(x))^T grad f_i(g_hat) - (dg_j(x~))^T grad f_i(g(x~)) + grad F(x~),
//
// with i uniform on {1..n} and then j uniform on {1..m} drawn from rng
// after the mini-batch (4 queries), stores it in V and returns V. v is an
// unbiased estimate of grad F(x) up to the bias of g_hat inside f_i.
//
// With ExactInner set, g_hat is replaced by g(x) = (1/m) sum_j g_j(x)
// (m queries, no draw), which is eq. 10: m + 4 queries in all.
func (e *Estimator) Estimate(rng *rand.Rand, batch int, x []float64) []float64 {
	if e.ExactInner {
		e.c.InnerMean(x, e.GHat)
	} else {
		e.InnerEstimate(rng, batch, x)
	}
	d := e.c.P.Dims()
	i := rng.IntN(d.N)
	j := rng.IntN(d.M)
	e.c.OuterGradPair(i, e.GHat, e.G, e.r1, e.r2)
	e.c.InnerJacT(j, x, e.r1, e.d1)
	e.c.InnerJacT(j, e.X, e.r2, e.d2)
	for k := range e.V {
		e.V[k] = e.d1[k] - e.d2[k] + e.Grad[k]
	}
	return e.V
}
