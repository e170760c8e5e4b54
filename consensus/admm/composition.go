package admm

import (
	"fmt"

	"github.com/consim/consim/problems/portfolio"
)

// OracleCounter routes queries to a portfolio.Composition and counts them the way the
// paper does: every call of Inner, InnerJacT, InnerJacobian or OuterGrad is
// one query. Outer (function values of f_i) is never queried by the methods;
// objective values for the plots are computed outside the counter. A
// method that reuses a value it has already computed at the same point
// (the Estimator's g_j(x~)) still charges the query the algorithm makes,
// so the counts are the algorithm's, not the implementation's.
type OracleCounter struct {
	P portfolio.Composition
	// G counts values g_j(x), DG Jacobian queries dg_j(x) and DF gradients
	// grad f_i(y).
	G, DG, DF int64

	// tails is InnerMean's scratch for the h_j(x) of a portfolio.StackedInner P,
	// allocated on first use.
	tails []float64
	// all is 0, 1, ..., m-1, the indices InnerMean passes to InnerTails.
	all []int
	// jd is InnerJacTDiff's scratch for the general form, allocated on
	// first use.
	jd []float64
}

// NewOracleCounter returns a counter at zero for p.
func NewOracleCounter(p portfolio.Composition) (*OracleCounter, error) {
	if p == nil {
		return nil, fmt.Errorf("admm: nil composition")
	}
	d := p.Dims()
	if d.D <= 0 || d.R <= 0 || d.M <= 0 || d.N <= 0 {
		return nil, fmt.Errorf("admm: composition dims %+v must all be positive", d)
	}
	return &OracleCounter{P: p}, nil
}

// Total is the number of oracle calls so far: G + DG + DF.
func (c *OracleCounter) Total() int64 { return c.G + c.DG + c.DF }

// Inner writes g_j(x) into dst (one query).
func (c *OracleCounter) Inner(j int, x, dst []float64) {
	c.G++
	c.P.Inner(j, x, dst)
}

// InnerJacT writes (dg_j(x))^T u into dst (one query).
func (c *OracleCounter) InnerJacT(j int, x, u, dst []float64) {
	c.DG++
	c.P.InnerJacT(j, x, u, dst)
}

// InnerJacobian writes dg_j(x) into dst (one query).
func (c *OracleCounter) InnerJacobian(j int, x, dst []float64) {
	c.DG++
	c.P.InnerJacobian(j, x, dst)
}

// InnerJacobianTail writes B_j(x) of dg_j(x) = [I; B_j(x)] into dst (one
// Jacobian query, as InnerJacobian). c.P must implement
// portfolio.IdentityStackedJacobian.
func (c *OracleCounter) InnerJacobianTail(j int, x, dst []float64) {
	c.DG++
	c.P.(portfolio.IdentityStackedJacobian).InnerJacobianTail(j, x, dst)
}

// OuterGrad writes grad f_i(y) into dst (one query).
func (c *OracleCounter) OuterGrad(i int, y, dst []float64) {
	c.DF++
	c.P.OuterGrad(i, y, dst)
}

// OuterGradPair writes grad f_i(y) into dy and grad f_i(z) into dz (two
// queries), in one call of OuterGradPair for an portfolio.OuterGradPairer
// composition.
func (c *OracleCounter) OuterGradPair(i int, y, z, dy, dz []float64) {
	if s, ok := c.P.(portfolio.OuterGradPairer); ok {
		c.DF += 2
		s.OuterGradPair(i, y, z, dy, dz)
		return
	}
	c.OuterGrad(i, y, dy)
	c.OuterGrad(i, z, dz)
}

// InnerJacTDiff writes (dg_j(x))^T u - (dg_j(y))^T u into dst (two
// queries), in one call of InnerJacTDiff for an portfolio.InnerJacTDiffer
// composition.
func (c *OracleCounter) InnerJacTDiff(j int, x, y, u, dst []float64) {
	if s, ok := c.P.(portfolio.InnerJacTDiffer); ok {
		c.DG += 2
		s.InnerJacTDiff(j, x, y, u, dst)
		return
	}
	if len(c.jd) != len(dst) {
		c.jd = make([]float64, len(dst))
	}
	c.InnerJacT(j, x, u, dst)
	c.InnerJacT(j, y, u, c.jd)
	for k, b := range c.jd {
		dst[k] -= b
	}
}

// InnerMean writes g(x) = (1/m) sum_j g_j(x) into dst (m queries). For a
// portfolio.StackedInner composition it sums the structured values (innerMeanStacked),
// which gives the same bits.
func (c *OracleCounter) InnerMean(x, dst []float64) {
	d := c.P.Dims()
	if s, ok := c.P.(portfolio.StackedInner); ok && d.R >= d.D {
		if len(c.tails) != d.M*(d.R-d.D) {
			c.tails = make([]float64, d.M*(d.R-d.D))
		}
		c.innerMeanStacked(s, x, dst, c.tails)
		return
	}
	tmp := make([]float64, d.R)
	clear(dst)
	for j := range d.M {
		c.Inner(j, x, tmp)
		axpy(dst, 1, tmp)
	}
	scale(dst, 1/float64(d.M))
}

// innerMeanStacked writes g(x) = (1/m) sum_j [x; h_j(x)] into dst and
// the h_j(x) of every j, in order, into tails (length m(r - d)): m
// queries. Every entry of dst is the sum InnerMean forms, 0 + v_0 + v_1 +
// ... + v_{m-1} in the order of j, times 1/m, so the result is the same
// bits; the head entries add m copies of x[k] without copying x, and the
// tails come from InnerTails.
func (c *OracleCounter) innerMeanStacked(s portfolio.StackedInner, x, dst, tails []float64) {
	d := c.P.Dims()
	c.G += int64(d.M)
	if len(c.all) != d.M {
		c.all = make([]int, d.M)
		for j := range c.all {
			c.all[j] = j
		}
	}
	s.InnerTails(x, c.all, tails)
	repeatSum(dst[:d.D], x, d.M)
	rt := dst[d.D:d.R]
	clear(rt)
	if len(rt) > 0 {
		for j := range d.M {
			axpy(rt, 1, tails[j*len(rt):(j+1)*len(rt)])
		}
	}
	scale(dst[:d.R], 1/float64(d.M))
}

// repeatSum sets dst[k] = 0 + x[k] + x[k] + ... (m terms, added left to
// right) for every k: the sum of m copies of x formed as axpy(dst, 1, x)
// m times from dst = 0 forms it, four entries at a time to overlap the
// additions of independent entries.
func repeatSum(dst, x []float64, m int) {
	dst = dst[:len(x)]
	k := 0
	for ; k+4 <= len(x); k += 4 {
		x0, x1, x2, x3 := x[k], x[k+1], x[k+2], x[k+3]
		var s0, s1, s2, s3 float64
		for range m {
			s0 += x0
			s1 += x1
			s2 += x2
			s3 += x3
		}
		dst[k], dst[k+1], dst[k+2], dst[k+3] = s0, s1, s2, s3
	}
	for ; k < len(x); k++ {
		var s float64
		for range m {
			s += x[k]
		}
		dst[k] = s
	}
}

// OuterGradMean writes u = (1/n) sum_i grad f_i(y) into dst (n queries).
// For an portfolio.OuterGradSummer composition the sum is OuterGradSum's, the same
// bits.
func (c *OracleCounter) OuterGradMean(y, dst []float64) {
	d := c.P.Dims()
	if s, ok := c.P.(portfolio.OuterGradSummer); ok {
		c.DF += int64(d.N)
		s.OuterGradSum(y, dst)
		scale(dst, 1/float64(d.N))
		return
	}
	tmp := make([]float64, d.R)
	clear(dst)
	for i := range d.N {
		c.OuterGrad(i, y, tmp)
		axpy(dst, 1, tmp)
	}
	scale(dst, 1/float64(d.N))
}

// JacTMean writes (dg(x))^T u = (1/m) sum_j (dg_j(x))^T u into dst
// (m queries). For an portfolio.InnerJacTSummer composition the sum is
// InnerJacTSum's, the same bits.
func (c *OracleCounter) JacTMean(x, u, dst []float64) {
	d := c.P.Dims()
	if s, ok := c.P.(portfolio.InnerJacTSummer); ok {
		c.DG += int64(d.M)
		s.InnerJacTSum(x, u, dst)
		scale(dst, 1/float64(d.M))
		return
	}
	tmp := make([]float64, d.D)
	clear(dst)
	for j := range d.M {
		c.InnerJacT(j, x, u, tmp)
		axpy(dst, 1, tmp)
	}
	scale(dst, 1/float64(d.M))
}

// Gradient writes grad F(x) = (dg(x))^T (1/n) sum_i grad f_i(g(x)) into
// dst, given gx = g(x) (m + n queries: the paper's step 5).
func (c *OracleCounter) Gradient(x, gx, dst []float64) {
	u := make([]float64, c.P.Dims().R)
	c.OuterGradMean(gx, u)
	c.JacTMean(x, u, dst)
}

// Value returns F(x) = (1/n) sum_i f_i(g(x)) exactly, without counting.
func Value(p portfolio.Composition, x []float64) float64 {
	d := p.Dims()
	gx := make([]float64, d.R)
	(&OracleCounter{P: p}).InnerMean(x, gx)
	var s float64
	for i := range d.N {
		s += p.Outer(i, gx)
	}
	return s / float64(d.N)
}

// Gradient writes grad F(x) into dst exactly, without counting.
func Gradient(p portfolio.Composition, x, dst []float64) {
	c := &OracleCounter{P: p}
	gx := make([]float64, p.Dims().R)
	c.InnerMean(x, gx)
	c.Gradient(x, gx, dst)
}

// axpy sets y += a x.
func axpy(y []float64, a float64, x []float64) {
	y = y[:len(x)] // one bounds check for the loop
	for k, v := range x {
		y[k] += float64(a * v)
	}
}

// scale sets y *= a.
func scale(y []float64, a float64) {
	for k := range y {
		y[k] *= a
	}
}

// dot returns <x, y>.
func dot(x, y []float64) float64 {
	var s float64
	y = y[:len(x)] // one bounds check for the loop
	for k, v := range x {
		s += float64(v * y[k])
	}
	return s
}
