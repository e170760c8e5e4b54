package admm

import "fmt"

// Dims are the sizes of a composition problem: x in R^D, y = g(x) in R^R,
// M = m inner components g_j and N = n outer components f_i.
type Dims struct {
	D, R, M, N int
}

// Composition is the finite-sum stochastic composition
//
//	F(x) = (1/n) sum_{i=1}^n f_i( g(x) ),   g(x) = (1/m) sum_{j=1}^m g_j(x),
//
// with g_j : R^d -> R^r and f_i : R^r -> R. Implementations may assume
// indices are in range and slices have the lengths Dims gives; callers in
// this package guarantee both.
type Composition interface {
	// Dims returns the problem sizes.
	Dims() Dims
	// Inner writes g_j(x) (length r) into dst.
	Inner(j int, x, dst []float64)
	// InnerJacT writes (dg_j(x))^T u (length d) into dst, u of length r.
	InnerJacT(j int, x, u, dst []float64)
	// InnerJacobian writes the r x d Jacobian dg_j(x), row-major, into dst.
	InnerJacobian(j int, x, dst []float64)
	// Outer returns f_i(y).
	Outer(i int, y []float64) float64
	// OuterGrad writes grad f_i(y) (length r) into dst.
	OuterGrad(i int, y, dst []float64)
}

// IdentityStackedJacobian is implemented by compositions whose inner
// Jacobians are the identity with rows below it,
//
//	dg_j(x) = [ I_d ; B_j(x) ],   B_j(x) of size (r - d) x d,
//
// (r >= d). Methods that keep a Jacobian use this structure instead of
// the dense r x d matrix: the mean (1/m) sum_j dg_j(x) is [I_d; (1/m)
// sum_j B_j(x)] and its transpose product is u_{1..d} + B^T u_{d+1..r},
// O((r - d) d) where the dense form costs O(r d) per query and per
// product.
type IdentityStackedJacobian interface {
	// InnerJacobianTail writes B_j(x), row-major, (r - d) x d, into dst.
	InnerJacobianTail(j int, x, dst []float64)
}

// StackedInner is implemented by compositions whose inner functions are
// the point itself with further rows below it,
//
//	g_j(x) = [ x ; h_j(x) ],   h_j : R^d -> R^(r-d),
//
// (r >= d). The counter and the estimator use this structure to skip
// copying x into every g_j(x) and to evaluate several h_j at once; the
// values are the ones Inner writes, bit for bit.
type StackedInner interface {
	// InnerTails writes h_j(x) for j = js[0], js[1], ..., r - d values
	// each, one after the other into dst (length len(js)(r - d)). Each
	// value must equal, bit for bit, the one Inner(j, x, .) writes below
	// x.
	InnerTails(x []float64, js []int, dst []float64)
}

// InnerJacTSummer is implemented by compositions that add up the
// transposed Jacobian products of all inner components in one pass, faster
// than m calls of InnerJacT.
type InnerJacTSummer interface {
	// InnerJacTSum writes sum_j (dg_j(x))^T u into dst: every entry is
	// 0 + t_0 + t_1 + ... + t_{m-1}, added left to right, with t_j the
	// entry InnerJacT(j, x, u, .) writes, so that it equals bit for bit
	// the sum of m InnerJacT calls.
	InnerJacTSum(x, u, dst []float64)
}

// OuterGradSummer is implemented by compositions that add up the outer
// gradients of all components in one pass, faster than n calls of
// OuterGrad.
type OuterGradSummer interface {
	// OuterGradSum writes sum_i grad f_i(y) into dst: every entry is
	// 0 + t_0 + t_1 + ... + t_{n-1}, added left to right, with t_i the
	// entry OuterGrad(i, y, .) writes, so that it equals bit for bit the
	// sum of n OuterGrad calls.
	OuterGradSum(y, dst []float64)
}

// OuterGradPairer is implemented by compositions that evaluate the
// gradient of one outer component at two points faster than two calls of
// OuterGrad.
type OuterGradPairer interface {
	// OuterGradPair writes grad f_i(y) into dy and grad f_i(z) into dz,
	// bit for bit the values of OuterGrad(i, y, dy) and OuterGrad(i, z,
	// dz).
	OuterGradPair(i int, y, z, dy, dz []float64)
}

// InnerJacTDiffer is implemented by compositions that form the difference
// of two transposed Jacobian products of one inner component faster than
// two calls of InnerJacT.
type InnerJacTDiffer interface {
	// InnerJacTDiff writes (dg_j(x))^T u - (dg_j(y))^T u into dst: every
	// entry is a - b with a and b the entries InnerJacT(j, x, u, .) and
	// InnerJacT(j, y, u, .) write, bit for bit.
	InnerJacTDiff(j int, x, y, u, dst []float64)
}

// OracleCounter routes queries to a Composition and counts them the way the
// paper does: every call of Inner, InnerJacT, InnerJacobian or OuterGrad is
// one query. Outer (function values of f_i) is never queried by the methods;
// objective values for the plots are computed outside the counter. A
// method that reuses a value it has already computed at the same point
// (the Estimator's g_j(x~)) still charges the query the algorithm makes,
// so the counts are the algorithm's, not the implementation's.
type OracleCounter struct {
	P Composition
	// G counts values g_j(x), DG Jacobian queries dg_j(x) and DF gradients
	// grad f_i(y).
	G, DG, DF int64

	// tails is InnerMean's scratch for the h_j(x) of a StackedInner P,
	// allocated on first use.
	tails []float64
	// all is 0, 1, ..., m-1, the indices InnerMean passes to InnerTails.
	all []int
	// jd is InnerJacTDiff's scratch for the general form, allocated on
	// first use.
	jd []float64
}

// NewOracleCounter returns a counter at zero for p.
func NewOracleCounter(p Composition) (*OracleCounter, error) {
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
// IdentityStackedJacobian.
func (c *OracleCounter) InnerJacobianTail(j int, x, dst []float64) {
	c.DG++
	c.P.(IdentityStackedJacobian).InnerJacobianTail(j, x, dst)
}

// OuterGrad writes grad f_i(y) into dst (one query).
func (c *OracleCounter) OuterGrad(i int, y, dst []float64) {
	c.DF++
	c.P.OuterGrad(i, y, dst)
}

// OuterGradPair writes grad f_i(y) into dy and grad f_i(z) into dz (two
// queries), in one call of OuterGradPair for an OuterGradPairer
// composition.
func (c *OracleCounter) OuterGradPair(i int, y, z, dy, dz []float64) {
	if s, ok := c.P.(OuterGradPairer); ok {
		c.DF += 2
		s.OuterGradPair(i, y, z, dy, dz)
		return
	}
	c.OuterGrad(i, y, dy)
	c.OuterGrad(i, z, dz)
}

// InnerJacTDiff writes (dg_j(x))^T u - (dg_j(y))^T u into dst (two
// queries), in one call of InnerJacTDiff for an InnerJacTDiffer
// composition.
func (c *OracleCounter) InnerJacTDiff(j int, x, y, u, dst []float64) {
	if s, ok := c.P.(InnerJacTDiffer); ok {
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
// StackedInner composition it sums the structured values (innerMeanStacked),
// which gives the same bits.
func (c *OracleCounter) InnerMean(x, dst []float64) {
	d := c.P.Dims()
	if s, ok := c.P.(StackedInner); ok && d.R >= d.D {
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
func (c *OracleCounter) innerMeanStacked(s StackedInner, x, dst, tails []float64) {
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
// For an OuterGradSummer composition the sum is OuterGradSum's, the same
// bits.
func (c *OracleCounter) OuterGradMean(y, dst []float64) {
	d := c.P.Dims()
	if s, ok := c.P.(OuterGradSummer); ok {
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
// (m queries). For an InnerJacTSummer composition the sum is
// InnerJacTSum's, the same bits.
func (c *OracleCounter) JacTMean(x, u, dst []float64) {
	d := c.P.Dims()
	if s, ok := c.P.(InnerJacTSummer); ok {
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
func Value(p Composition, x []float64) float64 {
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
func Gradient(p Composition, x, dst []float64) {
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
