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

// OracleCounter routes queries to a Composition and counts them the way the
// paper does: every call of Inner, InnerJacT, InnerJacobian or OuterGrad is
// one query. Outer (function values of f_i) is never queried by the methods;
// objective values for the plots are computed outside the counter.
type OracleCounter struct {
	P Composition
	// G counts values g_j(x), DG Jacobian queries dg_j(x) and DF gradients
	// grad f_i(y).
	G, DG, DF int64
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

// InnerMean writes g(x) = (1/m) sum_j g_j(x) into dst (m queries).
func (c *OracleCounter) InnerMean(x, dst []float64) {
	d := c.P.Dims()
	tmp := make([]float64, d.R)
	clear(dst)
	for j := range d.M {
		c.Inner(j, x, tmp)
		axpy(dst, 1, tmp)
	}
	scale(dst, 1/float64(d.M))
}

// OuterGradMean writes u = (1/n) sum_i grad f_i(y) into dst (n queries).
func (c *OracleCounter) OuterGradMean(y, dst []float64) {
	d := c.P.Dims()
	tmp := make([]float64, d.R)
	clear(dst)
	for i := range d.N {
		c.OuterGrad(i, y, tmp)
		axpy(dst, 1, tmp)
	}
	scale(dst, 1/float64(d.N))
}

// JacTMean writes (dg(x))^T u = (1/m) sum_j (dg_j(x))^T u into dst
// (m queries).
func (c *OracleCounter) JacTMean(x, u, dst []float64) {
	d := c.P.Dims()
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
